package dev.zaro.s3;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.remote.HttpStore;
import java.net.URI;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

/**
 * Signs the GETs an {@link S3Store} sends through zaro's own HTTP/1.1 client with AWS Signature
 * Version 4, by the SDK's own signer ({@link AwsV4HttpSigner}, the one the SDK's S3 client uses),
 * with the credentials of the store's SDK client: service {@code s3}, the store's region, the path
 * as S3 canonicalizes it (each segment percent-encoded once, not normalized), an empty payload's
 * hash. The headers it yields ({@code Authorization}, {@code X-Amz-Date}, {@code
 * x-amz-content-sha256}, {@code X-Amz-Security-Token} with session credentials) go with the request
 * as they are; {@code Host}, which the client sets from the URL, is signed but not returned.
 *
 * <p>Without credentials (an anonymous store) requests go unsigned. Each call resolves the
 * credentials again (the provider caches and refreshes them) and signs at the clock's time: a
 * request is signed once and its retries and hedges reuse the signature, which S3 accepts for 15
 * minutes.
 */
final class S3Signer implements HttpStore.Signer {
  private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();
  private final AwsCredentialsProvider credentials; // null: anonymous
  private final String region;
  private final Clock clock;

  /**
   * @param credentials the SDK client's provider, or null for unsigned (anonymous) requests
   * @param region the region requests are signed for
   * @param clock the signing time (the system clock but in tests)
   */
  S3Signer(AwsCredentialsProvider credentials, String region, Clock clock) {
    this.credentials = credentials;
    this.region = region;
    this.clock = clock;
  }

  @Override
  public Map<String, String> sign(String method, URI url) {
    if (credentials == null) {
      return Map.of();
    }
    AwsCredentials creds = credentials.resolveCredentials();
    SdkHttpRequest.Builder request =
        SdkHttpRequest.builder()
            .method(SdkHttpMethod.fromValue(method))
            .protocol(url.getScheme())
            .host(url.getHost())
            .encodedPath(SdkHttpUtils.urlEncodeIgnoreSlashes(url.getPath()));
    if (url.getPort() >= 0) {
      request.port(url.getPort());
    }
    if (url.getRawQuery() != null) {
      for (String pair : url.getRawQuery().split("&", -1)) {
        int eq = pair.indexOf('=');
        String name = SdkHttpUtils.urlDecode(eq < 0 ? pair : pair.substring(0, eq));
        request.appendRawQueryParameter(
            name, eq < 0 ? null : SdkHttpUtils.urlDecode(pair.substring(eq + 1)));
      }
    }
    SignedRequest signed =
        signer.sign(
            r ->
                r.request(request.build())
                    .identity(creds)
                    .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "s3")
                    .putProperty(AwsV4HttpSigner.REGION_NAME, region)
                    .putProperty(AwsV4FamilyHttpSigner.DOUBLE_URL_ENCODE, false)
                    .putProperty(AwsV4FamilyHttpSigner.NORMALIZE_PATH, false)
                    .putProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, true)
                    .putProperty(HttpSigner.SIGNING_CLOCK, clock));
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, List<String>> h : signed.request().headers().entrySet()) {
      if (!h.getKey().toLowerCase(Locale.ROOT).equals("host")) {
        out.put(h.getKey(), String.join(",", h.getValue()));
      }
    }
    return out;
  }

  /**
   * A reply naming the region its bucket is in (S3's {@code x-amz-bucket-region} header, as on a
   * {@code 301 PermanentRedirect} from another region's endpoint, or a {@code 400} for a request
   * signed for another region): a {@link BucketElsewhere}, saying how to read it there.
   */
  @Override
  public StoreException unexpected(
      int status, Function<String, Optional<String>> headers, String message) {
    Optional<String> bucketRegion =
        headers.apply("x-amz-bucket-region").map(String::strip).filter(x -> !x.isEmpty());
    if (bucketRegion.isEmpty()) {
      return null;
    }
    String advice = elsewhere(bucketRegion.get(), region);
    return new BucketElsewhere(
        message + (advice == null ? "" : "; " + advice), status, bucketRegion.get());
  }

  /**
   * The advice for a bucket in {@code bucketRegion} (S3's {@code x-amz-bucket-region} header) asked
   * through {@code region}; null when they are the same region.
   */
  static String elsewhere(String bucketRegion, String region) {
    String other = bucketRegion.strip();
    if (other.isEmpty() || other.equals(region)) {
      return null;
    }
    return "the bucket is in region '"
        + other
        + "', not '"
        + region
        + "': add region="
        + other
        + " to the s3:// URL's query (or set AWS_REGION)";
  }

  @Override
  public String denied() {
    return credentials == null
        ? "the request was anonymous (no credentials were found); set AWS credentials for private"
            + " data"
        : "the credentials may not read it";
  }
}
