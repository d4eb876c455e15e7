package dev.zaro.s3;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreKeys;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * An S3 (or S3-compatible) store: {@code s3://bucket/prefix}, key {@code a/b} is the object {@code
 * prefix/a/b}. Ranged gets, listing for hierarchy discovery, many requests in flight (a pool of I/O
 * threads over a pooled HTTP client; the SDK retries throttling and 5xx).
 *
 * <p>Configuration, from the URL's query ({@code
 * s3://b/p?region=eu-west-1&endpoint=http://host:9000 &path_style=true&anonymous=true}), else
 * system properties {@code zaro.s3.endpoint}, {@code zaro.s3.anonymous}, else environment variables
 * {@code ZARO_S3_ENDPOINT}, {@code ZARO_S3_ANONYMOUS}, {@code AWS_NO_SIGN_REQUEST}; the region from
 * the SDK's default chain ({@code AWS_REGION}, profile, ...) else {@code us-east-1}. Credentials
 * come from the SDK's default chain; with none anywhere, requests go unsigned (anonymous), which
 * public buckets accept. A custom endpoint uses path-style addressing unless {@code
 * path_style=false}.
 */
public final class S3Store implements Store {
  public static final String ENDPOINT_PROPERTY = "zaro.s3.endpoint";
  public static final String ENDPOINT_ENV = "ZARO_S3_ENDPOINT";
  public static final String ANONYMOUS_PROPERTY = "zaro.s3.anonymous";
  public static final String ANONYMOUS_ENV = "ZARO_S3_ANONYMOUS";
  private static final Pattern CONTENT_RANGE =
      Pattern.compile("\\s*bytes\\s+(\\d+)-(\\d+)/(\\d+|\\*)\\s*");

  /**
   * @param region null for the SDK's default chain (else us-east-1)
   * @param endpoint null for AWS
   * @param pathStyle path-style addressing ({@code endpoint/bucket/key})
   * @param anonymous unsigned requests; if false, the default credentials chain (unsigned when it
   *     finds nothing)
   * @param connections the most requests in flight
   * @param timeout the longest one request may take, retries included
   */
  public record Options(
      String region,
      URI endpoint,
      boolean pathStyle,
      boolean anonymous,
      int connections,
      Duration timeout) {
    public static final Options DEFAULT =
        new Options(null, null, false, false, 64, Duration.ofMinutes(2));

    public Options withEndpoint(URI e, boolean path) {
      return new Options(region, e, path, anonymous, connections, timeout);
    }

    public Options withRegion(String r) {
      return new Options(r, endpoint, pathStyle, anonymous, connections, timeout);
    }

    public Options withAnonymous(boolean a) {
      return new Options(region, endpoint, pathStyle, a, connections, timeout);
    }
  }

  private final String bucket;
  private final String prefix;
  private final String name;
  private final S3Client s3;
  private final ExecutorService io;
  private final boolean unsigned;

