package dev.zaro.s3;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.exec.Futures;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreCapabilities;
import dev.zaro.arrow.store.StoreKeys;
import dev.zaro.arrow.store.StoreLocation;
import dev.zaro.remote.HttpOptions;
import dev.zaro.remote.HttpStore;
import dev.zaro.remote.RetryOptions;
import dev.zaro.remote.spi.ContentRange;
import dev.zaro.remote.spi.Listing;
import dev.zaro.remote.spi.RequestPolicy;
import dev.zaro.remote.spi.StreamRelay;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Utilities;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadBucketRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

/**
 * An S3 (or S3-compatible) store: {@code s3://bucket/prefix}, key {@code a/b} is the object {@code
 * prefix/a/b}. Ranged gets, listing for hierarchy discovery, and many requests in flight without a
 * thread each: the SDK's asynchronous client over Netty, with bodies written straight into Arrow
 * buffers from the caller's allocator (one buffer per body, sized from its {@code Content-Length};
 * no heap copy). A failed, retried or cancelled request releases the buffer it was filling.
 *
 * <p>Object GETs, to AWS itself or to an {@code http} or {@code https} endpoint (MinIO, Ceph, R2,
 * moto, a proxy), addressed path style or virtual-host style, go through zaro's own HTTP/1.1 client
 * instead, the one {@link HttpStore} uses (a third of the SDK's CPU per body: benchmarks/README,
 * "S3 GETs through zaro's HTTP/1.1 client"; over TLS: "https through zaro's HTTP/1.1 client"):
 * signed with AWS Signature Version 4 by the SDK's own signer with the client's credentials ({@link
 * S3Signer}; unsigned when anonymous), under the same retries, deadlines, hedging and limit. There
 * a {@code 404} is an absent key whatever its S3 error code (the reply's body is not read), and a
 * {@code 403} an error naming the key and URL. So do {@code HEAD} (zero-length ranges), the
 * bucket's {@code HEAD} (is a missing key's bucket there?) and listing ({@code ListObjectsV2}, read
 * by {@link ListPage}). Everything goes through the SDK with {@code client=sdk} in the URL's query
 * or {@code -D}{@value #CLIENT_PROPERTY}{@code =sdk}, and for access points and directory buckets.
 * The SDK's client is built at the first request that needs it ({@link S3Connection}): a store
 * whose requests all go through zaro's client never loads it.
 *
 * <p>Every request goes through the request policy HTTP and GCS stores use ({@link S3Connection},
 * {@link S3Request}), one SDK call per attempt:
 *
 * <ul>
 *   <li>{@code 503 SlowDown}, {@code 429}, other 5xx, timeouts and broken connections are retried
 *       with exponential backoff and jitter, a bounded number of times ({@link
 *       RetryOptions#maxAttempts}); 403, 400 and the like are not, 404 is an absent key. A request
 *       that still fails is a {@link StoreException} naming the key and the attempts.
 *   <li>Every attempt has a deadline ({@link RetryOptions#requestTimeout}, headers and body), so a
 *       server that hangs gives an error, never a hang.
 *   <li>A slow GET is hedged ({@link S3Options#hedging}), and the requests in flight to the
 *       endpoint follow its AIMD limit: throttling ({@code 503 SlowDown}, 429, timeouts) halves it.
 * </ul>
 *
 * <p>Configuration, from the URL's query ({@code
 * s3://b/p?region=eu-west-1&endpoint=http://host:9000 &path_style=true&anonymous=true}), else
 * system properties {@code zaro.s3.endpoint}, {@code zaro.s3.anonymous}, else environment variables
 * {@code ZARO_S3_ENDPOINT}, {@code ZARO_S3_ANONYMOUS}, {@code AWS_NO_SIGN_REQUEST}; the region from
 * the SDK's default chain ({@code AWS_REGION}, profile, ...) else {@code us-east-1}. Credentials
 * come from the SDK's default chain; with none anywhere, requests go unsigned (anonymous), which
 * public buckets accept. A custom endpoint uses path-style addressing unless {@code
 * path_style=false}. The query may also set {@code max_connections}, {@code max_attempts}, {@code
 * request_timeout} (seconds) and {@code client} ({@code sdk} or {@code zaro}).
 */
