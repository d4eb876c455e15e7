package dev.zaro.arrow.store;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.exec.Futures;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * A read-only store over HTTP(S): key {@code a/b} is the URL {@code BASE/a/b} (a query string in
 * the base URL, such as a signature, is kept on every request). Plain {@code http} reads go through
 * {@link Http1Client} (non-blocking sockets, one I/O thread, bodies read straight into Arrow
 * buffers); {@code https}, {@code HEAD} and {@code -Dzaro.http.client=jdk} use the JDK's {@link
 * HttpClient}. Either way connections are shared across stores, and {@link #getAsync} keeps many
 * requests in flight without a thread each.
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
 * <p>HTTP cannot list a directory: {@link #capabilities()} says so and {@link #list} returns
 * nothing. A hierarchy over plain HTTP is listed through its consolidated metadata (read by {@code
 * read.Hierarchy} with {@code metadata.ConsolidatedMetadata}), or its paths must be known.
 */
public final class HttpStore implements Store {
  /**
   * How an HTTP store talks to its server: timeouts, retries, extra headers, concurrency, hedging.
   *
   * @param retry timeouts and retries (the same record as the S3 store's)
   * @param headers sent with every request (for example {@code Authorization})
   * @param maxRequests the most requests in flight to one host; below it the limit adapts ({@link
   *     AdaptiveConcurrency}: grows while latency holds, halves on 429/503/timeouts)
   * @param hedging a GET still unanswered after three times the recent 95th percentile latency (at
   *     least 100 ms) is sent again and the first reply wins, for at most 5% extra requests
   */
  public record Options(
      RetryOptions retry, Map<String, String> headers, int maxRequests, boolean hedging) {
    public static final Options DEFAULT = new Options(RetryOptions.DEFAULT, Map.of(), 256, true);

    public Options {
      Objects.requireNonNull(retry, "retry");
      if (maxRequests < 1) {
        throw new IllegalArgumentException("maxRequests must be at least 1, not " + maxRequests);
      }
      headers = Map.copyOf(headers);
    }

    public Options withRetry(RetryOptions r) {
      return new Options(r, headers, maxRequests, hedging);
    }

    /** {@link RetryOptions#withRequestTimeout} on {@link #retry}. */
    public Options withRequestTimeout(Duration timeout) {
      return withRetry(retry.withRequestTimeout(timeout));
    }

    /** {@link RetryOptions#withRetries} on {@link #retry}. */
    public Options withRetries(int attempts, Duration initial, Duration max) {
      return withRetry(retry.withRetries(attempts, initial, max));
    }

    public Options withHeaders(Map<String, String> extra) {
      return new Options(retry, extra, maxRequests, hedging);
    }

    public Options withHedging(boolean on) {
      return new Options(retry, headers, maxRequests, on);
    }

    public Options withMaxRequests(int max) {
      return new Options(retry, headers, max, hedging);
    }
  }

  private static volatile HttpClient sharedClient;

  /** Request deadlines and retry delays: light work only, never blocking. */
  private static final ScheduledThreadPoolExecutor TIMER = timer();

  private final URI base;
  private final String query;
  private final Options options;
  private volatile HttpClient client; // made on first use: plain-http reads may never need it
  private final String name;
  private final AdaptiveConcurrency limiter;
  private final Latencies latencies = new Latencies();

  /** A store at {@code base} (an http or https URL) with {@link Options#DEFAULT}. */
  public HttpStore(URI base) {
    this(base, Options.DEFAULT);
  }

  public HttpStore(URI base, Options options) {
    this(base, options, null);
  }

  /**
   * @param name how {@link #describe} names the store (for example a gs:// URL), or null
   */
  public HttpStore(URI base, Options options, String name) {
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
    this.base =
        URI.create(
            scheme.toLowerCase(java.util.Locale.ROOT) + "://" + base.getRawAuthority() + path);
    this.query = base.getRawQuery();
    this.options = options;
    this.name = name != null ? name : this.base.toString();
    this.limiter = AdaptiveConcurrency.forHost(this.base.getRawAuthority(), options.maxRequests());
  }

  /**
   * The {@code java.net.http} client (for https, HEAD and {@code -Dzaro.http.client=jdk}), made on
   * first use: making one loads and initializes about 500 classes (TLS among them), a cold read's
   * cost that plain-http reads through {@link Http1Client} do not pay.
   */
  private HttpClient client() {
    HttpClient c = client;
    if (c == null) {
      synchronized (this) {
        c = client;
        if (c == null) {
          c = sharedClient(options.retry().connectTimeout());
          client = c;
        }
      }
    }
    return c;
  }

  private static HttpClient sharedClient(Duration connectTimeout) {
    if (!connectTimeout.equals(RetryOptions.DEFAULT.connectTimeout())) {
      return newClient(connectTimeout);
    }
    HttpClient c = sharedClient;
    if (c == null) {
      synchronized (HttpStore.class) {
        c = sharedClient;
        if (c == null) {
          c = newClient(connectTimeout);
          sharedClient = c;
        }
      }
    }
    return c;
  }

  private static ScheduledThreadPoolExecutor timer() {
    ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "zaro-http-timer");
              t.setDaemon(true);
              return t;
            });
    timer.setRemoveOnCancelPolicy(true);
    return timer;
  }

  private static HttpClient newClient(Duration connectTimeout) {
    return HttpClient.newBuilder()
        .connectTimeout(connectTimeout)
        .followRedirects(HttpClient.Redirect.NORMAL)
        .version(HttpClient.Version.HTTP_2)
        .build();
  }

  /** The base URL, ending with {@code /}. */
  public URI base() {
    return base;
  }

  /** The URL of {@code key}. */
  public URI url(String key) {
    StoreKeys.checked(key, this);
    return URI.create(base + encodePath(key) + (query == null ? "" : "?" + query));
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
    if (isEmptyRange(range)) {
      return send(request(url, null, true), key, url, HttpResponse.BodyHandlers::ofByteArray)
          .thenCompose(r -> emptyRange(key, url, range, r, allocator));
    }
    return send(
            request(url, rangeHeader(range), false),
            key,
            url,
            () -> new ArrowBody(allocator, key, url))
        .thenApply(r -> toBuffer(key, url, range, r, allocator));
  }

  @Override
  public Optional<byte[]> getBytes(String key) {
    URI url = url(key);
    if (useHttp1(url)) { // through the body path, into a buffer of its own, copied out
      try (BufferAllocator allocator = new RootAllocator()) {
        Optional<ArrowBuf> body = get(key, ByteRange.ALL, allocator);
        if (body.isEmpty()) {
          return Optional.empty();
        }
        try (ArrowBuf buf = body.get()) {
          byte[] out = new byte[Math.toIntExact(buf.writerIndex())];
          buf.getBytes(0, out);
          return Optional.of(out);
        }
      }
    }
    return Futures.await(
        send(request(url, null, false), key, url, HttpResponse.BodyHandlers::ofByteArray)
            .thenApply(
                r -> {
                  if (absent(r)) {
                    return Optional.<byte[]>empty();
                  }
                  checkStatus(key, url, r);
                  return Optional.of(r.body());
                }),
        key);
  }

  /**
   * GETs a whole URL with this store's retries, timeouts and headers (for listing APIs), and
   * returns the last reply whatever its status.
   */
  HttpResponse<byte[]> fetch(URI url, String what) {
    return Futures.await(
        send(request(url, null, false), what, url, HttpResponse.BodyHandlers::ofByteArray), what);
  }

  private static boolean isEmptyRange(ByteRange range) {
    return (range instanceof ByteRange.FromStart f && f.length() == 0)
        || (range instanceof ByteRange.Suffix s && s.length() == 0);
  }

  private static String rangeHeader(ByteRange range) {
    if (range instanceof ByteRange.FromStart f) {
      return "bytes=" + f.offset() + "-" + (f.offset() + f.length() - 1);
    }
    if (range instanceof ByteRange.Suffix s) {
      return "bytes=-" + s.length();
    }
    return null;
  }

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
    return b.build();
  }

  /**
   * Starts one request when the host's {@link AdaptiveConcurrency} allows, with a deadline from its
   * start. Cancelling the returned future aborts the request (or drops it while it waits).
   */
  // completion callbacks: each reports its outcome into the future it completes
  @SuppressWarnings("FutureReturnValueIgnored")
  private <T> CompletableFuture<HttpResponse<T>> launch(
      HttpRequest request, HttpResponse.BodyHandler<T> handler, AtomicBoolean timedOut) {
    long timeoutMillis = options.retry().requestTimeout().toMillis();
    CompletableFuture<HttpResponse<T>> response = new CompletableFuture<>();
    limiter.execute(
        permit -> {
          if (response.isDone()) { // cancelled while waiting
            limiter.release(permit, false);
            return;
          }
          long started = System.nanoTime();
          CompletableFuture<HttpResponse<T>> sent;
          try {
            sent =
                handler instanceof ArrowBody body && useHttp1(request.uri())
                    ? sendHttp1(request, body)
                    : client().sendAsync(request, handler);
          } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
          }
          CompletableFuture<HttpResponse<T>> inner = sent;
          ScheduledFuture<?> watchdog =
              TIMER.schedule(
                  () -> {
                    if (!inner.isDone()) {
                      timedOut.set(true);
                      inner.cancel(true);
                    }
                  },
                  timeoutMillis,
                  TimeUnit.MILLISECONDS);
          inner.whenComplete(
              (r, e) -> {
                watchdog.cancel(false);
                int status = r == null ? 0 : r.statusCode();
                boolean throttled =
                    timedOut.get()
                        || Futures.unwrap(e) instanceof HttpTimeoutException
                        || status == 429
                        || status == 503;
                limiter.release(permit, throttled);
                if (status == 200 || status == 206) {
                  latencies.record(System.nanoTime() - started);
                }
                if (e != null) {
                  response.completeExceptionally(e);
                } else {
                  response.complete(r);
                }
              });
          response.whenComplete(
              (r, e) -> {
                if (response.isCancelled()) {
                  inner.cancel(true);
                }
              });
        });
    return response;
  }

  /**
   * Whether a body GET to {@code url} goes through {@link Http1Client}: plain {@code http} URLs,
   * unless the system property {@code zaro.http.client} is {@code jdk} (then every request uses
   * {@code java.net.http}, as {@code https} always does).
   */
  private static boolean useHttp1(URI url) {
    return "http".equals(url.getScheme()) && !"jdk".equals(System.getProperty("zaro.http.client"));
  }

  /**
   * Sends a body GET through {@link Http1Client}, its reply adopted by {@code body} (so that the
   * race, the retries and the deadline free it as they free a streamed body). Cancelling the
   * returned future cancels the request.
   */
  // completion callbacks: each reports its outcome into the future it completes
  @SuppressWarnings({"FutureReturnValueIgnored", "unchecked"})
  private static <T> CompletableFuture<HttpResponse<T>> sendHttp1(
      HttpRequest request, ArrowBody body) {
    Map<String, String> headers = new java.util.LinkedHashMap<>();
    request.headers().map().forEach((k, v) -> headers.put(k, String.join(", ", v)));
    CompletableFuture<Http1Client.Response> raw =
        Http1Client.shared()
            .send(request.method(), request.uri(), headers, body.allocator(), body.where());
    CompletableFuture<HttpResponse<T>> mapped = new CompletableFuture<>();
    raw.whenComplete(
        (r, e) -> {
          if (e != null) {
            mapped.completeExceptionally(e);
            return;
          }
          HttpResponse<T> response;
          try {
            response = (HttpResponse<T>) body.adopt(r, request);
          } catch (RuntimeException bad) { // a body longer or shorter than announced (freed)
            mapped.completeExceptionally(bad);
            return;
          }
          if (!mapped.complete(response)) {
            body.abandon(); // cancelled meanwhile
          }
        });
    mapped.whenComplete(
        (r, e) -> {
          if (mapped.isCancelled()) {
            raw.cancel(true);
          }
        });
    return mapped;
  }

  /**
   * Hedges a GET for the tail: if {@code first} has not answered after three times the recent 95th
   * percentile latency (at least {@link Latencies#FLOOR_MILLIS}), and the hedge budget allows, the
   * same request goes out again; the first good answer wins, the other is cancelled and its body
   * freed.
   */
  // completion callbacks: each reports its outcome into the future it completes
  @SuppressWarnings("FutureReturnValueIgnored")
  private <T> CompletableFuture<HttpResponse<T>> hedged(
      HttpRequest request,
      Supplier<HttpResponse.BodyHandler<T>> bodies,
      CompletableFuture<HttpResponse<T>> first,
      HttpResponse.BodyHandler<T> firstHandler) {
    long delay = latencies.hedgeDelayMillis();
    if (delay < 0) {
      return first;
    }
    Race<T> race = new Race<>();
    race.join(first, firstHandler);
    ScheduledFuture<?> timer =
        TIMER.schedule(
            () -> {
              if (first.isDone() || !latencies.tryHedge()) {
                return;
              }
              HttpResponse.BodyHandler<T> handler = bodies.get();
              CompletableFuture<HttpResponse<T>> second =
                  launch(request, handler, new AtomicBoolean());
              if (!race.join(second, handler)) {
                second.cancel(true);
              }
            },
            delay,
            TimeUnit.MILLISECONDS);
    race.result.whenComplete((r, e) -> timer.cancel(false));
    return race.result;
  }

  /**
   * The latencies of this store's recent good replies, and its hedge budget: at most {@code 2 +
   * requests / 20} hedges (5%).
   */
  static final class Latencies {
    static final long FLOOR_MILLIS = 100;
    private static final int WINDOW = 64;
    private static final int MIN_SAMPLES = 16;
    private final long[] recent = new long[WINDOW];
    private int count;
    private long requests;
    private long hedges;

    synchronized void record(long nanos) {
      recent[count++ % WINDOW] = nanos;
    }

    /** How long a request may wait before it is hedged, or -1 before there is enough history. */
    synchronized long hedgeDelayMillis() {
      requests++;
      int n = Math.min(count, WINDOW);
      if (n < MIN_SAMPLES) {
        return -1;
      }
      long[] sorted = Arrays.copyOf(recent, n);
      Arrays.sort(sorted);
      long p95 = sorted[(int) Math.ceil(0.95 * n) - 1];
      return Math.max(FLOOR_MILLIS, 3 * p95 / 1_000_000);
    }

    synchronized boolean tryHedge() {
      if (hedges >= 2 + requests / 20) {
        return false;
      }
      hedges++;
      return true;
    }

    synchronized long hedges() {
      return hedges;
    }
  }

  /** Hedged requests sent so far (see {@link Options#hedging}). */
  public long hedges() {
    return latencies.hedges();
  }

  /** Copies of one request racing: the first good reply wins, the others are cancelled. */
  private static final class Race<T> {
    final CompletableFuture<HttpResponse<T>> result = new CompletableFuture<>();
    private final java.util.List<CompletableFuture<HttpResponse<T>>> runners =
        new java.util.ArrayList<>(2);
    private int pending;
    private boolean over;

    /** Adds a runner; false if the race is already over (the caller cancels it). */
    @SuppressWarnings("FutureReturnValueIgnored") // finished() settles the race
    boolean join(CompletableFuture<HttpResponse<T>> runner, HttpResponse.BodyHandler<T> handler) {
      synchronized (this) {
        if (over) {
          return false;
        }
        pending++;
        runners.add(runner);
      }
      runner.whenComplete((r, e) -> finished(r, e, handler));
      return true;
    }

    private void finished(HttpResponse<T> r, Throwable e, HttpResponse.BodyHandler<T> handler) {
      java.util.List<CompletableFuture<HttpResponse<T>>> losers;
      synchronized (this) {
        pending--;
        if (over || (e != null && pending > 0)) {
          // a loser, or a failure while another copy may still answer: free what it holds
          if (handler instanceof ArrowBody body) {
            body.abandon();
          }
          return;
        }
        over = true;
        losers = java.util.List.copyOf(runners);
      }
      if (e != null && handler instanceof ArrowBody body) {
        body.abandon();
      }
      for (CompletableFuture<HttpResponse<T>> loser : losers) {
        loser.cancel(true); // no-op for the winner, already complete
      }
      if (e != null) {
        result.completeExceptionally(e);
      } else {
        result.complete(r);
      }
    }
  }

  /**
   * Sends a request, retrying transient failures; completes with the last response. {@code bodies}
   * makes each attempt's body handler; an {@link ArrowBody} of an attempt that ends without a
   * response is abandoned (its buffer freed).
   */
  private <T> CompletableFuture<HttpResponse<T>> send(
      HttpRequest request, String key, URI url, Supplier<HttpResponse.BodyHandler<T>> bodies) {
    return attempt(request, key, url, bodies, 1);
  }

  // completion callbacks: each reports its outcome into the future it completes
  @SuppressWarnings("FutureReturnValueIgnored")
  private <T> CompletableFuture<HttpResponse<T>> attempt(
      HttpRequest request,
      String key,
      URI url,
      Supplier<HttpResponse.BodyHandler<T>> bodies,
      int n) {
    HttpResponse.BodyHandler<T> handler = bodies.get();
    AtomicBoolean timedOut = new AtomicBoolean();
    long timeoutMillis = options.retry().requestTimeout().toMillis();
    CompletableFuture<HttpResponse<T>> first = launch(request, handler, timedOut);
    CompletableFuture<HttpResponse<T>> response =
        options.hedging() && handler instanceof ArrowBody
            ? hedged(request, bodies, first, handler)
            : first;
    return response
        .handle(
            (r, error) -> {
              Throwable cause = Futures.unwrap(error);
              if (cause != null && handler instanceof ArrowBody body) {
                body.abandon();
              }
              boolean retriable;
              String problem;
              if (cause == null) {
                int status = r.statusCode();
                retriable = status == 429 || status >= 500;
                problem = "HTTP " + status;
              } else if (timedOut.get() || cause instanceof HttpTimeoutException) {
                retriable = true;
                problem = "no complete reply within " + timeoutMillis + " ms";
              } else if (cause instanceof IOException) {
                retriable = true;
                problem = String.valueOf(cause);
              } else if (cause instanceof StoreException e) {
                return CompletableFuture.<HttpResponse<T>>failedFuture(e); // a malformed body
              } else if (cause instanceof CancellationException) {
                return CompletableFuture.<HttpResponse<T>>failedFuture(
                    new StoreException(
                        "request for key '" + key + "' (" + url + ") was cancelled", cause));
              } else {
                return CompletableFuture.<HttpResponse<T>>failedFuture(
                    new StoreException(
                        "cannot read key '" + key + "' (" + url + "): " + cause, cause));
              }
              if (!retriable) {
                return CompletableFuture.completedFuture(r);
              }
              if (n >= options.retry().maxAttempts()) {
                if (cause == null) {
                  return CompletableFuture.completedFuture(r); // the caller reports the status
                }
                return CompletableFuture.<HttpResponse<T>>failedFuture(
                    new StoreException(
                        "cannot read key '"
                            + key
                            + "' ("
                            + url
                            + "): "
                            + problem
                            + " ("
                            + n
                            + (n == 1 ? " attempt)" : " attempts)"),
                        cause));
              }
              long delay = backoffMillis(n, r);
              CompletableFuture<HttpResponse<T>> retry = new CompletableFuture<>();
              TIMER.schedule(
                  () -> {
                    attempt(request, key, url, bodies, n + 1)
                        .whenComplete(
                            (rr, e) -> {
                              if (e != null) {
                                retry.completeExceptionally(e);
                              } else {
                                retry.complete(rr);
                              }
                            });
                  },
                  delay,
                  TimeUnit.MILLISECONDS);
              return retry;
            })
        .thenCompose(f -> f);
  }

  private long backoffMillis(int attempt, HttpResponse<?> response) {
    long max = options.retry().maxBackoff().toMillis();
    long exp = options.retry().initialBackoff().toMillis() << Math.min(attempt - 1, 20);
    long delay = Math.min(max, exp);
    delay = delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1);
    if (response != null) {
      Optional<String> retryAfter = response.headers().firstValue("Retry-After");
      if (retryAfter.isPresent()) {
        try {
          delay = Math.max(delay, Math.min(max, Long.parseLong(retryAfter.get().trim()) * 1000));
        } catch (NumberFormatException e) {
          // an HTTP date: keep the computed backoff
        }
      }
    }
    return delay;
  }

  private static boolean absent(HttpResponse<?> r) {
    return r.statusCode() == 404 || r.statusCode() == 410;
  }

  private void checkStatus(String key, URI url, HttpResponse<?> r) {
    int status = r.statusCode();
    if (status == 200 || status == 206) {
      return;
    }
    if (status == 401 || status == 403) {
      throw new StoreException(
          "access denied (HTTP "
              + status
              + ") to "
              + url
              + " (key '"
              + key
              + "' in "
              + name
              + "): the URL needs credentials or is not public");
    }
    if (status == 416) {
      throw new StoreException(
          "cannot read key '"
              + key
              + "' ("
              + url
              + "): the range lies past the end of the value (HTTP 416)");
    }
    if (status == 429 || status >= 500) {
      throw new StoreException(
          "cannot read key '"
              + key
              + "' ("
              + url
              + "): HTTP "
              + status
              + " after "
              + options.retry().maxAttempts()
              + (options.retry().maxAttempts() == 1 ? " attempt" : " attempts"));
    }
    throw new StoreException(
        "cannot read key '" + key + "' (" + url + "): unexpected HTTP " + status);
  }

  /** The reply as the caller's buffer: owns {@code r}'s body, which it frees if it throws. */
  private Optional<ArrowBuf> toBuffer(
      String key, URI url, ByteRange range, HttpResponse<ArrowBuf> r, BufferAllocator allocator) {
    ArrowBuf body = r.body();
    try {
      if (absent(r)) {
        return Optional.empty();
      }
      long[] slice = slice(key, url, range, r);
      if (slice[0] == 0 && slice[1] == body.writerIndex()) {
        ArrowBuf out = body;
        body = null;
        return Optional.of(out);
      }
      // a server that ignored Range sent the whole value: keep the part asked for
      ArrowBuf out = allocator.buffer(slice[1]);
      out.setBytes(0, body, slice[0], slice[1]);
      out.writerIndex(slice[1]);
      return Optional.of(out);
    } finally {
      if (body != null) {
        body.close();
      }
    }
  }

  /**
   * Where the asked-for bytes lie in the reply's body: {offset, length}. A partial reply is checked
   * by {@link ContentRange#check}; its body's length already matches what the headers announce
   * ({@link ArrowBody} checks it).
   */
  private long[] slice(String key, URI url, ByteRange range, HttpResponse<ArrowBuf> r) {
    checkStatus(key, url, r);
    if (r.statusCode() == 200) {
      return resolve(key, url, range, r.body().writerIndex());
    }
    String header = r.headers().firstValue("Content-Range").orElse(null);
    long got =
        ContentRange.check(
            range, header, r.body().writerIndex(), "key '" + key + "' (" + url + ")");
    return new long[] {0, got};
  }

  private long[] resolve(String key, URI url, ByteRange range, long size) {
    try {
      return range.resolve(size);
    } catch (IllegalArgumentException e) {
      throw new StoreException(
          "cannot read " + range + " of key '" + key + "' (" + url + "): " + e.getMessage());
    }
  }

  /** Zero-length ranges: a HEAD request tells whether the key exists and how long it is. */
  private CompletableFuture<Optional<ArrowBuf>> emptyRange(
      String key, URI url, ByteRange range, HttpResponse<byte[]> head, BufferAllocator allocator) {
    if (absent(head)) {
      return CompletableFuture.completedFuture(Optional.empty());
    }
    checkStatus(key, url, head);
    OptionalLong length = head.headers().firstValueAsLong("Content-Length");
    if (length.isEmpty()) {
      return send(request(url, null, false), key, url, () -> new ArrowBody(allocator, key, url))
          .thenApply(r -> toBuffer(key, url, range, r, allocator));
    }
    resolve(key, url, range, length.getAsLong());
    ArrowBuf buf = allocator.buffer(0);
    return CompletableFuture.completedFuture(Optional.of(buf));
  }

  /** Percent-encodes each segment of a key (keeping {@code /}). */
  static String encodePath(String key) {
    StringBuilder sb = new StringBuilder(key.length() + 8);
    for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || "-._~/!$&'()*+,;=:@".indexOf(c) >= 0) {
        sb.append((char) c);
      } else {
        sb.append('%')
            .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
      }
    }
    return sb.toString();
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
