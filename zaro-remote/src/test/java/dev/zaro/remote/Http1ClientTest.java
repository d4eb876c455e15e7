package dev.zaro.remote;

import static dev.zaro.arrow.store.LoopbackHttpServer.head;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.store.LoopbackHttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Http1Client} against a loopback server written on plain sockets in this test, so that each
 * reply can be framed by hand: Content-Length, chunked (split across writes), close-delimited, cut
 * off, and with bytes past the body. {@link Http1ClientTlsTest} runs every test here over TLS.
 */
class Http1ClientTest {
  private static final byte[] DATA = data(300_000);

  BufferAllocator allocator;
  Http1Client client;
  RawServer server;

  @BeforeEach
  void setUp() throws IOException {
    allocator = new RootAllocator();
    client = newClient();
    server = new RawServer(serverTls());
  }

  /** The client under test (plain http here; {@link Http1ClientTlsTest} trusts its server). */
  Http1Client newClient() {
    return new Http1Client();
  }

  /** The server's TLS context, or null for plain http. */
  SSLContext serverTls() {
    return null;
  }

  @AfterEach
  void tearDown() throws Exception {
    client.close();
    server.close();
    allocator.close(); // a leaked body fails the test here
  }

  private static byte[] data(int n) {
    byte[] b = new byte[n];
    new Random(7).nextBytes(b);
    return b;
  }

  CompletableFuture<Http1Client.Response> get(String path) {
    return client.send("GET", server.url(path), Map.of(), allocator, "key '" + path + "'");
  }

  static byte[] bytes(ArrowBuf buf) {
    byte[] out = new byte[(int) buf.writerIndex()];
    buf.getBytes(0, out);
    return out;
  }

  @Test
  void contentLengthBodiesReuseOneConnection() throws Exception {
    server.reply =
        (path, out) -> {
          out.write(head("200 OK", "Content-Length: " + DATA.length));
          out.write(DATA, 0, 1000);
          out.flush();
          out.write(DATA, 1000, DATA.length - 1000);
          return true;
        };
    for (int i = 0; i < 5; i++) {
      Http1Client.Response r = get("a/" + i).get(10, TimeUnit.SECONDS);
      try (ArrowBuf body = r.body()) {
        assertEquals(200, r.status());
        assertEquals(String.valueOf(DATA.length), r.header("Content-Length").orElseThrow());
        assertArrayEquals(DATA, bytes(body));
      }
    }
    assertEquals(1, server.connections.get());
    assertEquals(1, client.connectionsOpened());
    assertEquals(List.of("/a/0", "/a/1", "/a/2", "/a/3", "/a/4"), server.paths());
  }

  @Test
  void chunkedBodyArrivesWhole() throws Exception {
    server.reply =
        (path, out) -> {
          out.write(head("206 Partial Content", "Transfer-Encoding: chunked"));
          int at = 0;
          int[] sizes = {1, 17, 4096, 65536 + 3, 100_000};
          for (int n : sizes) {
            out.write(
                (Integer.toHexString(n) + ";ext=1\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(DATA, at, n);
            out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            at += n;
          }
          out.write("0\r\nX-Trailer: 1\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
          return true;
        };
    int total = 1 + 17 + 4096 + 65536 + 3 + 100_000;
    for (int i = 0; i < 2; i++) {
      Http1Client.Response r = get("c").get(10, TimeUnit.SECONDS);
      try (ArrowBuf body = r.body()) {
        assertEquals(206, r.status());
        assertArrayEquals(Arrays.copyOf(DATA, total), bytes(body));
      }
    }
    assertEquals(1, server.connections.get()); // the chunked reply kept the connection
  }

  @Test
  void closeDelimitedBody() throws Exception {
    server.reply =
        (path, out) -> {
          out.write(head("200 OK", "Connection: close"));
          out.write(DATA);
          return false;
        };
    Http1Client.Response r = get("whole").get(10, TimeUnit.SECONDS);
    try (ArrowBuf body = r.body()) {
      assertArrayEquals(DATA, bytes(body));
    }
  }

  @Test
  void connectionClosedMidBodyFailsNamingTheKey() {
    server.reply =
        (path, out) -> {
          out.write(head("200 OK", "Content-Length: " + DATA.length));
          out.write(DATA, 0, 5000);
          return false; // and close
        };
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> get("cut/off").get(10, TimeUnit.SECONDS));
    IOException io = assertInstanceOf(IOException.class, e.getCause());
    assertTrue(io.getMessage().contains("key 'cut/off'"), io.getMessage());
    assertTrue(io.getMessage().contains("5000 of " + DATA.length), io.getMessage());
  }

  @Test
  void chunkedBodyCutOffFailsNamingTheKey() {
    server.reply =
        (path, out) -> {
          out.write(head("200 OK", "Transfer-Encoding: chunked"));
          out.write("10\r\n0123".getBytes(StandardCharsets.ISO_8859_1));
          return false;
        };
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> get("chunky").get(10, TimeUnit.SECONDS));
    assertInstanceOf(IOException.class, e.getCause());
    assertTrue(e.getCause().getMessage().contains("key 'chunky'"), e.getCause().getMessage());
  }

  @Test
  void closedBeforeAnyReplyFails() {
    server.reply = (path, out) -> false;
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> get("nothing").get(10, TimeUnit.SECONDS));
    assertInstanceOf(IOException.class, e.getCause());
    assertTrue(e.getCause().getMessage().contains("key 'nothing'"), e.getCause().getMessage());
  }

