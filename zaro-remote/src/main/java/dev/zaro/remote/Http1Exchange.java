package dev.zaro.remote;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.remote.spi.BodyBuffer;
import java.io.EOFException;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * One request of {@link Http1Client} and its reply: the request's bytes, the reply's framing (its
 * head, then a {@code Content-Length}, chunked or close-delimited body) and where the body lands (a
 * buffer of the announced length read into directly, a {@link BodyBuffer} that grows, or the start
 * of an error reply's text), and the reply's handing over. Its state lives on the I/O thread once
 * started; the connection it is on is {@link #conn}.
 */
final class Http1Exchange {
  static final int MAX_HEADER_BYTES = 64 * 1024;

  final String method;
  final URI url;
  final boolean tls;
  final int port;
  final String hostPort; // scheme, host and port: connections are reused within one
  final BufferAllocator allocator;
  final String where;
  final CompletableFuture<Http1Client.Response> future;
  final Http1Client.Progress progress; // or null
  final ReplyLimit limit; // or null: no bound, no activity clock
  final ByteBuffer request;
  Http1Connection conn;
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

  Http1Exchange(
      String method,
      URI url,
      Map<String, String> extra,
      BufferAllocator allocator,
      String where,
      CompletableFuture<Http1Client.Response> future,
      Http1Client.Progress progress,
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
    if (!noBody && Http1Client.keepsErrorText(code)) {
      errorBytes = new byte[Http1Client.ERROR_TEXT_BYTES];
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
        errorBytes == null ? null : new String(errorBytes, 0, errorLength, StandardCharsets.UTF_8);
    Http1Client.Response r = new Http1Client.Response(status, headers, out, errorText);
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
