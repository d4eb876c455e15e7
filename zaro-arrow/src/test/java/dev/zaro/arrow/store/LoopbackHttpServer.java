package dev.zaro.arrow.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;

/**
 * An HTTP/1.1 server on a loopback socket for tests that shape replies byte by byte (bodies in
 * pieces, cut short, stalled, chunked by hand): a thread per connection reads each request's head
 * and hands it to {@link #answer}, whose bytes reach the client as written. Clients learn the port
 * only once the constructor has returned. Closing stops accepting and closes every connection.
 * Given a TLS context, it serves https (the bytes {@link #answer} writes go out as TLS records).
 */
public abstract class LoopbackHttpServer implements AutoCloseable {
  /** Connections accepted so far. */
  public final AtomicInteger connections = new AtomicInteger();

  private final ServerSocket socket;
  private final boolean tls;
  private final Thread acceptor;
  private final List<Socket> open = new ArrayList<>();

  /** Listens on a free loopback port; {@code name} names the server's threads. */
  protected LoopbackHttpServer(String name) throws IOException {
    this(name, null);
  }

  /** Listens on a free loopback port, over TLS from {@code tls} unless it is null. */
  protected LoopbackHttpServer(String name, SSLContext tls) throws IOException {
    this.tls = tls != null;
    socket =
        tls == null
            ? new ServerSocket(0, 128, InetAddress.getLoopbackAddress())
            : tls.getServerSocketFactory()
                .createServerSocket(0, 128, InetAddress.getLoopbackAddress());
    acceptor = new Thread(() -> accept(name), name);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /**
   * Answers one request: {@code head} holds its head's lines, the request line first. Returns false
   * to close the connection after the reply.
   */
  protected abstract boolean answer(List<String> head, OutputStream out) throws Exception;

  /** {@code http://127.0.0.1:PORT/} (or {@code https://}) followed by {@code path}. */
  public URI url(String path) {
    return URI.create(
        (tls ? "https" : "http") + "://127.0.0.1:" + socket.getLocalPort() + "/" + path);
  }

  /** The path of a request line ({@code GET /a/b HTTP/1.1} gives {@code /a/b}). */
  public static String path(List<String> head) {
    return head.get(0).split(" ", -1)[1];
  }

  /** A reply's head: the status line, then {@code fields}, then the empty line. */
  public static byte[] head(String status, String... fields) {
    StringBuilder sb = new StringBuilder("HTTP/1.1 ").append(status).append("\r\n");
    for (String f : fields) {
      sb.append(f).append("\r\n");
    }
    return sb.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  private void accept(String name) {
    while (!socket.isClosed()) {
      try {
        Socket s = socket.accept();
        s.setTcpNoDelay(true);
        connections.incrementAndGet();
        synchronized (this) {
          open.add(s);
        }
        Thread t = new Thread(() -> serve(s), name + "-conn");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket s) {
    try (s;
        InputStream in = s.getInputStream();
        OutputStream out = s.getOutputStream()) {
      for (List<String> head = readHead(in); head != null; head = readHead(in)) {
        boolean keep = answer(head, out);
        out.flush();
        if (!keep) {
          return;
        }
      }
    } catch (Exception e) {
      // the client went away, or the test cut the connection on purpose
    }
  }

  /** One request's head lines, or null at the end of the stream. */
  private static List<String> readHead(InputStream in) throws IOException {
    StringBuilder sb = new StringBuilder();
    int c;
    while ((c = in.read()) >= 0) {
      sb.append((char) c);
      if (sb.length() >= 4 && sb.substring(sb.length() - 4).equals("\r\n\r\n")) {
        return List.of(sb.substring(0, sb.length() - 4).split("\r\n", -1));
      }
    }
    return null;
  }

  @Override
  public void close() throws IOException {
    socket.close();
    synchronized (this) {
      for (Socket s : open) {
        s.close();
      }
    }
    try {
      acceptor.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