public final class S3Store implements Store {
  public static final String ENDPOINT_PROPERTY = "zaro.s3.endpoint";
  public static final String ENDPOINT_ENV = "ZARO_S3_ENDPOINT";
  public static final String ANONYMOUS_PROPERTY = "zaro.s3.anonymous";
  public static final String ANONYMOUS_ENV = "ZARO_S3_ANONYMOUS";

  /**
   * {@code sdk}: object GETs go through the SDK's client even to a plain {@code http} endpoint (the
   * URL's {@code client} option comes first).
   */
  public static final String CLIENT_PROPERTY = "zaro.s3.client";

  private final String bucket;
  private final String prefix;
  private final String name;
  private final S3Options options;
  private final S3Connection connection; // the SDK's client, built at its first use
  private final boolean unsigned;
  private final RequestPolicy policy;
  private volatile HttpStore gets; // or null: object GETs through the SDK
  private volatile String getsRegion; // the region gets signs for and addresses
  private final List<HttpStore> retired =
      new ArrayList<>(); // gets of other regions; guarded by this
  private volatile boolean bucketSeen; // a GET through gets found the bucket there

  /** Opens {@code s3://bucket[/prefix][?options]} (see {@link S3Options#of}). */
  public static S3Store open(String location) {
    return open(StoreLocation.parse(location));
  }

  /** {@link #open(String)} of a location already taken apart. */
  public static S3Store open(StoreLocation location) {
    if (!location.scheme().equals("s3")) {
      throw new StoreException(ErrorKind.INVALID_ARGUMENT, "not an s3:// URL: '" + location + "'");
    }
    if (location.authority().isEmpty()) {
      throw location.error("no bucket (use s3://bucket/prefix)");
    }
    S3Options options = S3Options.of(location);
    try {
      return new S3Store(location.authority(), location.path(), options);
    } catch (IllegalArgumentException e) {
      throw new StoreException("store '" + location + "': " + e.getMessage(), e);
    }
  }

  public S3Store(String bucket, String prefix, S3Options options) {
    this.bucket = bucket;
    this.prefix = StoreKeys.stripSlashes(prefix);
    this.options = options;
    this.name =
        "s3://"
            + bucket
            + (this.prefix.isEmpty() ? "" : "/" + this.prefix)
            + (options.endpoint() == null ? "" : " (" + options.endpoint() + ")");
    S3Connection connection = S3Connection.open(options, bucket, name);
    this.connection = connection;
    this.unsigned = connection.unsigned();
    this.policy = connection.policy();
    this.getsRegion = connection.region().id();
    this.gets = gets(connection, connection.region());
  }

  /**
   * The store object GETs go through when zaro's own HTTP/1.1 client can send them: to AWS itself
   * and to any {@code http} or {@code https} endpoint, addressed path style or virtual-host style,
   * unless {@link S3Options#sdkGets}; null otherwise. The objects' base URL is the one the SDK
   * would send its own GETs to ({@link #objectBase}). Requests are signed by the SDK's signer with
   * the client's credentials (unsigned when the client is anonymous) and share the endpoint's limit
   * of requests in flight with the SDK's.
   */
  private HttpStore gets(S3Connection connection, Region region) {
    URI endpoint = options.endpoint();
    if (options.sdkGets()
        || (endpoint != null
            && (!("http".equalsIgnoreCase(endpoint.getScheme())
                    || "https".equalsIgnoreCase(endpoint.getScheme()))
                || endpoint.getRawAuthority() == null
                || endpoint.getRawQuery() != null))) {
      return null;
    }
    URI base = objectBase(connection.utilities(region));
    if (base == null) {
      return null;
    }
    HttpOptions http =
        new HttpOptions(
            options.retry(),
            Map.of(),
            options.maxConnections(),
            options.hedging(),
            options.maxObjectSize());
    S3Signer signer =
        new S3Signer(unsigned ? null : connection.credentials(), region.id(), Clock.systemUTC());
    return new HttpStore(base, http, name, signer);
  }

  /**
   * The URL under which the store's objects lie, ending in {@code /}: the SDK's own URL of an
   * object under the prefix ({@code S3Utilities.getUrl}, the endpoint rules its GETs follow:
   * region, endpoint, path or virtual-host style, buckets whose names no host can hold), less that
   * object's name. Null for buckets named by an ARN (access points, Object Lambda, Outposts) and S3
   * Express directory buckets, whose requests the SDK signs its own way, and when that URL is not
   * one zaro's client can send to (not {@code http} or {@code https}, or with a query).
   */
  private URI objectBase(S3Utilities utilities) {
    if (bucket.startsWith("arn:") || bucket.endsWith("--x-s3")) {
      return null; // access points and directory buckets: signed and addressed the SDK's own way
    }
    return urlBefore(utilities, prefix.isEmpty() ? PROBE : prefix + "/" + PROBE);
  }