  /** Opens {@code s3://bucket[/prefix][?options]}. */
  public static S3Store open(String location) {
    if (!location.regionMatches(true, 0, "s3://", 0, 5)) {
      throw new StoreException("not an s3:// URL: '" + location + "'");
    }
    String rest = location.substring(5);
    Map<String, String> query = new HashMap<>();
    int q = rest.indexOf('?');
    if (q >= 0) {
      for (String kv : rest.substring(q + 1).split("&")) {
        if (kv.isEmpty()) {
          continue;
        }
        int eq = kv.indexOf('=');
        String k = URLDecoder.decode(eq < 0 ? kv : kv.substring(0, eq), StandardCharsets.UTF_8);
        String v =
            eq < 0 ? "true" : URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8);
        query.put(k.toLowerCase(Locale.ROOT).replace('-', '_'), v);
      }
      rest = rest.substring(0, q);
    }
    int slash = rest.indexOf('/');
    String bucket = slash < 0 ? rest : rest.substring(0, slash);
    String prefix = slash < 0 ? "" : rest.substring(slash + 1);
    if (bucket.isEmpty()) {
      throw new StoreException("store '" + location + "': no bucket (use s3://bucket/prefix)");
    }
    for (String k : query.keySet()) {
      if (!List.of("region", "endpoint", "endpoint_url", "path_style", "anonymous", "anon")
          .contains(k)) {
        throw new StoreException(
            "store '"
                + location
                + "': unknown option '"
                + k
                + "' (known: region, endpoint, path_style, anonymous)");
      }
    }
    String endpoint =
        first(
            query.get("endpoint"),
            query.get("endpoint_url"),
            System.getProperty(ENDPOINT_PROPERTY),
            System.getenv(ENDPOINT_ENV));
    boolean anonymous =
        truthy(
            first(
                query.get("anonymous"),
                query.get("anon"),
                System.getProperty(ANONYMOUS_PROPERTY),
                System.getenv(ANONYMOUS_ENV),
                System.getenv("AWS_NO_SIGN_REQUEST")));
    boolean pathStyle =
        query.containsKey("path_style") ? truthy(query.get("path_style")) : endpoint != null;
    URI endpointUri = null;
    if (endpoint != null) {
      try {
        endpointUri = new URI(endpoint);
      } catch (java.net.URISyntaxException e) {
        throw new StoreException(
            "store '" + location + "': bad endpoint '" + endpoint + "': " + e.getMessage());
      }
    }
    Options options =
        new Options(
            query.get("region"),
            endpointUri,
            pathStyle,
            anonymous,
            Options.DEFAULT.connections(),
            Options.DEFAULT.timeout());
    return new S3Store(bucket, prefix, options);
  }

  private static String first(String... values) {
    for (String v : values) {
      if (v != null && !v.isBlank()) {
        return v;
      }
    }
    return null;
  }

  private static boolean truthy(String v) {
    return v != null
        && List.of("1", "true", "yes", "on").contains(v.trim().toLowerCase(Locale.ROOT));
  }

  public S3Store(String bucket, String prefix, Options options) {
    this.bucket = bucket;
    this.prefix = StoreKeys.stripSlashes(prefix);
    this.name =
        "s3://"
            + bucket
            + (this.prefix.isEmpty() ? "" : "/" + this.prefix)
            + (options.endpoint() == null ? "" : " (" + options.endpoint() + ")");
    AwsCredentialsProvider credentials;
    boolean anon = options.anonymous();
    if (!anon) {
      DefaultCredentialsProvider chain = DefaultCredentialsProvider.builder().build();
      try {
        chain.resolveCredentials();
        credentials = chain;
      } catch (SdkClientException e) {
        anon = true; // nothing in the chain: public data still reads
        credentials = AnonymousCredentialsProvider.create();
      }
    } else {
      credentials = AnonymousCredentialsProvider.create();
    }
    this.unsigned = anon;
    Region region;
    if (options.region() != null) {
      region = Region.of(options.region());
    } else {
      try {
        region = DefaultAwsRegionProviderChain.builder().build().getRegion();
      } catch (SdkClientException e) {
        region = Region.US_EAST_1;
      }
    }
    var builder =
        S3Client.builder()
            .region(region)
            .credentialsProvider(credentials)
            .httpClientBuilder(
                ApacheHttpClient.builder()
                    .maxConnections(options.connections())
                    .connectionTimeout(Duration.ofSeconds(10))
                    .socketTimeout(Duration.ofSeconds(30)))
            .overrideConfiguration(c -> c.apiCallTimeout(options.timeout()))
            .serviceConfiguration(
                S3Configuration.builder().pathStyleAccessEnabled(options.pathStyle()).build());
    if (options.endpoint() != null) {
      builder.endpointOverride(options.endpoint());
    }
    try {
      this.s3 = builder.build();
    } catch (SdkException e) {
      throw new StoreException(
          "store '" + name + "': cannot set up the S3 client: " + e.getMessage(), e);
    }
    AtomicInteger n = new AtomicInteger();
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            options.connections(),
            options.connections(),
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "zaro-s3-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
    this.io = pool;
  }

  public String bucket() {
    return bucket;
  }

  public String prefix() {
    return prefix;
  }

  /** Whether requests go unsigned. */
  public boolean anonymous() {
    return unsigned;
  }

  private String objectKey(String key) {
    StoreKeys.checked(key, this);
    return prefix.isEmpty() ? key : prefix + "/" + key;
  }

  private String where(String key) {
    return "key '" + key + "' (s3://" + bucket + "/" + objectKey(key) + ")";
  }

  @Override
  public Optional<ArrowBuf> get(String key, ByteRange range, BufferAllocator allocator) {
    Optional<byte[]> bytes = fetch(key, range);
    if (bytes.isEmpty()) {
      return Optional.empty();
    }
    byte[] b = bytes.get();
    ArrowBuf buf = allocator.buffer(b.length);
    buf.setBytes(0, b);
    buf.writerIndex(b.length);
    return Optional.of(buf);
  }

  @Override
  public CompletableFuture<Optional<ArrowBuf>> getAsync(
      String key, ByteRange range, BufferAllocator allocator, Executor executor) {
    return CompletableFuture.supplyAsync(() -> get(key, range, allocator), io);
  }

  @Override
  public Optional<byte[]> getBytes(String key) {
    return fetch(key, ByteRange.ALL);
  }

  /** The asked-for bytes of a key, checked against the reply's Content-Range. */
  private Optional<byte[]> fetch(String key, ByteRange range) {
    String object = objectKey(key);
    if (range instanceof ByteRange.FromStart f && f.length() == 0
        || range instanceof ByteRange.Suffix s && s.length() == 0) {
      OptionalLongSize size = size(key, object);
      if (size == null) {
        return Optional.empty();
      }
      resolve(key, range, size.value);
      return Optional.of(new byte[0]);
    }
    GetObjectRequest.Builder req = GetObjectRequest.builder().bucket(bucket).key(object);
    if (range instanceof ByteRange.FromStart f) {
      req.range("bytes=" + f.offset() + "-" + (f.offset() + f.length() - 1));
    } else if (range instanceof ByteRange.Suffix s) {
      req.range("bytes=-" + s.length());
    }
    ResponseBytes<GetObjectResponse> reply;
    try {
      reply = s3.getObject(req.build(), ResponseTransformer.toBytes());
    } catch (NoSuchKeyException e) {
      return Optional.empty();
    } catch (S3Exception e) {
      if (e.statusCode() == 404 && !(e instanceof NoSuchBucketException)) {
        return Optional.empty();
      }
      if (e.statusCode() == 416) {
        throw new StoreException(
            "cannot read "
                + range
                + " of "
                + where(key)
                + " in "
                + name
                + ": the range lies past the end of the value");
      }
      throw error(key, e);
    } catch (SdkException e) {
      throw error(key, e);
    }
    byte[] body = reply.asByteArray();
    String contentRange = reply.response().contentRange();
    if (range instanceof ByteRange.All || contentRange == null) {
      if (range instanceof ByteRange.All) {
        return Optional.of(body);
      }
      long[] ol = resolve(key, range, body.length); // the whole object came back
      return Optional.of(java.util.Arrays.copyOfRange(body, (int) ol[0], (int) (ol[0] + ol[1])));
    }
    Matcher m = CONTENT_RANGE.matcher(contentRange);
    if (!m.matches()) {
      throw new StoreException(
          where(key) + " in " + name + ": a malformed Content-Range '" + contentRange + "'");
    }
    long first = Long.parseLong(m.group(1));
    long last = Long.parseLong(m.group(2));
    long total = m.group(3).equals("*") ? -1 : Long.parseLong(m.group(3));
    long got = last - first + 1;
    long want =
        range instanceof ByteRange.FromStart f ? f.length() : ((ByteRange.Suffix) range).length();
    long wantFirst = range instanceof ByteRange.FromStart f ? f.offset() : total - want;
    if (got < want && total == last + 1) {
      throw new StoreException(
          "cannot read "
              + range
              + " of "
              + where(key)
              + " in "
              + name
              + ": the value has only "
              + total
              + " bytes");
    }
    if (got != want || (total >= 0 && first != wantFirst) || body.length != got) {
      throw new StoreException(
          where(key)
              + " in "
              + name
              + ": asked for "
              + range
              + " but got Content-Range '"
              + contentRange
              + "' and "
              + body.length
              + " bytes");
    }
    return Optional.of(body);
  }

  private record OptionalLongSize(long value) {}

  private OptionalLongSize size(String key, String object) {
    try {
      HeadObjectResponse head =
          s3.headObject(HeadObjectRequest.builder().bucket(bucket).key(object).build());
      return new OptionalLongSize(head.contentLength());
    } catch (NoSuchKeyException e) {
      return null;
    } catch (S3Exception e) {
      if (e.statusCode() == 404 && !(e instanceof NoSuchBucketException)) {
        return null;
      }
      throw error(key, e);
    } catch (SdkException e) {
      throw error(key, e);
    }
  }

  private long[] resolve(String key, ByteRange range, long size) {
    try {
      return range.resolve(size);
    } catch (IllegalArgumentException e) {
      throw new StoreException(
          "cannot read " + range + " of " + where(key) + " in " + name + ": " + e.getMessage());
    }
  }

  private StoreException error(String key, SdkException e) {
    String detail = e.getMessage();
    if (e instanceof S3Exception s && (s.statusCode() == 403 || s.statusCode() == 401)) {
      detail =
          "access denied (HTTP "
              + s.statusCode()
              + ")"
              + (unsigned
                  ? ": the request was anonymous (no credentials were found); set AWS credentials for private data"
                  : ": the credentials may not read it");
    } else if (e instanceof NoSuchBucketException) {
      detail = "no such bucket '" + bucket + "'";
    }
    return new StoreException("cannot read " + where(key) + " in " + name + ": " + detail, e);
  }

  @Override
  public Stream<String> list(String keyPrefix) {
    String objectPrefix = prefix.isEmpty() ? keyPrefix : prefix + "/" + keyPrefix;
    int strip = prefix.isEmpty() ? 0 : prefix.length() + 1;
    List<String> keys = new ArrayList<>();
    try {
      for (S3Object o :
          s3.listObjectsV2Paginator(
                  ListObjectsV2Request.builder().bucket(bucket).prefix(objectPrefix).build())
              .contents()) {
        String k = o.key();
        if (k.length() > strip && !k.endsWith("/")) {
          keys.add(k.substring(strip));
        }
      }
    } catch (SdkException e) {
      String detail =
          e instanceof S3Exception s && (s.statusCode() == 403 || s.statusCode() == 401)
              ? "access denied (HTTP " + s.statusCode() + ")"
              : e instanceof NoSuchBucketException
                  ? "no such bucket '" + bucket + "'"
                  : e.getMessage();
      throw new StoreException("cannot list '" + keyPrefix + "' in " + name + ": " + detail, e);
    }
    return keys.stream().filter(S3Store::isKey).sorted();
  }

  private static boolean isKey(String key) {
    return !key.startsWith("/")
        && Stream.of(key.split("/", -1)).noneMatch(s -> s.equals("..") || s.equals("."));
  }

  @Override
  public String describe() {
    return name;
  }

  @Override
  public void close() {
    io.shutdownNow();
    s3.close();
  }
}