  @Test
  void bytesPastTheBodyNeverReachTheNextReply() throws Exception {
    server.reply =
        (path, out) -> {
          if (path.endsWith("first")) {
            out.write(head("200 OK", "Content-Length: 3"));
            out.write(
                "abcHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstray"
                    .getBytes(StandardCharsets.ISO_8859_1));
          } else {
            out.write(head("200 OK", "Content-Length: 2"));
            out.write("ok".getBytes(StandardCharsets.ISO_8859_1));
          }
          return true;
        };
    for (String path : List.of("first", "second")) {
      Http1Client.Response r = get(path).get(10, TimeUnit.SECONDS);
      try (ArrowBuf body = r.body()) {
        assertEquals(
            path.equals("first") ? "abc" : "ok",
            new String(bytes(body), StandardCharsets.ISO_8859_1));
      }
    }
    // the connection with stray bytes was not reused
    assertEquals(2, server.connections.get());
  }

  @Test
  void badChunkSizeIsAnError() {
    server.reply =
        (path, out) -> {
          out.write(head("200 OK", "Transfer-Encoding: chunked"));
          out.write("zz\r\n".getBytes(StandardCharsets.ISO_8859_1));
          return true;
        };
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> get("bad").get(10, TimeUnit.SECONDS));
    StoreException s = assertInstanceOf(StoreException.class, e.getCause());
    assertTrue(s.getMessage().contains("bad chunk size 'zz'"), s.getMessage());
  }

  @Test
  void errorStatusHasNoBodyAndKeepsTheConnection() throws Exception {
    server.reply =
        (path, out) -> {
          if (path.endsWith("missing")) {
            out.write(head("404 Not Found", "Content-Length: 9"));
            out.write("not found".getBytes(StandardCharsets.ISO_8859_1));
          } else {
            out.write(head("200 OK", "Content-Length: 4"));
            out.write("here".getBytes(StandardCharsets.ISO_8859_1));
          }
          return true;
        };
    Http1Client.Response missing = get("missing").get(10, TimeUnit.SECONDS);
    assertEquals(404, missing.status());
    assertNull(missing.body());
    Http1Client.Response r = get("here").get(10, TimeUnit.SECONDS);
    try (ArrowBuf body = r.body()) {
      assertEquals("here", new String(bytes(body), StandardCharsets.ISO_8859_1));
    }
    assertEquals(1, server.connections.get());
  }

  @Test
  void headHasNoBody() throws Exception {
    server.reply =
        (path, out) -> {
          out.write(head("200 OK", "Content-Length: 12345"));
          return true;
        };
    Http1Client.Response r =
        client
            .send("HEAD", server.url("h"), Map.of(), allocator, "key 'h'")
            .get(10, TimeUnit.SECONDS);
    assertEquals(200, r.status());
    assertNull(r.body());
    assertEquals("12345", r.header("content-length").orElseThrow());
  }

  @Test
  void staleKeepAliveConnectionIsReplaced() throws Exception {
    // the server closes every connection right after its reply, without saying so
    server.reply =
        (path, out) -> {
          out.write(head("200 OK", "Content-Length: 2"));
          out.write("ok".getBytes(StandardCharsets.ISO_8859_1));
          return false;
        };
    for (int i = 0; i < 3; i++) {
      Http1Client.Response r = get("s" + i).get(10, TimeUnit.SECONDS);
      try (ArrowBuf body = r.body()) {
        assertEquals("ok", new String(bytes(body), StandardCharsets.ISO_8859_1));
      }
    }
    assertEquals(3, server.connections.get());
  }

  @Test
  void cancellingMidBodyFreesTheBody() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    server.reply =
        (path, out) -> {
          out.write(head("200 OK", "Content-Length: " + DATA.length));
          out.write(DATA, 0, 1000);
          out.flush();
          started.countDown();
          finish.await(10, TimeUnit.SECONDS);
          return false;
        };
    CompletableFuture<Http1Client.Response> f = get("slow");
    assertTrue(started.await(10, TimeUnit.SECONDS));
    while (allocator.getAllocatedMemory() == 0) { // the headers have not been read yet
      Thread.onSpinWait();
    }
    f.cancel(true);
    while (allocator.getAllocatedMemory() != 0) { // the I/O thread frees it
      Thread.onSpinWait();
    }
    finish.countDown();
  }

  @Test
  void manyRequestsAtOnce() throws Exception {
    server.reply =
        (path, out) -> {
          int n = Integer.parseInt(path.substring(path.lastIndexOf('/') + 1));
          out.write(head("200 OK", "Content-Length: " + n));
          out.write(DATA, 0, n);
          return true;
        };
    List<CompletableFuture<Http1Client.Response>> all = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      all.add(get("n/" + (i * 4099 % DATA.length)));
    }
    for (int i = 0; i < all.size(); i++) {
      Http1Client.Response r = all.get(i).get(30, TimeUnit.SECONDS);
      try (ArrowBuf body = r.body()) {
        assertArrayEquals(Arrays.copyOf(DATA, i * 4099 % DATA.length), bytes(body));
      }
    }
    assertTrue(client.connectionsOpened() <= 64);
  }

  /**
   * A connection that does not open within the connect timeout fails its request with an {@link
   * IOException} naming the key (which HttpStore retries), and frees nothing it did not allocate: a
   * loopback listener that never accepts, its accept queue filled, leaves the connect pending.
   */
  @Test
  void connectTimeoutFailsTheRequestNamingTheKey() throws Exception {
    try (ServerSocket full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      List<SocketChannel> fill = new ArrayList<>();
      try {
        CompletableFuture<Http1Client.Response> f = null;
        // connections beyond the accept queue stay pending (their SYNs are dropped); fill it until
        // one does not open at once, then ask through the client
        for (int i = 0; i < 16; i++) {
          SocketChannel ch = SocketChannel.open();
          ch.configureBlocking(false);
          fill.add(ch);
          ch.connect(full.getLocalSocketAddress());
          Thread.sleep(50); // lets the handshake finish when the queue has room
          if (!ch.finishConnect()) {
            f =
                client.send(
                    "GET",
                    URI.create("http://127.0.0.1:" + full.getLocalPort() + "/k"),
                    Map.of(),
                    allocator,
                    "key 'k'",
                    null,
                    Duration.ofMillis(200),
                    null);
            break;
          }
        }
        Assumptions.assumeTrue(f != null, "this system's loopback accepted every connection");
        CompletableFuture<Http1Client.Response> request = f;
        ExecutionException e =
            assertThrows(ExecutionException.class, () -> request.get(30, TimeUnit.SECONDS));
        assertInstanceOf(IOException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("key 'k'"), e.getCause().getMessage());
        assertTrue(e.getCause().getMessage().contains("cannot connect"), e.getCause().getMessage());
      } finally {
        for (SocketChannel ch : fill) {
          ch.close();
        }
      }
    }
  }

  /** Answers each request by {@link #reply}; a thread per connection. */
  static final class RawServer extends LoopbackHttpServer {
    interface Reply {
      /** Writes the reply to {@code path}; false closes the connection after it. */
      boolean write(String path, OutputStream out) throws Exception;
    }

    volatile Reply reply;
    private final List<String> paths = new ArrayList<>();

    RawServer(SSLContext tls) throws IOException {
      super("raw-server", tls);
    }

    synchronized List<String> paths() {
      return List.copyOf(paths);
    }

    @Override
    protected boolean answer(List<String> head, OutputStream out) throws Exception {
      String path = path(head);
      synchronized (this) {
        paths.add(path);
      }
      return reply.write(path, out);
    }
  }
}