  /** The name of the object whose URL the SDK is asked for, to learn where its directory lies. */
  private static final String PROBE = "z";

  /**
   * The SDK's URL of object {@code key} in this bucket ({@code S3Utilities.getUrl}) less its last
   * name ({@link #PROBE}), so ending in {@code /}; null when the SDK cannot give one, or gives one
   * zaro's client cannot send to (not {@code http} or {@code https}, or with a query).
   */
  private URI urlBefore(S3Utilities utilities, String key) {
    URI url;
    try {
      url = utilities.getUrl(b -> b.bucket(bucket).key(key)).toURI();
    } catch (URISyntaxException | SdkException e) {
      return null;
    }
    String s = url.toString();
    if (!(s.startsWith("http://") || s.startsWith("https://"))
        || url.getRawQuery() != null
        || url.getRawFragment() != null
        || !s.endsWith("/" + PROBE)) {
      return null;
    }
    return URI.create(s.substring(0, s.length() - PROBE.length()));
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

  public S3Options options() {
    return options;
  }

  /** Hedged requests sent so far (see {@link S3Options#hedging}). */
  long hedges() {
    long n = policy.hedges();
    synchronized (this) {
      for (HttpStore g : retired) {
        n += g.hedges();
      }
    }
    HttpStore g = gets;
    return n + (g == null ? 0 : g.hedges());
  }

  /** Whether the SDK's client has been built (it is at its first use). */
  boolean sdkClientBuilt() {
    return connection.clientBuilt();
  }

  /** Whether object GETs go through zaro's own HTTP/1.1 client (else the SDK's). */
  boolean zaroGets() {
    return gets != null;
  }

  /** The URL object GETs through zaro's client resolve keys against, or null (the SDK's GETs). */
  URI objectsUrl() {
    HttpStore g = gets;
    return g == null ? null : g.base();
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
    return Futures.await(getAsync(key, range, allocator, Runnable::run), key);
  }

  /**
   * Starts a ranged GET; the body lands in one buffer from {@code allocator}. Cancelling the
   * returned future cancels the request and releases its partial buffer. Completes on the SDK's
   * completion threads, or on zaro's HTTP/1.1 client's I/O thread for GETs sent through it ({@code
   * executor} is not needed: no thread waits for a reply).
   */
  @Override
  public CompletableFuture<Optional<ArrowBuf>> getAsync(
      String key, ByteRange range, BufferAllocator allocator, Executor executor) {
    if (gets != null) { // a zero-length range is a HEAD there
      return bucketChecked(key, followed(g -> g.getAsync(key, range, allocator, executor)));
    }
    return fetch(key, range, allocator, null);
  }

  /**
   * {@inheritDoc}
   *
   * <p>A body with a {@code Content-Length} is told of as the SDK writes it into the buffer the
   * future completes with ({@link S3Body}). Only one attempt streams ({@link StreamRelay}): a
   * streamed request is not hedged, a failure before its first body byte is retried as usual, and
   * once bytes have been told of a failure is final (a {@link StoreException} naming the key and
   * how many bytes had arrived). Other bodies (no {@code Content-Length}, a server that ignored the
   * range) are told of whole once they have arrived. Cancelling the returned future stops the
   * request and frees its body.
   */
  @Override
  public CompletableFuture<Optional<ArrowBuf>> getAsync(
      String key,
      ByteRange range,
      BufferAllocator allocator,
      Executor executor,
      Arrivals arrivals) {
    if (ContentRange.isEmpty(range)) {
      return Store.super.getAsync(key, range, allocator, executor, arrivals);
    }
    if (gets != null) {
      return bucketChecked(
          key, followed(g -> g.getAsync(key, range, allocator, executor, arrivals)));
    }
    String where;
    try {
      where = where(key) + " in " + name;
    } catch (ZaroException e) {
      return CompletableFuture.failedFuture(e);
    }
    return fetch(
        key, range, allocator, new StreamRelay(arrivals, range instanceof ByteRange.All, where));
  }

  /** A GET through the policy; with a {@code relay}, its body streams and it is not hedged. */
  // completion callbacks: each reports its outcome into the future it completes
  @SuppressWarnings("FutureReturnValueIgnored")
  private CompletableFuture<Optional<ArrowBuf>> fetch(
      String key, ByteRange range, BufferAllocator allocator, StreamRelay relay) {
    String object;
    try {
      object = objectKey(key);
    } catch (ZaroException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (ContentRange.isEmpty(range)) {
      return emptyRange(key, object, range, allocator);
    }
    GetObjectRequest.Builder builder = GetObjectRequest.builder().bucket(bucket).key(object);
    String header = ContentRange.requestHeader(range);
    if (header != null) {
      builder.range(header);
    }
    GetObjectRequest req = builder.build();
    String where = where(key) + " in " + name;
    S3Request<Got> request =
        new S3Request<>(
            () -> {
              S3Body body =
                  new S3Body(
                      allocator,
                      where,
                      relay == null ? null : relay::arrived,
                      ContentRange.askedLength(range),
                      options.maxObjectSize());
              CompletableFuture<ArrowBuf> call =
                  relay == null
                      ? connection.client().getObject(req, body)
                      : relay.start(body, () -> connection.client().getObject(req, body));
              return new S3Request.Sent<>(
                  call.thenApply(buf -> new Got(buf, body.response())),
                  () -> {
                    if (!body.abort()) {
                      call.cancel(true);
                    }
                  });
            },
            got -> got.body().close(),
            relay == null);
    CompletableFuture<Optional<ArrowBuf>> result = new CompletableFuture<>();
    request
        .send(policy, where)
        .whenComplete(
            (reply, failure) -> {
              Optional<ArrowBuf> out;
              try {
                out =
                    answer(key, range, reply, failure)
                        .map(got -> checked(key, range, got.body(), got.response(), allocator));
                if (relay != null) {
                  out = relay.finish(out);
                }
              } catch (RuntimeException e) {
                result.completeExceptionally(e);
                return;
              }
              if (!result.complete(out)) {
                out.ifPresent(ArrowBuf::close); // the caller cancelled meanwhile
              }
            });
    result.whenComplete(
        (v, e) -> {
          if (e instanceof CancellationException) {
            request.cancel();
          }
        });
    return result;
  }

  /**
   * A request through zaro's client ({@code call} on the current {@link #gets}); when S3 answers
   * that the bucket is in another region ({@link BucketElsewhere}), the store moves its GETs there
   * ({@link #moved}) and the request is sent again, once. Cancelling the returned future cancels
   * the request under way.
   */
  // completion callbacks: each reports its outcome into the future it completes
  @SuppressWarnings("FutureReturnValueIgnored")
  private CompletableFuture<Optional<ArrowBuf>> followed(
      Function<HttpStore, CompletableFuture<Optional<ArrowBuf>>> call) {
    HttpStore first = gets;
    CompletableFuture<Optional<ArrowBuf>> out = new CompletableFuture<>();
    AtomicReference<CompletableFuture<Optional<ArrowBuf>>> current =
        new AtomicReference<>(call.apply(first));
    current
        .get()
        .whenComplete(
            (v, e) -> {
              Throwable cause = e == null ? null : Futures.unwrap(e);
              HttpStore there =
                  cause instanceof BucketElsewhere b && !out.isDone()
                      ? moved(first, b.region())
                      : null;
              if (there == null) {
                settle(out, v, cause);
                return;
              }
              CompletableFuture<Optional<ArrowBuf>> again = call.apply(there);
              current.set(again);
              if (out.isDone()) {
                again.cancel(true); // cancelled meanwhile
              }
              again.whenComplete(
                  (v2, e2) -> settle(out, v2, e2 == null ? null : Futures.unwrap(e2)));
            });
    out.whenComplete(
        (v, e) -> {
          if (out.isCancelled()) {
            current.get().cancel(true);
          }
        });
    return out;
  }

  /** Completes {@code out} with a value or a failure; frees a value nobody takes any more. */
  private static void settle(
      CompletableFuture<Optional<ArrowBuf>> out, Optional<ArrowBuf> v, Throwable failure) {
    if (failure != null) {
      out.completeExceptionally(failure);
    } else if (!out.complete(v)) {
      v.ifPresent(ArrowBuf::close);
    }
  }

  /**
   * The GETs' store for {@code region} (where a reply said the bucket is), replacing {@code from}
   * (then retired, closed with this store): null when that is the region {@code from} already asks
   * in, or zaro's client cannot address the bucket there. When another request has moved the GETs
   * already, the current store.
   */
  private synchronized HttpStore moved(HttpStore from, String region) {
    if (gets != from) {
      return gets;
    }
    if (region.equals(getsRegion)) {
      return null;
    }
    HttpStore there = gets(connection, Region.of(region));
    if (there == null) {
      return null;
    }
    retired.add(from);
    getsRegion = region;
    gets = there;
    return there;
  }

  /** The region object GETs through zaro's client sign for and are addressed to (for tests). */
  String getsRegion() {
    return getsRegion;
  }

  /**
   * A GET through zaro's client, whose {@code 404} does not say whether the key or the bucket is
   * missing: the first absent key asks the SDK whether the bucket exists ({@link #bucketExists}),
   * and a missing bucket fails the read. Cancelling the returned future cancels {@code got}.
   */
  // completion callbacks: each reports its outcome into the future it completes
  @SuppressWarnings("FutureReturnValueIgnored")
  private CompletableFuture<Optional<ArrowBuf>> bucketChecked(
      String key, CompletableFuture<Optional<ArrowBuf>> got) {
    CompletableFuture<Optional<ArrowBuf>> out = new CompletableFuture<>();
    got.whenComplete(
        (v, e) -> {
          if (e != null) {
            out.completeExceptionally(Futures.unwrap(e));
          } else if (v.isPresent() || bucketSeen) {
            bucketSeen = true;
            if (!out.complete(v)) {
              v.ifPresent(ArrowBuf::close); // cancelled meanwhile
            }
          } else {
            bucketExists(key)
                .whenComplete(
                    (ok, missing) -> {
                      if (missing != null) {
                        out.completeExceptionally(Futures.unwrap(missing));
                      } else {
                        out.complete(v);
                      }
                    });
          }
        });
    out.whenComplete(
        (v, e) -> {
          if (out.isCancelled()) {
            got.cancel(true);
          }
        });
    return out;
  }

  /**
   * Completes when the bucket exists or cannot be told to be missing (a HEAD of the bucket through
   * the SDK answered other than {@code 404}); fails with the error naming {@code key} and the
   * bucket when it is missing.
   */
  private CompletableFuture<Void> bucketExists(String key) {
    HttpStore g = gets;
    URI url = g == null ? null : bucketUrl(getsRegion);
    if (url != null) { // a HEAD of the bucket through zaro's client
      return g.headAsync(url, "bucket '" + bucket + "' in " + name)
          .handle(
              (reply, failure) -> {
                if (failure == null && reply.status() == 404) {
                  throw new StoreException(
                      "cannot read " + where(key) + " in " + name + ": " + noSuchBucket());
                }
                if (failure == null && reply.status() == 200) {
                  bucketSeen = true;
                }
                return null;
              });
    }
    HeadBucketRequest req = HeadBucketRequest.builder().bucket(bucket).build();
    return S3Request.of(() -> connection.client().headBucket(req))
        .send(policy, "bucket '" + bucket + "' in " + name)
        .handle(
            (reply, failure) -> {
              if (failure == null && reply.error() != null && reply.status() == 404) {
                throw new StoreException(
                    "cannot read " + where(key) + " in " + name + ": " + noSuchBucket(),
                    reply.error());
              }
              if (failure == null && reply.error() == null) {
                bucketSeen = true;
              }
              return null;
            });
  }

  private String noSuchBucket() {
    return "no such bucket '" + bucket + "'";
  }

  /** A GET's body and the reply's headers. */
  private record Got(ArrowBuf body, GetObjectResponse response) {}

  /**
   * What a request through the policy ended with: empty for an absent key, else the reply's value;
   * S3's other error replies and failures as the typed error naming the key.
   */
  private <T> Optional<T> answer(String key, ByteRange range, S3Reply<T> reply, Throwable failure) {
    if (failure != null) {
      throw error(key, range, Futures.unwrap(failure), 1);
    }
    if (reply.error() != null) {
      if (absent(reply.error())) {
        return Optional.empty();
      }
      throw error(key, range, reply.error(), reply.attempts());
    }
    return Optional.of(reply.value());
  }

  /** A zero-length range: the value's size decides whether it is valid (a HEAD request). */
  private CompletableFuture<Optional<ArrowBuf>> emptyRange(
      String key, String object, ByteRange range, BufferAllocator allocator) {
    HeadObjectRequest req = HeadObjectRequest.builder().bucket(bucket).key(object).build();
    String where = where(key) + " in " + name;
    return S3Request.of(() -> connection.client().headObject(req))
        .send(policy, where)
        .handle(
            (reply, failure) ->
                answer(key, range, reply, failure)
                    .map(
                        head ->
                            ContentRange.emptyRange(
                                range, head.contentLength(), where, allocator)));
  }

  @Override
  public Optional<byte[]> getBytes(String key) {
    return getBytes(key, Long.MAX_VALUE);
  }

  /**
   * {@inheritDoc} On the path of zaro's HTTP client, a larger value is refused as its reply
   * announces it; through the SDK it is read, then checked.
   */
  @Override
  public Optional<byte[]> getBytes(String key, long maxBytes) {
    HttpStore first = gets;
    if (first != null) {
      Optional<byte[]> got;
      try {
        got = maxBytes == Long.MAX_VALUE ? first.getBytes(key) : first.getBytes(key, maxBytes);
      } catch (BucketElsewhere e) {
        HttpStore there = moved(first, e.region());
        if (there == null) {
          throw e;
        }
        got = maxBytes == Long.MAX_VALUE ? there.getBytes(key) : there.getBytes(key, maxBytes);
      }
      if (got.isEmpty() && !bucketSeen) {
        Futures.await(bucketExists(key), key);
      }
      return got;
    }
    GetObjectRequest req = GetObjectRequest.builder().bucket(bucket).key(objectKey(key)).build();
    CompletableFuture<Optional<byte[]>> call =
        S3Request.of(
                () ->
                    connection
                        .client()
                        .getObject(req, AsyncResponseTransformer.toBytes())
                        .thenApply(ResponseBytes::asByteArray))
            .send(policy, where(key) + " in " + name)
            .handle((reply, failure) -> answer(key, ByteRange.ALL, reply, failure));
    Optional<byte[]> got = Futures.await(call, key);
    if (got.isPresent() && got.get().length > maxBytes) {
      throw new StoreException(
          "key '"
              + key
              + "' in "
              + name
              + " is "
              + got.get().length
              + " bytes, more than the cap of "
              + maxBytes
              + " bytes on metadata documents (--max-metadata-size)");
    }
    return got;
  }

  /**
   * The asked-for bytes of a key, checked against the reply's Content-Range: {@code body} itself,
   * or a slice of it copied into a new buffer when the server ignored the range. Closes {@code
   * body} when it does not return it.
   */
  private ArrowBuf checked(
      String key,
      ByteRange range,
      ArrowBuf body,
      GetObjectResponse response,
      BufferAllocator allocator) {
    try {
      long length = body.writerIndex();
      String contentRange = response == null ? null : response.contentRange();
      if (range instanceof ByteRange.All) {
        return body;
      }
      if (contentRange == null) { // the whole value came back
        long[] ol = ContentRange.resolve(range, length, where(key) + " in " + name);
        ArrowBuf slice = allocator.buffer(ol[1]);
        slice.setBytes(0, body, ol[0], ol[1]);
        slice.writerIndex(ol[1]);
        body.close();
        return slice;
      }
      ContentRange.check(range, contentRange, length, where(key) + " in " + name);
      return body;
    } catch (RuntimeException e) {
      body.close();
      throw e;
    }
  }

  /** Whether a failed request means the key is absent (the bucket being absent is an error). */
  private static boolean absent(Throwable cause) {
    return cause instanceof NoSuchKeyException
        || (cause instanceof S3Exception s
            && s.statusCode() == 404
            && !(cause instanceof NoSuchBucketException));
  }

  /** A failed request as the typed error naming the key (the allocator's own errors pass). */
  private RuntimeException error(String key, ByteRange range, Throwable cause, int attempts) {
    if (cause instanceof ZaroException z) {
      return z;
    }
    if (cause instanceof OutOfMemoryException o) {
      return o;
    }
    if (cause instanceof CancellationException) {
      return new StoreException(
          "request for " + where(key) + " in " + name + " was cancelled", cause);
    }
    if (cause instanceof S3Exception s && s.statusCode() == 416) {
      return new StoreException(
          "cannot read "
              + range
              + " of "
              + where(key)
              + " in "
              + name
              + ": the range lies past the end of the value",
          cause);
    }
    String detail = describe(cause);
    if (attempts > 1) {
      detail += " (" + attempts + " attempts)";
    }
    return new StoreException("cannot read " + where(key) + " in " + name + ": " + detail, cause);
  }

  /** What went wrong, for a message: access, a missing bucket, HTTP status and code, timeouts. */
  private String describe(Throwable cause) {
    if (cause instanceof NoSuchBucketException) {
      return noSuchBucket();
    }
    if (cause instanceof S3Exception s) {
      if (s.statusCode() == 403 || s.statusCode() == 401) {
        return "access denied (HTTP "
            + s.statusCode()
            + ")"
            + (unsigned
                ? ": the request was anonymous (no credentials were found); set AWS credentials for private data"
                : ": the credentials may not read it");
      }
      String code = s.awsErrorDetails() == null ? null : s.awsErrorDetails().errorCode();
      String advice =
          s.awsErrorDetails() == null || s.awsErrorDetails().sdkHttpResponse() == null
              ? null
              : s.awsErrorDetails()
                  .sdkHttpResponse()
                  .firstMatchingHeader("x-amz-bucket-region")
                  .map(r -> S3Signer.elsewhere(r, connection.region().id()))
                  .orElse(null);
      return "HTTP "
          + s.statusCode()
          + (code == null ? "" : " " + code)
          + (advice == null ? "" : "; " + advice);
    }
    return String.valueOf(cause.getMessage());
  }

  /**
   * {@inheritDoc}
   *
   * <p>Through {@code ListObjectsV2}, a page of at most 1,000 keys per request: through zaro's
   * client where object GETs go through it ({@link ListPage}), else through the SDK's.
   */
  @Override
  public Stream<String> list(String keyPrefix) {
    return list(keyPrefix, null);
  }

  /**
   * {@inheritDoc}
   *
   * <p>A listing that fits one page is that page. A longer one (a hierarchy without consolidated
   * metadata lists every chunk) walks the bucket's directories instead, a page of keys and
   * subdirectories ({@code delimiter=/}) each, and of a directory below which nothing is wanted (an
   * array's) only the keys directly in it. So listing a hierarchy costs about a request per node,
   * not one per thousand chunks.
   */
  @Override
  public Stream<String> list(String keyPrefix, Predicate<String> skipBelow) {
    String objectPrefix = prefix.isEmpty() ? keyPrefix : prefix + "/" + keyPrefix;
    int strip = prefix.isEmpty() ? 0 : prefix.length() + 1;
    return Listing.keys(
        Listing.objects(
            (under, byDirectory, token) -> page(keyPrefix, under, byDirectory, token),
            objectPrefix,
            strip,
            skipBelow),
        objectPrefix,
        strip);
  }

  /**
   * One page of {@code ListObjectsV2} of the keys under {@code objectPrefix} from {@code token} on
   * (null: the first), {@code byDirectory}: the keys directly under it and its subdirectories
   * ({@code delimiter=/}), each ending in {@code /}. Through zaro's client where object GETs go,
   * else through the SDK's.
   */
  private Listing.Page page(
      String keyPrefix, String objectPrefix, boolean byDirectory, String token) {
    if (gets != null) {
      return pageThroughGets(keyPrefix, objectPrefix, byDirectory, token);
    }
    ListObjectsV2Request.Builder page =
        ListObjectsV2Request.builder().bucket(bucket).prefix(objectPrefix);
    if (byDirectory) {
      page.delimiter("/");
    }
    if (listPageSize > 0) {
      page.maxKeys(listPageSize);
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

  /** Keys per listing page asked for (0: S3's default, 1,000); tests ask for fewer. */
  int listPageSize;

  /**
   * {@link #page} through zaro's client, signed as its GETs are, at the bucket's URL the SDK's
   * endpoint rules give. A reply naming the bucket's region elsewhere moves the store's requests
   * there (as a GET's does) and asks for the page again, once.
   */
  private Listing.Page pageThroughGets(
      String keyPrefix, String objectPrefix, boolean byDirectory, String token) {
    String what = "the listing of '" + keyPrefix + "' in " + name;
    boolean moved = false;
    while (true) {
      HttpStore g = gets;
      URI base = bucketUrl(getsRegion);
      if (base == null) {
        throw new StoreException("cannot list '" + keyPrefix + "' in " + name + ": no bucket URL");
      }
      URI url = URI.create(base + "?" + listQuery(objectPrefix, byDirectory, token));
      HttpStore.Fetched reply = g.fetch(url, what);
      if (reply.status() == 200) {
        return ListPage.parse(reply.body(), what + " (" + url + ")");
      }
      Optional<String> region =
          reply.header("x-amz-bucket-region").map(String::strip).filter(r -> !r.isEmpty());
      if (region.isPresent()
          && (reply.status() == 301 || reply.status() == 400)
          && !moved
          && moved(g, region.get()) != null) {
        moved = true;
        continue; // the same page, asked where the bucket is
      }
      throw listFailure(keyPrefix, reply, region);
    }
  }

  /** A {@code ListObjectsV2} query: keys under {@code objectPrefix}, from {@code token} on. */
  private String listQuery(String objectPrefix, boolean byDirectory, String token) {
    StringBuilder q = new StringBuilder("list-type=2&encoding-type=url");
    if (byDirectory) {
      q.append("&delimiter=%2F");
    }
    if (!objectPrefix.isEmpty()) { // no empty parameter: servers differ on signing one
      q.append("&prefix=").append(SdkHttpUtils.urlEncode(objectPrefix));
    }
    if (listPageSize > 0) {
      q.append("&max-keys=").append(listPageSize);
    }
    if (token != null) {
      q.append("&continuation-token=").append(SdkHttpUtils.urlEncode(token));
    }
    return q.toString();
  }

  /**
   * The bucket's URL in {@code region} as zaro's client addresses it, the base of {@code
   * ListObjectsV2} and {@code HEAD} of the bucket: the SDK's URL of an object at the bucket's root
   * ({@code S3Utilities.getUrl}, as {@link #objectBase}) less the object's name, so {@code
   * https://bucket.s3.region.amazonaws.com/} virtual-host style, {@code http://host:port/bucket}
   * path style. Null where {@link #objectBase} is.
   */
  private URI bucketUrl(String region) {
    URI url = urlBefore(connection.utilities(Region.of(region)), PROBE);
    if (url == null || "/".equals(url.getRawPath())) {
      return url; // virtual-host style: the host's root
    }
    String s = url.toString(); // path style: the bucket's path, without its last slash
    return URI.create(s.substring(0, s.length() - 1));
  }

  /** A listing's error reply as the error naming the prefix and the store. */
  private StoreException listFailure(
      String keyPrefix, HttpStore.Fetched reply, Optional<String> region) {
    int status = reply.status();
    String detail;
    if (status == 404 && reply.errorCode().orElse("NoSuchBucket").equals("NoSuchBucket")) {
      // a listing names no key: its 404 is the bucket's (zaro's client keeps no 404's text)
      detail = noSuchBucket();
    } else if (status == 401 || status == 403) {
      detail = "access denied (HTTP " + status + ")" + reply.serverSays();
    } else {
      detail =
          "HTTP "
              + status
              + reply.serverSays()
              + region
                  .map(r -> S3Signer.elsewhere(r, getsRegion))
                  .map(advice -> "; " + advice)
                  .orElse("");
    }
    return new StoreException("cannot list '" + keyPrefix + "' in " + name + ": " + detail);
  }

  private StoreException listFailure(String keyPrefix, SdkException e) {
    String detail =
        e instanceof S3Exception s && (s.statusCode() == 403 || s.statusCode() == 401)
            ? "access denied (HTTP " + s.statusCode() + ")"
            : describe(e);
    return new StoreException("cannot list '" + keyPrefix + "' in " + name + ": " + detail, e);
  }

  /** Remote: readers keep many requests in flight ({@link #getAsync}). */
  @Override
  public StoreCapabilities capabilities() {
    return StoreCapabilities.REMOTE;
  }

  @Override
  public String describe() {
    return name;
  }

  @Override
  public void close() {
    HttpStore g = gets;
    if (g != null) {
      g.close();
    }
    synchronized (this) {
      retired.forEach(HttpStore::close);
    }
    connection.close();
  }
}
