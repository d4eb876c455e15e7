package dev.zaro.s3;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.exec.Futures;
import dev.zaro.remote.Fetched;
import dev.zaro.remote.HttpStore;
import dev.zaro.remote.spi.Listing;
import dev.zaro.remote.spi.RequestPolicy;
import java.net.URI;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

/**
 * An {@link S3Store}'s listing pages ({@code ListObjectsV2}): through zaro's client where its
 * object GETs go ({@link S3Gets}, read by {@link ListPage}), else through the SDK's; a failed page
 * as the error naming the prefix and the store. {@link Listing} walks the pages.
 */
final class S3Listing {
  private final S3Store store;
  private final String bucket;
  private final String name;
  private final S3Connection connection;
  private final RequestPolicy policy;
  private final S3Gets gets; // or null: pages through the SDK
  private final S3SdkReads sdk;

  /**
   * @param store the store listed (it names a missing bucket)
   * @param name how messages name the store
   * @param gets the store's route through zaro's client, or null
   * @param sdk the store's reads through the SDK (what its failures mean)
   */
  S3Listing(
      S3Store store,
      String bucket,
      String name,
      S3Connection connection,
      RequestPolicy policy,
      S3Gets gets,
      S3SdkReads sdk) {
    this.store = store;
    this.bucket = bucket;
    this.name = name;
    this.connection = connection;
    this.policy = policy;
    this.gets = gets;
    this.sdk = sdk;
  }

  /**
   * One page of {@code ListObjectsV2} of the keys under {@code objectPrefix} from {@code token} on
   * (null: the first), at most {@code pageSize} keys (0: S3's default, 1,000), {@code byDirectory}:
   * the keys directly under it and its subdirectories ({@code delimiter=/}), each ending in {@code
   * /}. Through zaro's client where object GETs go, else through the SDK's.
   */
  Listing.Page page(
      String keyPrefix, String objectPrefix, boolean byDirectory, String token, int pageSize) {
    if (gets != null) {
      return pageThroughGets(keyPrefix, objectPrefix, byDirectory, token, pageSize);
    }
    ListObjectsV2Request.Builder page =
        ListObjectsV2Request.builder().bucket(bucket).prefix(objectPrefix);
    if (byDirectory) {
      page.delimiter("/");
    }
    if (pageSize > 0) {
      page.maxKeys(pageSize);
    }
    if (token != null) {
      page.continuationToken(token);
    }
    ListObjectsV2Request req = page.build();
    S3Reply<ListObjectsV2Response> reply;
    try {
      reply =
          Futures.await(
              S3Request.of(() -> connection.client().listObjectsV2(req))
                  .send(policy, "the listing of '" + keyPrefix + "' in " + name),
              keyPrefix);
    } catch (StoreException e) {
      throw e.getCause() instanceof SdkException sdk ? listFailure(keyPrefix, sdk) : e;
    }
    if (reply.error() != null) {
      throw listFailure(keyPrefix, reply.error());
    }
    ListObjectsV2Response r = reply.value();
    return new Listing.Page(
        r.contents().stream().map(S3Object::key).toList(),
        r.commonPrefixes().stream().map(CommonPrefix::prefix).toList(),
        Boolean.TRUE.equals(r.isTruncated()) ? r.nextContinuationToken() : null);
  }

  /**
   * {@link #page} through zaro's client, signed as its GETs are, at the bucket's URL the SDK's
   * endpoint rules give. A reply naming the bucket's region elsewhere moves the store's requests
   * there (as a GET's does) and asks for the page again, once.
   */
  private Listing.Page pageThroughGets(
      String keyPrefix, String objectPrefix, boolean byDirectory, String token, int pageSize) {
    String what = "the listing of '" + keyPrefix + "' in " + name;
    boolean moved = false;
    while (true) {
      HttpStore g = gets.current();
      URI base = gets.bucketUrl(gets.region());
      if (base == null) {
        throw new StoreException("cannot list '" + keyPrefix + "' in " + name + ": no bucket URL");
      }
      URI url = URI.create(base + "?" + listQuery(objectPrefix, byDirectory, token, pageSize));
      Fetched reply = g.fetch(url, what);
      if (reply.status() == 200) {
        return ListPage.parse(reply.body(), what + " (" + url + ")");
      }
      Optional<String> region =
          reply.header("x-amz-bucket-region").map(String::strip).filter(r -> !r.isEmpty());
      if (region.isPresent()
          && (reply.status() == 301 || reply.status() == 400)
          && !moved
          && gets.moved(g, region.get()) != null) {
        moved = true;
        continue; // the same page, asked where the bucket is
      }
      throw listFailure(keyPrefix, reply, region);
    }
  }

  /** A {@code ListObjectsV2} query: keys under {@code objectPrefix}, from {@code token} on. */
  private static String listQuery(
      String objectPrefix, boolean byDirectory, String token, int pageSize) {
    StringBuilder q = new StringBuilder("list-type=2&encoding-type=url");
    if (byDirectory) {
      q.append("&delimiter=%2F");
    }
    if (!objectPrefix.isEmpty()) { // no empty parameter: servers differ on signing one
      q.append("&prefix=").append(SdkHttpUtils.urlEncode(objectPrefix));
    }
    if (pageSize > 0) {
      q.append("&max-keys=").append(pageSize);
    }
    if (token != null) {
      q.append("&continuation-token=").append(SdkHttpUtils.urlEncode(token));
    }
    return q.toString();
  }

  /** A listing's error reply as the error naming the prefix and the store. */
  private StoreException listFailure(String keyPrefix, Fetched reply, Optional<String> region) {
    int status = reply.status();
    String detail;
    if (status == 404 && reply.errorCode().orElse("NoSuchBucket").equals("NoSuchBucket")) {
      // a listing names no key: its 404 is the bucket's (zaro's client keeps no 404's text)
      detail = store.noSuchBucket();
    } else if (status == 401 || status == 403) {
      detail = "access denied (HTTP " + status + ")" + reply.serverSays();
    } else {
      detail =
          "HTTP "
              + status
              + reply.serverSays()
              + region
                  .map(r -> S3Signer.elsewhere(r, gets.region()))
                  .map(advice -> "; " + advice)
                  .orElse("");
    }
    return new StoreException("cannot list '" + keyPrefix + "' in " + name + ": " + detail);
  }

  private StoreException listFailure(String keyPrefix, SdkException e) {
    String detail =
        e instanceof S3Exception s && (s.statusCode() == 403 || s.statusCode() == 401)
            ? "access denied (HTTP " + s.statusCode() + ")"
            : sdk.describe(e);
    return new StoreException("cannot list '" + keyPrefix + "' in " + name + ": " + detail, e);
  }
}
