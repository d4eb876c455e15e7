package dev.zaro.remote;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.exec.Futures;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreCapabilities;
import dev.zaro.arrow.store.StoreKeys;
import dev.zaro.remote.spi.ContentRange;
import dev.zaro.remote.spi.RequestPolicy;
import dev.zaro.remote.spi.StreamRelay;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * A read-only store over HTTP(S): key {@code a/b} is the URL {@code BASE/a/b} (a query string in
 * the base URL, such as a signature, is kept on every request). Reads go through {@link
 * Http1Client} (non-blocking sockets, one I/O thread, bodies read or decrypted straight into Arrow
 * buffers; {@code https} trusts what the JVM's default TLS context trusts), and so do {@code HEAD}
 * requests and whole replies of listing APIs ({@link #fetch}); {@code -Dzaro.http.client=jdk} sends
 * every request through the JDK's {@link HttpClient}. Either way connections are shared across
 * stores, and {@link #getAsync} keeps many requests in flight without a thread each.
 *
 * <ul>
 *   <li>Ranges become {@code Range} headers (prefix {@code bytes=a-b}, suffix {@code bytes=-n}). A
 *       {@code 206} reply must carry the {@code Content-Range} asked for; a server that ignores
 *       {@code Range} and sends the whole value ({@code 200}) is sliced.
 *   <li>{@code 404}/{@code 410} mean absent; {@code 401}/{@code 403} are errors naming the URL.
 *   <li>{@code 5xx}, {@code 429}, timeouts and broken connections are retried with exponential
 *       backoff and jitter, a bounded number of times ({@code Retry-After} is honoured up to the
 *       longest backoff).
 *   <li>Every attempt has a deadline covering the headers and the whole body, so a server that
 *       hangs gives an error, never a hang.
 * </ul>
 *
 * <p>The parts: this class maps keys to URLs and replies to values; every request goes through the
 * store's {@link RequestPolicy} as attempts from {@link HttpTransport} (zaro's client with {@link
 * Http1Redirects}, or {@code java.net.http}); {@link HttpReplyCheck} reads the last reply.
 *
 * <p>HTTP cannot list a directory: {@link #capabilities()} says so and {@link #list} returns
 * nothing. A hierarchy over plain HTTP is listed through its consolidated metadata (read by {@code
 * read.Hierarchy} with {@code metadata.internal.ConsolidatedMetadata}), or its paths must be known.
 */
public final class HttpStore implements Store {
  /**
   * Signs each request: the headers that authenticate it (for example an S3 store's AWS Signature
   * Version 4), computed once per request and sent with every attempt and hedge of it.
   */
  @FunctionalInterface
  public interface Signer {
    /**
     * The headers to add to a request, never {@code Host} (which the client sets from the URL).
     *
     * @param method {@code GET} or {@code HEAD}
     * @param url the request's URL, as sent
     */
    Map<String, String> sign(String method, URI url);

    /** What a {@code 401}/{@code 403} reply means for requests signed this way (for messages). */
    default String denied() {
      return "the URL needs credentials or is not public";
    }

    /**
     * The error for an unexpected reply (not a success, an absent key, a denial, a range past the
     * end nor a retried failure) to a request signed this way: the signer's service may read more
     * in it than its status (an S3 store: the region its bucket is in), or null for the plain
     * {@link StoreException} with {@code message}.
     *
     * @param status the reply's HTTP status
     * @param headers the first value of each of the reply's headers, by name (any case)
     * @param message what the plain error says: the key, URL, status and what the server said
     */
    default StoreException unexpected(
        int status, Function<String, Optional<String>> headers, String message) {
      return null;
    }
  }

  private final URI base;
  private final String query;
  private final HttpOptions options;
  private final String name;
  private final Signer signer; // or null
  private final RequestPolicy policy;
  private final HttpTransport transport;
  private final HttpReplyCheck replies;

  /** A store at {@code base} (an http or https URL) with {@link HttpOptions#DEFAULT}. */
  public HttpStore(URI base) {
    this(base, HttpOptions.DEFAULT);
  }

  /** The store whose keys resolve against {@code base}. */
  public HttpStore(URI base, HttpOptions options) {
    this(base, options, null);
  }

  /**
   * @param name how {@link #describe} names the store (for example a gs:// URL), or null
   */
  public HttpStore(URI base, HttpOptions options, String name) {
    this(base, options, name, null);
  }

  /**
   * @param name how {@link #describe} names the store, or null
   * @param signer signs every request (after {@link HttpOptions#headers}), or null
   */
  public HttpStore(URI base, HttpOptions options, String name, Signer signer) {
    String scheme = base.getScheme();
    if (scheme == null
        || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
        || base.getRawAuthority() == null) {
      throw new StoreException("not an http(s) URL: '" + base + "'");
    }
    String path =
        base.getRawPath() == null || base.getRawPath().isEmpty() ? "/" : base.getRawPath();
    if (!path.endsWith("/")) {
      path += "/";
    }
    this.base = URI.create(scheme.toLowerCase(Locale.ROOT) + "://" + base.getRawAuthority() + path);
    this.query = base.getRawQuery();
    this.options = options;
    this.name = name != null ? name : this.base.toString();
    this.signer = signer;
    this.policy =
        new RequestPolicy(
            options.retry().requestTimeout(),
            options.retry().timeout(),
            options.retry().maxAttempts(),
            options.retry().initialBackoff(),
            options.retry().maxBackoff(),
            options.hedging(),
            this.base.getRawAuthority(),
            options.maxRequests());
    this.transport = new HttpTransport(options.retry().connectTimeout());
    this.replies = new HttpReplyCheck(this.name, signer, options.retry().maxAttempts());
  }

  /** Whether this store has made (or taken the shared) {@code java.net.http} client. */
  boolean jdkClientMade() {
    return transport.jdkClientMade();
  }

  /** The base URL, ending with {@code /}. */
  public URI base() {
    return base;
  }

  /** The URL of {@code key}. */
  public URI url(String key) {
    StoreKeys.checked(key, this);
    return URI.create(base + StoreKeys.encodePath(key) + (query == null ? "" : "?" + query));
  }

  @Override
  public Optional<ArrowBuf> get(String key, ByteRange range, BufferAllocator allocator) {
    return Futures.await(getAsync(key, range, allocator, Runnable::run), key);
  }

  @Override
  public CompletableFuture<Optional<ArrowBuf>> getAsync(
      String key, ByteRange range, BufferAllocator allocator, Executor executor) {
    URI url;
    try {
      url = url(key);
    } catch (ZaroException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (ContentRange.isEmpty(range)) { // a HEAD: through zaro's client as GETs go, unless jdk
      HttpRequest head = request(url, null, true);
      return HttpTransport.useHttp1()
          ? send(head, key, url, () -> body(allocator, key, url, range))
              .thenCompose(r -> emptyRange(key, url, range, r, allocator))
          : send(head, key, url, HttpResponse.BodyHandlers::ofByteArray)
              .thenCompose(r -> emptyRange(key, url, range, r, allocator));
    }
    return delivered(
        key,
        url,
        range,
        allocator,
        null,
        send(
            request(url, ContentRange.requestHeader(range), false),
            key,
            url,
            () -> body(allocator, key, url, range)));
  }

  /**
   * The caller's future of a body GET sent through the policy: the reply as the caller's buffer
   * (through {@code relay}, when it streams). Cancelling it cancels {@code sent}, whose attempt in
   * flight stops and frees its body; a body that arrives after the caller gave up is freed.
   */
  // completion callbacks: each reports its outcome into the future it completes
  @SuppressWarnings("FutureReturnValueIgnored")
  private CompletableFuture<Optional<ArrowBuf>> delivered(
      String key,
      URI url,
      ByteRange range,
      BufferAllocator allocator,
      StreamRelay relay,
      CompletableFuture<HttpResponse<ArrowBuf>> sent) {
    CompletableFuture<Optional<ArrowBuf>> out = new CompletableFuture<>();
    sent.whenComplete(
        (r, e) -> {
          if (e != null) {
            out.completeExceptionally(e);
            return;
          }
          Optional<ArrowBuf> body;
          try {
            body = replies.toBuffer(key, url, range, r, allocator);
            if (relay != null) {
              body = relay.finish(body);
            }
          } catch (RuntimeException bad) { // the reply's body is freed
            out.completeExceptionally(bad);
            return;
          }
          if (!out.complete(body)) {
            body.ifPresent(ArrowBuf::close); // cancelled meanwhile
          }
        });
    out.whenComplete(
        (r, e) -> {
          if (out.isCancelled()) {
            sent.cancel(true); // the attempt in flight stops and frees its body
          }
        });
    return out;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Through {@link Http1Client} ({@code http} and {@code https}), a {@code Content-Length} body
   * is told of as the socket writes it into the buffer the future completes with. Only one attempt
   * streams: a streamed request is not hedged, a failure before its first body byte is retried as
   * usual, and once bytes have been told of a failure is final (a {@link StoreException} naming the
   * key and how many bytes had arrived), since a retry's body would be another buffer. Other bodies
   * ({@code -Dzaro.http.client=jdk}, chunked, a server that ignored {@code Range}) are told of
   * whole once they have arrived. Cancelling the returned future stops the request and frees its
   * body.
   */
  @Override
  public CompletableFuture<Optional<ArrowBuf>> getAsync(
      String key,
      ByteRange range,
      BufferAllocator allocator,
      Executor executor,
      Arrivals arrivals) {
    URI url;
    try {
      url = url(key);
    } catch (ZaroException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (ContentRange.isEmpty(range) || !HttpTransport.useHttp1()) {
      return Store.super.getAsync(key, range, allocator, executor, arrivals);
    }
    HttpRequest request = request(url, ContentRange.requestHeader(range), false);
    StreamRelay relay = new StreamRelay(arrivals, range instanceof ByteRange.All, where(key, url));
    CompletableFuture<HttpResponse<ArrowBuf>> sent =
        policy.send(
            where(key, url),
            () -> transport.streamed(request, body(allocator, key, url, range), relay),
            new HttpTransport.Replies<>());
    return delivered(key, url, range, allocator, relay, sent);
  }

  @Override
  public Optional<byte[]> getBytes(String key) {
    return whole(
        key, Math.min(options.maxObjectSize(), Integer.MAX_VALUE - 8), "--max-object-size");
  }

  /**
   * {@inheritDoc} A reply announcing more (or whose chunked body grows past it) is refused before
   * its body is allocated.
   */
  @Override
  public Optional<byte[]> getBytes(String key, long maxBytes) {
    return whole(key, maxBytes, "--max-metadata-size");
  }

  /** {@code key}'s whole value, at most {@code max} bytes ({@code cap} names who said so). */
  private Optional<byte[]> whole(String key, long max, String cap) {
    URI url = url(key);
    Optional<ArrowBuf> body =
        Futures.await(
            delivered(
                key,
                url,
                ByteRange.ALL,
                COPIES,
                null,
                send(
                    request(url, null, false),
                    key,
                    url,
                    () -> new ArrowBody(COPIES, key, url, new ReplyLimit(-1, max, cap)))),
            key);
    if (body.isEmpty()) {
      return Optional.empty();
    }
    try (ArrowBuf buf = body.get()) {
      byte[] out = new byte[Math.toIntExact(buf.writerIndex())];
      buf.getBytes(0, out);
      return Optional.of(out);
    }
  }

  /**
   * GETs a whole URL on this store's host (a listing API's page, not a key) with this store's
   * retries, deadline, headers and signer, through zaro's HTTP/1.1 client (unless {@code
   * -Dzaro.http.client=jdk}), and returns the last reply whatever its status.
   *
   * @param what the request, for messages ({@code "the listing of 'a/'"})
   */
  public Fetched fetch(URI url, String what) {
    return whole(request(url, null, false), url, what);
  }

  /**
   * {@link #fetch} with a {@code HEAD} request (whether a bucket exists, say), without waiting:
   * completes with the last reply whatever its status (its body empty), or fails as a request does.
   */
  public CompletableFuture<Fetched> headAsync(URI url, String what) {
    HttpRequest request = request(url, null, true);
    String where = what + " (" + url + ")";
    if (!HttpTransport.useHttp1()) {
      return send(request, where, HttpResponse.BodyHandlers::discarding)
          .thenApply(r -> new Fetched(r.statusCode(), r.headers().map(), new byte[0], ""));
    }
    return send(request, where, () -> body(COPIES, where)) // a HEAD reply has no body
        .thenApply(
            r ->
                new Fetched(
                    r.statusCode(), r.headers().map(), new byte[0], HttpReplyCheck.serverSays(r)));
  }

  private Fetched whole(HttpRequest request, URI url, String what) {
    String where = what + " (" + url + ")";
    if (!HttpTransport.useHttp1()) {
      HttpResponse<byte[]> r =
          Futures.await(send(request, where, HttpResponse.BodyHandlers::ofByteArray), what);
      return new Fetched(
          r.statusCode(),
          r.headers().map(),
          r.body() == null ? new byte[0] : r.body(),
          HttpReplyCheck.serverSays(r));
    }
    HttpResponse<ArrowBuf> r = Futures.await(send(request, where, () -> body(COPIES, where)), what);
    byte[] body;
    try (ArrowBuf buf = r.body()) {
      if (buf != null) {
        body = new byte[Math.toIntExact(buf.writerIndex())];
        buf.getBytes(0, body);
      } else {
        String text = r instanceof ArrowBody.ErrorText e ? e.errorText() : null;
        body = text == null ? new byte[0] : text.getBytes(StandardCharsets.UTF_8);
      }
    }
    return new Fetched(r.statusCode(), r.headers().map(), body, HttpReplyCheck.serverSays(r));
  }

  /**
   * Memory for replies copied out whole to the heap ({@link #getBytes}, {@link #fetch}): one
   * allocator for the process, never closed. A hedged copy that lost its race, or an attempt that
   * timed out, frees its partial body when the I/O thread gets to it, which can be after the caller
   * has its bytes: an allocator of the call's own, closed at once, took that for a leak and failed
   * the call that had its reply.
   */
  private static final BufferAllocator COPIES = new RootAllocator();

  private HttpRequest request(URI url, String range, boolean head) {
    HttpRequest.Builder b = HttpRequest.newBuilder(url).timeout(options.retry().requestTimeout());
    if (head) {
      b.method("HEAD", HttpRequest.BodyPublishers.noBody());
    } else {
      b.GET();
    }
    if ("http".equals(url.getScheme())) {
      b.version(HttpClient.Version.HTTP_1_1); // no h2c upgrade dance with plain-HTTP servers
    }
    if (range != null) {
      b.header("Range", range);
    }
    options.headers().forEach(b::header);
    if (signer != null) {
      signer.sign(head ? "HEAD" : "GET", url).forEach(b::header);
    }
    return b.build();
  }

  /** Hedged requests sent so far (see {@link HttpOptions#hedging}). */
  public long hedges() {
    return policy.hedges();
  }

  /**
   * Sends a request through the store's {@link RequestPolicy} (retries, deadline, hedging, the
   * host's limit); completes with the last response. {@code bodies} makes each attempt's body
   * handler; an {@link ArrowBody} of an attempt that ends without a response is abandoned (its
   * buffer freed).
   */
  private <T> CompletableFuture<HttpResponse<T>> send(
      HttpRequest request, String key, URI url, Supplier<HttpResponse.BodyHandler<T>> bodies) {
    return send(request, where(key, url), bodies);
  }

  /** {@link #send} of a request for no key, named {@code where} in messages. */
  private <T> CompletableFuture<HttpResponse<T>> send(
      HttpRequest request, String where, Supplier<HttpResponse.BodyHandler<T>> bodies) {
    return policy.send(
        where, () -> transport.attempt(request, bodies.get()), new HttpTransport.Replies<>());
  }

  /** A body handler for one attempt of a read of {@code range} of {@code key}. */
  private ArrowBody body(BufferAllocator allocator, String key, URI url, ByteRange range) {
    return new ArrowBody(allocator, key, url, ReplyLimit.of(range, options.maxObjectSize()));
  }

  /** A body handler for one attempt of a request for no key (a listing page, a HEAD). */
  private ArrowBody body(BufferAllocator allocator, String where) {
    return new ArrowBody(
        allocator, where, new ReplyLimit(-1, options.maxObjectSize(), "--max-object-size"));
  }

  /** How messages name a request: {@code key 'a/b' (URL)}. */
  static String where(String key, URI url) {
    return "key '" + key + "' (" + url + ")";
  }

  /** Zero-length ranges: a HEAD request tells whether the key exists and how long it is. */
  private CompletableFuture<Optional<ArrowBuf>> emptyRange(
      String key, URI url, ByteRange range, HttpResponse<?> head, BufferAllocator allocator) {
    if (HttpReplyCheck.absent(head)) {
      return CompletableFuture.completedFuture(Optional.empty());
    }
    replies.checkStatus(key, url, head);
    OptionalLong length = head.headers().firstValueAsLong("Content-Length");
    if (length.isEmpty()) {
      return send(
              request(url, null, false), key, url, () -> body(allocator, key, url, ByteRange.ALL))
          .thenApply(r -> replies.toBuffer(key, url, range, r, allocator));
    }
    return CompletableFuture.completedFuture(
        Optional.of(
            ContentRange.emptyRange(range, length.getAsLong(), where(key, url), allocator)));
  }

  @Override
  public StoreCapabilities capabilities() {
    return StoreCapabilities.REMOTE.unlisted();
  }

  /** Plain HTTP cannot list: none (hierarchies here are found through consolidated metadata). */
  @Override
  public Stream<String> list(String prefix) {
    return Stream.empty();
  }

  @Override
  public String describe() {
    return name;
  }
}
