package dev.zaro.remote;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.remote.spi.BodyBuffer;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
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
 * <p>Ownership: a {@link Response}'s body passes to whoever completes the future's chain; if the
 * future was cancelled before the reply completed, the client frees the body. {@link #close} stops
 * the I/O thread and closes every connection, failing requests still in flight.
 */
final class Http1Client implements AutoCloseable {
  /** The most idle connections kept per host. */
  static final int MAX_IDLE_PER_HOST = 256;

  private static final int MAX_HEADER_BYTES = 64 * 1024;

  /** The scratch buffer's size: also every TLS record's plaintext fits (at most 16 KiB + 256). */
  private static final int SCRATCH_BYTES = 64 * 1024;

  private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);

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
  private final Map<String, ArrayDeque<Conn>> idle = new HashMap<>(); // I/O thread only
  private final ByteBuffer scratch = ByteBuffer.allocateDirect(SCRATCH_BYTES); // I/O thread only
  private final Supplier<TlsEngines> tlsSource;
  private TlsEngines tls; // I/O thread only: made at the first https connection
  private final List<Conn> connecting = new ArrayList<>(); // I/O thread only: with a deadline
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
    Exchange ex = new Exchange(method, url, headers, allocator, where, future, progress, limit);
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
          task.run(); // each guards its own request: startSafely, Exchange.abort
        }
        for (SelectionKey key : selector.selectedKeys()) {
          Conn c = (Conn) key.attachment();
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
    for (Conn c : connecting) {
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
    for (Iterator<Conn> it = connecting.iterator(); it.hasNext(); ) {
      Conn c = it.next();
      if (c.ch.isConnected() || !c.ch.isOpen() || c.ex == null) {
        it.remove();
      } else if (now - c.connectDeadline >= 0) {
        it.remove();
        Exchange x = c.ex;
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
      ((Conn) key.attachment()).fail(new IOException("the HTTP client was closed"));
    }
    idle.clear();
    try {
      selector.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  /** {@link #start}, failing the request on any {@link Throwable} instead of the I/O thread. */
  private void startSafely(Exchange ex) {
    ex.crashSafe(() -> start(ex));
  }

  private void start(Exchange ex) {
    if (closed) {
      ex.fail(new IOException(ex.where + ": the HTTP client was closed"));
      return;
    }
    if (ex.future.isDone()) {
      ex.release();
      return; // cancelled before it started
    }
    ArrayDeque<Conn> free = idle.get(ex.hostPort);
    Conn c;
    while (free != null && (c = free.pollLast()) != null) {
      if (c.quiet()) {
        c.begin(ex, true);
        return;
      }
      c.closeChannel(); // closed by the server, or it sent bytes nobody asked for
    }
    c = null;
    try {
      SocketChannel ch = SocketChannel.open();
      ch.configureBlocking(false);
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      SSLEngine engine = ex.tls ? engine(ex) : null;
      try {
        c = new Conn(ch, ex.hostPort, engine);
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
  private SSLEngine engine(Exchange ex) {
    if (tls == null) {
      tls = tlsSource.get();
    }
    String host = ex.url.getHost();
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1); // an IPv6 literal
    }
    return tls.engine(host, ex.port);
  }

  private void parkIdle(Conn c) {
    ArrayDeque<Conn> free = idle.computeIfAbsent(c.hostPort, h -> new ArrayDeque<>());
    if (closed || free.size() >= MAX_IDLE_PER_HOST) {
      c.closeChannel();
      return;
    }
    c.key.interestOps(SelectionKey.OP_READ); // an idle connection that turns readable was closed
    free.addLast(c);
  }

  private void dropIdle(Conn c) {
    ArrayDeque<Conn> free = idle.get(c.hostPort);
    if (free != null) {
      free.remove(c);
    }
    c.closeChannel();
  }

  /** One request and its reply; the state lives on the I/O thread once started. */
  private static final class Exchange {
    final String method;
    final URI url;
    final boolean tls;
    final int port;
    final String hostPort; // scheme, host and port: connections are reused within one
    final BufferAllocator allocator;
    final String where;
    final CompletableFuture<Response> future;
    final Progress progress; // or null
    final ReplyLimit limit; // or null: no bound, no activity clock
    final ByteBuffer request;
    Conn conn;
    long connectTimeoutNanos; // 0: none of its own
    boolean replaced; // a stale keep-alive connection was already replaced once
    boolean replyStarted; // a byte of the reply arrived
    // the reply
    byte[] head = new byte[1024];
    int headLength;
    int status;
    Map<String, List<String>> headers;
    boolean keepAlive;
    long bodyLength = -1; // Content-Length, or -1
    boolean chunked;
    boolean wanted; // the body goes to the caller (else it is read and dropped)
    ArrowBuf body; // a Content-Length body, read into directly
    BodyBuffer appender; // a chunked or close-delimited body
    byte[] errorBytes; // the start of an error reply's body (status >= 400), or null
    int errorLength;
    long received; // body bytes so far
    ChunkedBody chunks; // the chunked decoder's state

    Exchange(
        String method,
        URI url,
        Map<String, String> extra,
        BufferAllocator allocator,
        String where,
        CompletableFuture<Response> future,
        Progress progress,
        ReplyLimit limit) {
      this.method = method;
      this.progress = progress;
      this.limit = limit;
      this.url = url;
      this.tls = "https".equalsIgnoreCase(url.getScheme());
      this.port = url.getPort() >= 0 ? url.getPort() : tls ? 443 : 80;
      this.hostPort =
          (tls ? "https://" : "http://") + url.getHost().toLowerCase(Locale.ROOT) + ":" + port;
      this.allocator = allocator;
      this.where = where;
      this.future = future;
      StringBuilder sb = new StringBuilder(256);
      String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
      sb.append(method).append(' ').append(path);
      if (url.getRawQuery() != null) {
        sb.append('?').append(url.getRawQuery());
      }
      sb.append(" HTTP/1.1\r\nHost: ").append(url.getRawAuthority()).append("\r\n");
      sb.append("User-Agent: zaro\r\nAccept-Encoding: identity\r\n");
      extra.forEach((k, v) -> sb.append(k).append(": ").append(v).append("\r\n"));
      sb.append("\r\n");
      this.request = ByteBuffer.wrap(sb.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    /** Bytes of the reply arrived in {@code in}: parses and stores them. */
    void feed(ByteBuffer in) throws IOException {
      replyStarted = true;
      while (in.hasRemaining()) {
        if (headers == null) {
          readHead(in);
        } else if (chunked) {
          chunks.feed(in);
        } else {
          long want = bodyLength >= 0 ? bodyLength - received : in.remaining();
          int n = (int) Math.min(want, in.remaining());
          ByteBuffer part = in.slice();
          part.limit(n);
          take(part);
          in.position(in.position() + n);
        }
        if (complete()) {
          if (in.hasRemaining()) {
            keepAlive = false; // bytes nobody asked for: the connection is out of step, drop it
            in.position(in.limit());
          }
          return;
        }
      }
    }

    /** Body bytes of the reply, in order. */
    void take(ByteBuffer part) {
      int n = part.remaining();
      if (wanted) {
        if (body != null) {
          body.setBytes(received, part);
        } else {
          if (limit != null && received + n > limit.maxBody(status)) {
            throw limit.refused(where, status, received + n, false);
          }
          appender.append(part);
        }
      } else if (errorBytes != null && errorLength < errorBytes.length) {
        int keep = Math.min(n, errorBytes.length - errorLength);
        part.duplicate().get(errorBytes, errorLength, keep);
        errorLength += keep;
      }
      received += n;
      if (n > 0) {
        landed(received - n, n);
      }
    }

    /** {@code n} body bytes were written straight into {@link #direct()}'s buffer. */
    void wroteDirect(int n) {
      replyStarted = true;
      received += n;
      landed(received - n, n);
    }

    /** Tells {@link #progress} of body bytes written straight into a Content-Length body. */
    void landed(long offset, long length) {
      if (progress != null && body != null) {
        progress.arrived(status, body, offset, length);
      }
    }

    boolean complete() {
      if (headers == null) {
        return false;
      }
      if (chunked) {
        return chunks.done();
      }
      return bodyLength >= 0 && received == bodyLength;
    }

    private void readHead(ByteBuffer in) {
      while (in.hasRemaining()) {
        byte b = in.get();
        if (headLength == head.length) {
          if (head.length >= MAX_HEADER_BYTES) {
            throw new StoreException(
                where + ": the reply's headers are longer than " + MAX_HEADER_BYTES + " bytes");
          }
          head = Arrays.copyOf(head, head.length * 2);
        }
        head[headLength++] = b;
        if (b == '\n'
            && headLength >= 4
            && head[headLength - 2] == '\r'
            && head[headLength - 3] == '\n'
            && head[headLength - 4] == '\r') {
          parseHead();
          return;
        }
      }
    }

    private void parseHead() {
      ReplyHead reply = ReplyHead.parse(head, headLength - 4, where);
      if (reply.interim()) {
        headLength = 0; // an interim reply (100 Continue): the real one follows
        return;
      }
      int code = reply.status();
      status = code;
      headers = reply.headers();
      head = null;
      keepAlive = reply.keepAlive();
      boolean noBody = method.equals("HEAD") || code == 204 || code == 304;
      wanted = !noBody && (code == 200 || code == 206);
      if (!noBody && keepsErrorText(code)) {
        errorBytes = new byte[ERROR_TEXT_BYTES];
      }
      if (noBody) {
        bodyLength = 0;
        return;
      }
      chunked = reply.chunked();
      long length = chunked ? -1 : reply.contentLength(where);
      long max = limit == null || !wanted ? Long.MAX_VALUE : limit.maxBody(code);
      if (length > max) { // refused before a byte of it is allocated
        throw limit.refused(where, code, length, true);
      }
      if (length >= 0) {
        bodyLength = length;
        if (wanted) {
          body = allocator.buffer(bodyLength);
        }
        return;
      }
      if (chunked) {
        chunks = new ChunkedBody(where, this::take);
      } else {
        keepAlive = false; // the body ends when the server closes the connection
      }
      if (wanted) { // grows as its bytes arrive, up to the limit
        appender = new BodyBuffer(allocator, -1, where, max);
      }
    }

    /** The destination for a direct socket read of a Content-Length body, or null. */
    ByteBuffer direct() {
      if (body == null || headers == null || chunked || received >= bodyLength) {
        return null;
      }
      return body.nioBuffer(received, (int) Math.min(Integer.MAX_VALUE, bodyLength - received));
    }

    /** The server closed the connection: the end of a close-delimited body, or a failure. */
    void endOfStream() throws IOException {
      if (headers != null && !chunked && bodyLength < 0) {
        bodyLength = received;
        return;
      }
      String what =
          headers == null
              ? "before the reply's headers were complete"
              : chunked
                  ? "in the middle of a chunked body (" + received + " bytes so far)"
                  : "after " + received + " of " + bodyLength + " body bytes";
      throw new EOFException(where + ": the server closed the connection " + what);
    }

    /** The reply is complete: hands it over. */
    void finish() {
      ArrowBuf out = null;
      if (wanted) {
        if (body != null) {
          out = body;
          body = null;
          out.writerIndex(bodyLength);
        } else {
          out = appender.take();
          appender = null;
        }
      }
      String errorText =
          errorBytes == null
              ? null
              : new String(errorBytes, 0, errorLength, StandardCharsets.UTF_8);
      Response r = new Response(status, headers, out, errorText);
      if (!future.complete(r) && out != null) {
        out.close(); // cancelled meanwhile: nobody will take it
      }
    }

    /** Frees what the reply holds so far. */
    void release() {
      if (body != null) {
        body.close();
        body = null;
      }
      if (appender != null) {
        appender.close();
        appender = null;
      }
    }

    void fail(Throwable e) {
      release();
      future.completeExceptionally(e);
    }

    /**
     * Runs {@code step} of this exchange on the I/O thread; if it throws anything (an {@link Error}
     * too), fails this request naming it, and the loop goes on.
     */
    void crashSafe(Runnable step) {
      try {
        step.run();
      } catch (Throwable t) {
        if (conn != null && conn.ex == this) {
          conn.crashed(t);
        } else {
          crashed(t, hostPort);
        }
      }
    }

    /** Handling this exchange threw {@code t}: fails it with a message naming the request. */
    void crashed(Throwable t, String host) {
      try {
        release();
      } catch (Throwable ignored) {
        // what it held is lost with the failure
      }
      future.completeExceptionally(
          t instanceof StoreException
              ? t
              : new StoreException(where + ": handling the reply of " + host + " failed: " + t, t));
    }

    /** Cancelled: drops the connection (its reply would be out of step) and the body. */
    void abort() {
      if (conn != null && conn.ex == this) {
        conn.ex = null;
        conn.closeChannel();
      }
      release();
    }
  }

  /** One connection; at most one exchange at a time. */
  private final class Conn {
    final SocketChannel ch;
    final String hostPort;
    final Tls tls; // null for plain http
    SelectionKey key;
    Exchange ex;
    boolean reused;
    long connectDeadline; // System.nanoTime() by which a pending connect must finish

    Conn(SocketChannel ch, String hostPort, SSLEngine engine) throws SSLException {
      this.ch = ch;
      this.hostPort = hostPort;
      this.tls = engine == null ? null : new Tls(engine);
    }

    /** An idle connection with nothing to read (not closed, no stray bytes): fit for reuse. */
    boolean quiet() {
      try {
        if (tls != null) {
          return tls.quiet();
        }
        scratch.clear();
        return ch.read(scratch) == 0;
      } catch (IOException | RuntimeException e) {
        return false;
      }
    }

    void begin(Exchange e, boolean reusing) {
      ex = e;
      e.conn = this;
      reused = reusing;
      e.request.rewind();
      if (ch.isConnected()) {
        write();
      }
    }

    void ready(SelectionKey k) {
      if (ex == null) { // idle: closed by the server, stray bytes, or TLS records with no data
        if (!quiet()) {
          dropIdle(this);
        }
        return;
      }
      if (ex.limit != null) {
        ex.limit.touch(); // the no-progress clock of the request policy
      }
      try {
        if (k.isConnectable()) {
          ch.finishConnect();
          write();
          return;
        }
        if (k.isWritable() || (tls != null && !tls.shaken)) {
          write();
          return;
        }
        if (k.isReadable()) {
          if (tls != null) {
            tls.read();
          } else {
            read();
          }
        }
      } catch (SSLException | RuntimeException e) {
        failWith(e);
      } catch (IOException e) {
        broken(e);
      }
    }

    /**
     * Closes the connection and fails its exchange with what {@code e} means for it: a TLS failure
     * ({@link #tlsFailure}) or a runtime one ({@link #unexpected}). Never retried here.
     */
    private void failWith(Exception e) {
      Exchange x = ex;
      ex = null;
      closeChannel();
      if (x != null) {
        x.fail(
            e instanceof SSLException tlsError
                ? tlsFailure(x, tlsError)
                : unexpected(x, (RuntimeException) e));
      }
    }

    /**
     * A runtime failure as the request's error: a {@link StoreException} (a malformed reply) as it
     * is, anything else (the TLS engine's, such as a trust store with no certificate in it) as a
     * {@link StoreException} naming the request and the connection's host.
     */
    private RuntimeException unexpected(Exchange x, RuntimeException e) {
      if (e instanceof StoreException) {
        return e;
      }
      return new StoreException(
          x.where + ": " + (tls != null ? "TLS with " : "HTTP with ") + hostPort + " failed: " + e,
          e);
    }

    /** Sends what is left of the request (over TLS, after the handshake); then waits to read. */
    private void write() {
      try {
        if (tls != null) {
          if (!tls.shaken && !tls.handshake()) {
            return; // waiting for the socket; the handshake chose what to wait for
          }
          tls.send(ex.request);
          key.interestOps(
              ex.request.hasRemaining() || tls.out.hasRemaining()
                  ? SelectionKey.OP_WRITE
                  : SelectionKey.OP_READ);
          return;
        }
        ch.write(ex.request);
      } catch (SSLException | RuntimeException e) {
        failWith(e);
        return;
      } catch (IOException e) {
        broken(e);
        return;
      }
      key.interestOps(ex.request.hasRemaining() ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
    }

    private void read() throws IOException {
      Exchange x = ex;
      while (ex == x) {
        ByteBuffer direct = x.direct();
        int n;
        if (direct != null) {
          n = ch.read(direct);
          if (n > 0) {
            x.wroteDirect(n);
          }
        } else {
          scratch.clear();
          n = ch.read(scratch);
          if (n > 0) {
            scratch.flip();
            x.feed(scratch);
          }
        }
        if (n < 0) {
          ended(x);
          return;
        }
        if (settled(x) || n == 0) {
          return;
        }
      }
    }

    /** The server closed the connection: ends a close-delimited reply, else fails it (throws). */
    private void ended(Exchange x) throws IOException {
      x.endOfStream(); // throws unless the body was close-delimited
      ex = null;
      closeChannel();
      x.finish();
    }

    /** If {@code x}'s reply is complete: parks or closes the connection and hands it over. */
    private boolean settled(Exchange x) {
      if (!x.complete()) {
        return false;
      }
      ex = null;
      if (x.keepAlive) {
        parkIdle(this);
      } else {
        closeChannel();
      }
      x.finish();
      return true;
    }

    /** The connection broke: replace a stale keep-alive one once, else fail the request. */
    private void broken(IOException e) {
      Exchange x = ex;
      ex = null;
      closeChannel();
      if (x == null) {
        return;
      }
      if (reused && !x.replyStarted && !x.replaced) {
        x.replaced = true;
        x.release();
        x.conn = null;
        start(x);
        return;
      }
      boolean named = e.getMessage() != null && e.getMessage().startsWith(x.where);
      x.fail(named ? e : new IOException(x.where + ": " + e, e));
    }

    /**
     * What a TLS failure fails the request with: a refused handshake (the certificate, the
     * protocols) is a {@link StoreException}, which no retry would change; anything else (a bad
     * record on an established connection) an {@link IOException}, retried as a broken connection.
     */
    private Throwable tlsFailure(Exchange x, SSLException e) {
      if (e instanceof SSLHandshakeException) {
        return new StoreException(
            x.where + ": the TLS handshake with " + hostPort + " failed: " + reasons(e), e);
      }
      return new IOException(x.where + ": TLS failure on " + hostPort + ": " + reasons(e), e);
    }

    /**
     * An exception's message and its causes' where they say more (BoringSSL's engine says "General
     * OpenSslEngine problem" and leaves the trust manager's reason to its cause).
     */
    private static String reasons(Throwable e) {
      StringBuilder text = new StringBuilder(String.valueOf(e.getMessage()));
      for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
        String m = c.getMessage();
        if (m != null && !text.toString().contains(m)) {
          text.append(": ").append(m);
        }
      }
      return text.toString();
    }

    void fail(IOException e) {
      Exchange x = ex;
      ex = null;
      closeChannel();
      if (x != null) {
        x.fail(e);
      }
    }

    /**
     * Handling this connection threw {@code t} (an {@link Error} such as an {@link
     * OutOfMemoryError} too): closes it and fails its request, if any, naming it; the I/O thread
     * goes on with the other connections.
     */
    void crashed(Throwable t) {
      Exchange x = ex;
      ex = null;
      try {
        dropIdle(this);
      } catch (Throwable ignored) {
        // closing anyway
      }
      if (x != null) {
        x.crashed(t, hostPort);
      }
    }

    void closeChannel() {
      if (key != null) {
        key.cancel();
      }
      if (tls != null) {
        tls.closeNotify();
        tls.release();
      }
      try {
        ch.close();
      } catch (IOException e) {
        // already gone
      }
    }

    /**
     * The TLS layer of a connection: records read from the socket wait in {@link #in} until the
     * engine decrypts them (straight into a Content-Length body where the record fits in what is
     * left of it, else into the client's scratch buffer); records to send wait in {@link #out}.
     * Both buffers stay flipped (ready to be read) between calls.
     */
    private final class Tls {
      final SSLEngine engine;
      final ByteBuffer in;
      final ByteBuffer out;
      boolean shaken; // the handshake is complete
      boolean released; // the engine was freed: the connection is closed

      Tls(SSLEngine engine) throws SSLException {
        this.engine = engine;
        engine.beginHandshake();
        int packet = engine.getSession().getPacketBufferSize();
        this.in = ByteBuffer.allocateDirect(Math.max(SCRATCH_BYTES, 2 * packet)).flip();
        this.out = ByteBuffer.allocateDirect(2 * packet).flip();
      }

      /**
       * Advances the handshake as far as the socket allows: true once it is complete, false when it
       * waits for the socket (the key then waits for what the handshake needs).
       */
      boolean handshake() throws IOException {
        while (true) {
          if (!flush()) {
            key.interestOps(SelectionKey.OP_WRITE);
            return false;
          }
          switch (engine.getHandshakeStatus()) {
            case NEED_TASK -> runTasks();
            case NEED_WRAP -> wrap(NOTHING);
            case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
              scratch.clear();
              SSLEngineResult r = engine.unwrap(in, scratch);
              boolean closed = r.getStatus() == SSLEngineResult.Status.CLOSED;
              if (!closed
                  && (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW || idle(r))) {
                int n = fill();
                if (n == 0) {
                  key.interestOps(SelectionKey.OP_READ);
                  return false;
                }
                closed = n < 0;
              }
              if (closed) {
                throw new EOFException(
                    ex.where + ": " + hostPort + " closed the connection during the TLS handshake");
              }
            }
            default -> { // NOT_HANDSHAKING, FINISHED
              shaken = true;
              return true;
            }
          }
        }
      }

      /** Encrypts as much of {@code request} as the socket takes now. */
      void send(ByteBuffer request) throws IOException {
        while (flush() && request.hasRemaining()) {
          wrap(request);
        }
      }

      /** Reads and decrypts the reply's bytes the socket has. */
      void read() throws IOException {
        Exchange x = ex;
        while (ex == x) {
          ByteBuffer direct = x.direct();
          boolean toBody = direct != null;
          SSLEngineResult r = null;
          if (toBody) {
            r = engine.unwrap(in, direct);
            if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
              r = null; // the record holds more than the body's rest: through the scratch buffer
              toBody = false;
            }
          }
          if (r == null) {
            scratch.clear();
            r = engine.unwrap(in, scratch);
          }
          switch (idle(r) ? SSLEngineResult.Status.BUFFER_UNDERFLOW : r.getStatus()) {
            case BUFFER_UNDERFLOW -> {
              int n = fill();
              if (n < 0) {
                ended(x);
                return;
              }
              if (n == 0) {
                return;
              }
            }
            case CLOSED -> { // the server's close_notify
              ended(x);
              return;
            }
            case OK -> {
              int n = r.bytesProduced();
              if (n > 0) {
                if (toBody) {
                  x.wroteDirect(n);
                } else {
                  scratch.flip();
                  x.feed(scratch);
                }
              }
              afterHandshakeMessage();
              if (settled(x)) {
                return;
              }
            }
            default ->
                throw new SSLException("a TLS record larger than " + SCRATCH_BYTES + " bytes");
          }
        }
      }

      /**
       * An idle connection: consumes records with no data (session tickets); false on any other.
       */
      boolean quiet() throws IOException {
        if (fill() < 0) {
          return false;
        }
        while (in.hasRemaining()) {
          scratch.clear();
          SSLEngineResult r = engine.unwrap(in, scratch);
          if (r.getStatus() != SSLEngineResult.Status.OK || r.bytesProduced() > 0) {
            return r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW
                && r.bytesProduced() == 0;
          }
          afterHandshakeMessage();
        }
        return true;
      }

      /** Answers what a message after the handshake asks for (a key update's reply). */
      private void afterHandshakeMessage() throws IOException {
        while (true) {
          switch (engine.getHandshakeStatus()) {
            case NEED_TASK -> runTasks();
            case NEED_WRAP -> {
              wrap(NOTHING);
              flush(); // a few bytes; any not taken now go before the next request
            }
            default -> {
              return;
            }
          }
        }
      }

      /**
       * Whether an unwrap did nothing at all (neither read nor wrote a byte) though it said OK: it
       * needs more bytes from the socket, as an underflow does (never a reason to call it again).
       */
      private boolean idle(SSLEngineResult r) {
        return r.getStatus() == SSLEngineResult.Status.OK
            && r.bytesConsumed() == 0
            && r.bytesProduced() == 0
            && r.getHandshakeStatus() != SSLEngineResult.HandshakeStatus.NEED_TASK
            && r.getHandshakeStatus() != SSLEngineResult.HandshakeStatus.NEED_WRAP;
      }

      /** Reads what the socket has into {@link #in}: the bytes read, or -1 at its end. */
      private int fill() throws IOException {
        in.compact();
        try {
          return ch.read(in);
        } finally {
          in.flip();
        }
      }

      /** Writes {@link #out}'s records: true when none is left. */
      private boolean flush() throws IOException {
        if (out.hasRemaining()) {
          ch.write(out);
        }
        return !out.hasRemaining();
      }

      private void wrap(ByteBuffer from) throws SSLException {
        out.compact();
        try {
          SSLEngineResult r = engine.wrap(from, out);
          if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
            throw new SSLException("the TLS connection is closed");
          }
        } finally {
          out.flip();
        }
      }

      private void runTasks() {
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null) {
          task.run();
        }
      }

      /** Frees the engine's state outside the heap, once. */
      void release() {
        if (!released) {
          released = true;
          Http1Client.this.tls.release(engine);
        }
      }

      /** Tells the server the connection closes (best effort: one write, never waiting). */
      void closeNotify() {
        if (!shaken || released || !ch.isOpen()) {
          return;
        }
        try {
          engine.closeOutbound();
          wrap(NOTHING);
          flush();
        } catch (IOException | RuntimeException e) {
          // closing anyway
        }
      }
    }
  }
}
