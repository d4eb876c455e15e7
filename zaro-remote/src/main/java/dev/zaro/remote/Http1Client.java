package dev.zaro.remote;

import dev.zaro.arrow.error.StoreException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * HTTP/1.1 over TCP or TLS for {@link HttpStore}: non-blocking sockets served by one I/O thread,
 * keep-alive connections reused per host, and {@code 200}/{@code 206} bodies read by the socket
 * straight into one {@link ArrowBuf} from the caller's allocator (a {@code Content-Length} body is
 * read, or over TLS decrypted, into the buffer's memory with no copy; a chunked or close-delimited
 * one, and a record that would overrun the body, through a 64 KiB scratch buffer). Replies complete
 * on the I/O thread, so what the caller chains on them must be light (start the next request, hand
 * the body on), never decode.
 *
 * <p>Why not {@code java.net.http}: each of its replies goes through its selector thread, a worker
 * thread, its flow machinery and 16-64 KiB heap buffers copied into the body; on small machines the
 * hand-offs and copies cost several times the CPU of the bytes themselves (benchmarks/README, "A
 * leaner HTTP path"). This client does only what an object store's read path needs: {@code GET} and
 * {@code HEAD}, one request at a time per connection (no pipelining; how many requests are in
 * flight per host is the caller's {@link AdaptiveConcurrency}), no redirects (a {@code 3xx} is
 * returned as it is), no proxies.
 *
 * <p>TLS ({@code https}): an {@link SSLEngine} per connection from the client's {@link TlsEngines}
 * (by default BoringSSL where Netty's tcnative loads, else the JDK's; either way trusting what the
 * JVM trusts, so {@code -Djavax.net.ssl.trustStore} and the JDK's CA certificates apply as they do
 * to {@code java.net.http}), with the server's certificate checked against the URL's host ({@code
 * HTTPS} endpoint identification) and SNI sent for host names. The handshake and its certificate
 * checks run on the I/O thread. A failed handshake (an untrusted or mismatched certificate, no
 * common protocol) fails the request with a {@link StoreException} naming it and the host, which is
 * not retried; a connection cut during the handshake is an {@link IOException} as any other. A TLS
 * close before the end of a {@code Content-Length} or chunked body is a cut-off reply, as a TCP
 * close is.
 *
 * <p>Failures: a connection that breaks or closes before the reply is complete fails the request
 * with an {@link IOException} naming the request (retriable: {@link HttpStore} retries it); a
 * reused keep-alive connection that the server had closed before a single reply byte arrived is
 * replaced once, transparently. A malformed reply (bad status line, header or chunk size) is a
 * {@link StoreException}. Bytes past a reply's body are dropped with the connection (a reused
 * connection is first checked to have nothing to read), never taken for the next reply. Cancelling
 * a request's future closes its connection and frees its body.
 *
 * <p>The parts: this class is the I/O thread's event loop (requests handed over, connects and their
 * deadlines, the close); {@link Http1Pool} keeps idle connections; {@link Http1Connection} carries
 * one exchange at a time over a socket, through {@link Http1Tls}'s state machine for https; {@link
 * Http1Exchange} frames the reply and lands its body; {@link Http1Failures} sorts failures into
 * retried and final ones.
 *
 * <p>Ownership: a {@link Response}'s body passes to whoever completes the future's chain; if the
 * future was cancelled before the reply completed, the client frees the body. {@link #close} stops
 * the I/O thread and closes every connection, failing requests still in flight.
 */
final class Http1Client implements AutoCloseable {
  /** The scratch buffer's size: also every TLS record's plaintext fits (at most 16 KiB + 256). */
  static final int SCRATCH_BYTES = 64 * 1024;

  private static volatile Http1Client shared;

  /** The most bytes of an error reply's body kept for its message ({@link Response#errorText}). */
  static final int ERROR_TEXT_BYTES = 4096;

  /**
   * Whether a reply of {@code status} keeps the start of its body for a message: errors, and
   * redirects (one without a {@code Location} is an error too: S3's {@code 301 PermanentRedirect}
   * says why in its body), but not {@code 304} (no body) nor {@code 404}/{@code 410}, which stores
   * take for an absent key (a sparse array's every missing chunk) and never quote.
   */
  static boolean keepsErrorText(int status) {
    return status >= 300 && status != 304 && status != 404 && status != 410;
  }

  /**
   * A reply: status, headers (names lower-cased; repeated ones in order) and, for a {@code GET}
   * answered {@code 200} or {@code 206}, the body (the receiver's to close); otherwise {@code
   * null}. For an error reply ({@link #keepsErrorText}), {@code errorText} holds the first {@link
   * #ERROR_TEXT_BYTES} of its body as text (an S3 error's XML, a server's message), else {@code
   * null}.
   */
  record Response(int status, Map<String, List<String>> headers, ArrowBuf body, String errorText) {
    /** The first value of header {@code name} (any case). */
    Optional<String> header(String name) {
      List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
      return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }
  }

  private final Selector selector;
  private final Thread io;
  private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  final Http1Pool pool = new Http1Pool(); // I/O thread only
  final ByteBuffer scratch = ByteBuffer.allocateDirect(SCRATCH_BYTES); // I/O thread only
  private final Supplier<TlsEngines> tlsSource;
  private TlsEngines tls; // I/O thread only: made at the first https connection
  private final List<Http1Connection> connecting =
      new ArrayList<>(); // I/O thread only: with a deadline
  private volatile boolean closed;
  private long connectionsOpened; // I/O thread writes

  /** The client all HTTP stores of the process share (its thread is a daemon). */
  static Http1Client shared() {
    Http1Client c = shared;
    if (c == null || c.closed) {
      synchronized (Http1Client.class) {
        c = shared;
        if (c == null || c.closed) { // a client whose selector failed is replaced, never reused
          c = new Http1Client();
          shared = c;
        }
      }
    }
    return c;
  }

  /**
   * A client with its own I/O thread (a daemon), until {@link #close}, whose https connections come
   * from {@link TlsEngines#defaults()} (BoringSSL where it loads, else the JDK's TLS; both trust
   * what the JVM trusts), set up at the first https connection.
   */
  Http1Client() {
    this(TlsEngines::defaults);
  }

  /** A client whose https connections come from {@code engines} (a test's own trust store). */
  Http1Client(TlsEngines engines) {
    this(() -> engines);
  }

  /** A client whose https connections come from what {@code tlsSource} gives, asked once. */
  Http1Client(Supplier<TlsEngines> tlsSource) {
    this.tlsSource = tlsSource;
    try {
      selector = Selector.open();
    } catch (IOException e) {
      throw new StoreException("cannot open a selector for HTTP: " + e, e);
    }
    io = new Thread(this::run, "zaro-http-io");
    io.setDaemon(true);
    io.start();
  }

  /** Connections opened so far (a reused connection is not counted again). */
  synchronized long connectionsOpened() {
    return connectionsOpened;
  }

  /**
   * Told on the I/O thread of the bytes of a {@code Content-Length} body as the socket writes them
   * into its buffer, in order, before the reply completes. Must be light and must not block.
   */
  @FunctionalInterface
  interface Progress {
    /**
     * Bytes {@code [offset, offset + length)} of {@code body} are written and stay as they are.
     *
     * @param status the reply's status ({@code 200} or {@code 206})
     * @param body the buffer the reply's {@link Response#body} will be; the client owns it until
     *     the reply completes and frees it if the reply fails
     */
    void arrived(int status, ArrowBuf body, long offset, long length);
  }

  /**
   * {@link #send(String, URI, Map, BufferAllocator, String, Progress, Duration, ReplyLimit)} with
   * no progress, no connect timeout of its own and no limit.
   */
  CompletableFuture<Response> send(
      String method,
      URI url,
      Map<String, String> headers,
      BufferAllocator allocator,
      String where) {
    return send(method, url, headers, allocator, where, null, Duration.ZERO, null);
  }

  /**
   * Sends one request.
   *
   * @param method {@code GET} or {@code HEAD}
   * @param url an {@code http} or {@code https} URL (its raw path and query are sent as they are)
   * @param headers extra request headers ({@code Host} is set from the URL)
   * @param allocator where a {@code 200}/{@code 206} body goes
   * @param where what the request is, for error messages: {@code key 'a/b' (http://host/a/b)}
   * @param progress told of a {@code Content-Length} body's bytes as they land (chunked and
   *     close-delimited bodies, whose buffer may move as it grows, are not told of), or null
   * @param connectTimeout how long a new connection may take to open before the request fails with
   *     an {@link IOException} (retriable); zero or negative for no limit of its own
   * @param limit the most body bytes the reply may bring (a longer announced body is refused before
   *     it is allocated; a chunked or close-delimited one grows up to it), stamped with every event
   *     of the request's connection; or null for neither
   */
  @SuppressWarnings("FutureReturnValueIgnored") // the callback only frees a cancelled request
  CompletableFuture<Response> send(
      String method,
      URI url,
      Map<String, String> headers,
      BufferAllocator allocator,
      String where,
      Progress progress,
      Duration connectTimeout,
      ReplyLimit limit) {
    CompletableFuture<Response> future = new CompletableFuture<>();
    if (!("http".equalsIgnoreCase(url.getScheme()) || "https".equalsIgnoreCase(url.getScheme()))
        || url.getHost() == null) {
      future.completeExceptionally(
          new StoreException(where + ": not an http or https URL: " + url));
      return future;
    }
    Http1Exchange ex =
        new Http1Exchange(method, url, headers, allocator, where, future, progress, limit);
    ex.connectTimeoutNanos = connectTimeout.isNegative() ? 0 : connectTimeout.toNanos();
    future.whenComplete(
        (r, e) -> {
          if (future.isCancelled()) {
            submit(() -> ex.crashSafe(ex::abort));
          }
        });
    submit(() -> startSafely(ex));
    return future;
  }

  private void submit(Runnable task) {
    if (closed) {
      task.run(); // runs against a closed client: fails the request
      return;
    }
    tasks.add(task);
    selector.wakeup();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    selector.wakeup();
    if (Thread.currentThread() != io) {
      try {
        io.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  // ---- the I/O thread ----

  private void run() {
    try {
      while (!closed) {
        selector.select(nextWaitMillis());
        Runnable task;
        while ((task = tasks.poll()) != null) {
          task.run(); // each guards its own request: startSafely, Http1Exchange.abort
        }
        for (SelectionKey key : selector.selectedKeys()) {
          Http1Connection c = (Http1Connection) key.attachment();
          if (key.isValid()) {
            try {
              c.ready(key);
            } catch (Throwable t) { // an Error too: it fails this connection's request only
              c.crashed(t);
            }
          }
        }
        selector.selectedKeys().clear();
        expireConnects();
      }
    } catch (Throwable e) { // the selector itself failed: every request fails, none hangs
      closed = true;
    } finally {
      shutdown();
    }
  }

  /** How long the I/O thread may wait for events: until the first connect deadline, at most 1 s. */
  private long nextWaitMillis() {
    long wait = 1000;
    long now = System.nanoTime();
    for (Http1Connection c : connecting) {
      wait = Math.min(wait, Math.max(1, (c.connectDeadline - now) / 1_000_000 + 1));
    }
    return wait;
  }

  /** Fails the requests whose new connection has not opened by its deadline. */
  private void expireConnects() {
    if (connecting.isEmpty()) {
      return;
    }
    long now = System.nanoTime();
    for (Iterator<Http1Connection> it = connecting.iterator(); it.hasNext(); ) {
      Http1Connection c = it.next();
      if (c.ch.isConnected() || !c.ch.isOpen() || c.ex == null) {
        it.remove();
      } else if (now - c.connectDeadline >= 0) {
        it.remove();
        Http1Exchange x = c.ex;
        c.fail(
            new SocketTimeoutException(
                x.where
                    + ": cannot connect to "
                    + x.hostPort
                    + " within "
                    + x.connectTimeoutNanos / 1_000_000
                    + " ms"));
      }
    }
  }

  private void shutdown() {
    Runnable task;
    while ((task = tasks.poll()) != null) {
      task.run();
    }
    for (SelectionKey key : selector.keys()) {
      ((Http1Connection) key.attachment()).fail(new IOException("the HTTP client was closed"));
    }
    pool.clear();
    try {
      selector.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  /** {@link #start}, failing the request on any {@link Throwable} instead of the I/O thread. */
  private void startSafely(Http1Exchange ex) {
    ex.crashSafe(() -> start(ex));
  }

  /** Sends {@code ex} on an idle connection to its host, else on a new one. */
  void start(Http1Exchange ex) {
    if (closed) {
      ex.fail(new IOException(ex.where + ": the HTTP client was closed"));
      return;
    }
    if (ex.future.isDone()) {
      ex.release();
      return; // cancelled before it started
    }
    Http1Connection c = pool.take(ex.hostPort);
    if (c != null) {
      c.begin(ex, true);
      return;
    }
    try {
      SocketChannel ch = SocketChannel.open();
      ch.configureBlocking(false);
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      SSLEngine engine = ex.tls ? engine(ex) : null;
      try {
        c = new Http1Connection(this, ch, ex.hostPort, engine);
      } catch (IOException | RuntimeException e) {
        if (engine != null) {
          tls.release(engine);
        }
        ch.close();
        throw e;
      }
      synchronized (this) {
        connectionsOpened++;
      }
      InetSocketAddress address = new InetSocketAddress(ex.url.getHost(), ex.port);
      if (address.isUnresolved()) {
        ch.close();
        ex.fail(new IOException(ex.where + ": cannot resolve host " + ex.url.getHost()));
        return;
      }
      boolean connected = ch.connect(address);
      c.key = ch.register(selector, connected ? 0 : SelectionKey.OP_CONNECT, c);
      if (!connected && ex.connectTimeoutNanos > 0) {
        c.connectDeadline = System.nanoTime() + ex.connectTimeoutNanos;
        connecting.add(c);
      }
      c.begin(ex, false);
    } catch (IOException e) {
      if (c != null) {
        c.closeChannel();
      }
      ex.fail(new IOException(ex.where + ": cannot connect to " + ex.hostPort + ": " + e, e));
    } catch (RuntimeException e) {
      if (c != null) {
        c.closeChannel();
      }
      ex.fail(new StoreException(ex.where + ": " + e.getMessage(), e));
    }
  }

  /** A client-side TLS engine for {@code ex}'s host, checking its certificate names that host. */
  private SSLEngine engine(Http1Exchange ex) {
    if (tls == null) {
      tls = tlsSource.get();
    }
    String host = ex.url.getHost();
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1); // an IPv6 literal
    }
    return tls.engine(host, ex.port);
  }

  /** Keeps {@code c}, whose reply is complete, in the keep-alive pool (or closes it). */
  void park(Http1Connection c) {
    pool.park(c, closed);
  }

  /** The TLS engines of this client's https connections (made at the first one). */
  TlsEngines engines() {
    return tls;
  }
}
