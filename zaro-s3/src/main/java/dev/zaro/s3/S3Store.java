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
import dev.zaro.remote.HttpStore;
import dev.zaro.remote.RetryOptions;
import dev.zaro.remote.spi.ContentRange;
import dev.zaro.remote.spi.Listing;
import dev.zaro.remote.spi.RequestPolicy;
import dev.zaro.remote.spi.StreamRelay;
import java.net.URI;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import software.amazon.awssdk.services.s3.model.HeadBucketRequest;

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
 * <p>The parts: this class holds the configuration, the dispatch of each read and the check that a
 * missing key's bucket exists; {@link S3Gets} is the route through zaro's client and its moves
 * between regions, {@link S3SdkReads} the reads through the SDK and what its failures mean, {@link
 * S3Listing} the listing pages.
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
  private final S3Gets gets; // or null: object GETs through the SDK
  private final S3SdkReads sdk;
  private final S3Listing listing;
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
    this.gets = S3Gets.open(bucket, this.prefix, name, options, connection);
    this.sdk = new S3SdkReads(this, bucket, name, options, connection, policy);
    this.listing = new S3Listing(this, bucket, name, connection, policy, gets, sdk);
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
    return policy.hedges() + (gets == null ? 0 : gets.hedges());
  }

  /** The region object GETs through zaro's client sign for and are addressed to (for tests). */
  String getsRegion() {
    return gets == null ? connection.region().id() : gets.region();
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
    return gets == null ? null : gets.current().base();
  }

  /** The object's name of {@code key} in the bucket. */
  String objectKey(String key) {
    StoreKeys.checked(key, this);
    return prefix.isEmpty() ? key : prefix + "/" + key;
  }

  /** How messages name {@code key}: {@code key 'a/b' (s3://bucket/prefix/a/b)}. */
  String where(String key) {
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
      return bucketChecked(key, gets.followed(g -> g.getAsync(key, range, allocator, executor)));
    }
    return sdk.fetch(key, range, allocator, null);
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
          key, gets.followed(g -> g.getAsync(key, range, allocator, executor, arrivals)));
    }
    String where;
    try {
      where = where(key) + " in " + name;
    } catch (ZaroException e) {
      return CompletableFuture.failedFuture(e);
    }
    return sdk.fetch(
        key, range, allocator, new StreamRelay(arrivals, range instanceof ByteRange.All, where));
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
    HttpStore g = gets == null ? null : gets.current();
    URI url = g == null ? null : gets.bucketUrl(gets.region());
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

  /** What a missing bucket is called in messages. */
  String noSuchBucket() {
    return "no such bucket '" + bucket + "'";
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
    if (gets != null) {
      HttpStore first = gets.current();
      Optional<byte[]> got;
      try {
        got = maxBytes == Long.MAX_VALUE ? first.getBytes(key) : first.getBytes(key, maxBytes);
      } catch (BucketElsewhere e) {
        HttpStore there = gets.moved(first, e.region());
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
    return sdk.getBytes(key, maxBytes);
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
            (under, byDirectory, token) ->
                listing.page(keyPrefix, under, byDirectory, token, listPageSize),
            objectPrefix,
            strip,
            skipBelow),
        objectPrefix,
        strip);
  }

  /** Keys per listing page asked for (0: S3's default, 1,000); tests ask for fewer. */
  int listPageSize;

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
    if (gets != null) {
      gets.close();
    }
    connection.close();
  }
}
