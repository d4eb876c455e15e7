package dev.zaro.s3;

import dev.zaro.arrow.exec.Futures;
import dev.zaro.remote.HttpOptions;
import dev.zaro.remote.HttpStore;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.arrow.memory.ArrowBuf;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Utilities;

/**
 * The route of an {@link S3Store}'s requests through zaro's own HTTP/1.1 client: the {@link
 * HttpStore} its object GETs (and bucket HEADs, listing pages) go through, addressed as the SDK
 * addresses its own and signed by {@link S3Signer}, and its move to another region when S3 answers
 * that the bucket is there ({@link BucketElsewhere}). Closing it closes that store and those it
 * replaced.
 */
final class S3Gets implements AutoCloseable {
  private final String bucket;
  private final String prefix;
  private final String name;
  private final S3Options options;
  private final S3Connection connection;
  private final boolean unsigned;
  private volatile HttpStore current;
  private volatile String region; // the region current signs for and addresses
  private final List<HttpStore> retired = new ArrayList<>(); // other regions'; guarded by this

  private S3Gets(
      String bucket, String prefix, String name, S3Options options, S3Connection connection) {
    this.bucket = bucket;
    this.prefix = prefix;
    this.name = name;
    this.options = options;
    this.connection = connection;
    this.unsigned = connection.unsigned();
    this.region = connection.region().id();
  }

  /**
   * The route through zaro's client of the store {@code name} of {@code bucket}'s objects under
   * {@code prefix}, or null when its GETs go through the SDK (see {@link #store}).
   */
  static S3Gets open(
      String bucket, String prefix, String name, S3Options options, S3Connection connection) {
    S3Gets gets = new S3Gets(bucket, prefix, name, options, connection);
    gets.current = gets.store(connection.region());
    return gets.current == null ? null : gets;
  }

  /** The store GETs go through now. */
  HttpStore current() {
    return current;
  }

  /** The region the GETs sign for and are addressed to. */
  String region() {
    return region;
  }

  /** Hedged requests sent so far by this route's stores, the retired ones too. */
  synchronized long hedges() {
    long n = 0;
    for (HttpStore g : retired) {
      n += g.hedges();
    }
    return n + current.hedges();
  }

  /**
   * The store object GETs in {@code region} go through when zaro's own HTTP/1.1 client can send
   * them: to AWS itself and to any {@code http} or {@code https} endpoint, addressed path style or
   * virtual-host style, unless {@link S3Options#sdkGets}; null otherwise. The objects' base URL is
   * the one the SDK would send its own GETs to ({@link #objectBase}). Requests are signed by the
   * SDK's signer with the client's credentials (unsigned when the client is anonymous) and share
   * the endpoint's limit of requests in flight with the SDK's.
   */
  private HttpStore store(Region region) {
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

  /**
   * A request through zaro's client ({@code call} on the {@link #current} store); when S3 answers
   * that the bucket is in another region ({@link BucketElsewhere}), the store moves its GETs there
   * ({@link #moved}) and the request is sent again, once. Cancelling the returned future cancels
   * the request under way.
   */
  // completion callbacks: each reports its outcome into the future it completes
  @SuppressWarnings("FutureReturnValueIgnored")
  CompletableFuture<Optional<ArrowBuf>> followed(
      Function<HttpStore, CompletableFuture<Optional<ArrowBuf>>> call) {
    HttpStore first = current;
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
  synchronized HttpStore moved(HttpStore from, String region) {
    if (current != from) {
      return current;
    }
    if (region.equals(this.region)) {
      return null;
    }
    HttpStore there = store(Region.of(region));
    if (there == null) {
      return null;
    }
    retired.add(from);
    this.region = region;
    current = there;
    return there;
  }

  /**
   * The bucket's URL in {@code region} as zaro's client addresses it, the base of {@code
   * ListObjectsV2} and {@code HEAD} of the bucket: the SDK's URL of an object at the bucket's root
   * ({@code S3Utilities.getUrl}, as {@link #objectBase}) less the object's name, so {@code
   * https://bucket.s3.region.amazonaws.com/} virtual-host style, {@code http://host:port/bucket}
   * path style. Null where {@link #objectBase} is.
   */
  URI bucketUrl(String region) {
    URI url = urlBefore(connection.utilities(Region.of(region)), PROBE);
    if (url == null || "/".equals(url.getRawPath())) {
      return url; // virtual-host style: the host's root
    }
    String s = url.toString(); // path style: the bucket's path, without its last slash
    return URI.create(s.substring(0, s.length() - 1));
  }

  @Override
  public void close() {
    current.close();
    synchronized (this) {
      retired.forEach(HttpStore::close);
    }
  }
}
