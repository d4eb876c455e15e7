package dev.zaro.flight;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.store.LoopbackHttpServer;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP port ({@code serve --http-port}) against clients that misbehave on purpose, over raw
 * sockets on loopback: garbage bytes, a request head sent a byte at a time and never finished
 * (slowloris, many connections), a 1 MiB header, a request whose reply is never read, connections
 * opened and closed at once. Nothing here measures time: the server's client timeout is set short
 * so that its closes come soon, and the class {@link Timeout} only turns a hang (a connection the
 * server never closes) into a failure.
 */
@Timeout(180)
class HttpHostileClientTest extends AllocatorTest {
  private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
  private static final int SMALL = 12;

  /** int32 values of the big array: 16 MiB, far more than the socket buffers and Netty's mark. */
  private static final int BIG = 4 << 20;

  @TempDir Path dir;

  /** A group with {@code small} (0..11 in three chunks) and {@code big} (all fill value 7). */
  private Path store() throws IOException {
    Files.writeString(dir.resolve(".zgroup"), "{\"zarr_format\": 2}");
    Path small = Files.createDirectories(dir.resolve("small"));
    Files.writeString(small.resolve(".zarray"), zarray(SMALL, 4, 0));
    for (int c = 0; c < SMALL / 4; c++) {
      ByteBuffer b = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < 4; i++) {
        b.putInt(c * 4 + i);
      }
      Files.write(small.resolve(String.valueOf(c)), b.array());
    }
    Path big = Files.createDirectories(dir.resolve("big"));
    Files.writeString(big.resolve(".zarray"), zarray(BIG, 1 << 18, 7)); // no chunks: fill values
    return dir;
  }

  private static String zarray(int n, int chunk, int fill) {
    return "{\"zarr_format\": 2, \"shape\": ["
        + n
        + "], \"chunks\": ["
        + chunk
        + "], \"dtype\": \"<i4\", \"compressor\": null, \"fill_value\": "
        + fill
        + ", \"order\": \"C\", \"filters\": null}";
  }

  /** A server with batches of 64 KiB (so a 1 MiB write mark) and the given client timeout. */
  private ZaroFlightServer serve(Duration clientTimeout) throws IOException {
    return ZaroFlightServer.start(
        Zaro.open(store().toString()),
        ServerOptions.defaults()
            .withAddress("127.0.0.1", 0)
            .withClientTimeout(clientTimeout)
            .withLimits(new ZaroFlightProducer.FlightOptions(256L << 20, 64L << 10, 1L << 30)));
  }

  /**
   * 200 bad connections held open at once (garbage without a line end, heads stopped halfway,
   * silent connections, 1 MiB headers, heads of pipelined requests whose replies are never read)
   * plus 100 opened and closed at once: the server's threads stay those it had, a normal client
   * reads the right values meanwhile, Netty's memory stays within a few pool chunks, the log gets a
   * few dozen lines at most, and afterwards the Arrow memory is back to 0.
   */
  @Test
  @SuppressWarnings("try") // the server's close() declares InterruptedException
  void badConnectionsCostNoThreadsNoMemoryAndFewLogLines() throws Exception {
    try (LogCapture log = new LogCapture();
        ZaroFlightServer server = serve(Duration.ofSeconds(60))) {
      int port = server.startHttp(0);
      warmUp(port);
      List<String> httpThreads = threads("zaro-http");
      int allThreads = Thread.getAllStackTraces().size();
      long direct = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
      int linesBefore = log.lines();
      List<Socket> held = new ArrayList<>();
      Random random = new Random(46);
      try {
        for (int i = 0; i < 200; i++) {
          Socket s = new Socket(LOOPBACK, port);
          held.add(s);
          OutputStream out = s.getOutputStream();
          switch (i % 5) {
            case 0 -> { // garbage with no line end: the codec waits for one
              byte[] garbage = new byte[1 + random.nextInt(2048)];
              random.nextBytes(garbage);
              for (int j = 0; j < garbage.length; j++) {
                garbage[j] = (byte) (garbage[j] == '\n' || garbage[j] == '\r' ? 'x' : garbage[j]);
              }
              out.write(garbage);
            }
            case 1 ->
                out.write(ascii("GET /arrays/small HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ab"));
            case 2 -> {} // connected, silent
            case 3 -> { // pipelined JSON requests, replies never read
              for (int j = 0; j < 50; j++) {
                out.write(ascii("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
              }
            }
            default -> { // answered 431 and closed, perhaps before the client has sent it all
              try {
                out.write(hugeHeader());
              } catch (IOException closed) {
                // the server closed first
              }
            }
          }
        }
        for (int i = 0; i < 100; i++) {
          new Socket(LOOPBACK, port).close(); // open and close at once
        }
        // with every bad connection still open, a normal client is served
        assertArrayEquals(smallValues(), readSmall(port));
        assertEquals(httpThreads, threads("zaro-http"), "no HTTP thread per connection");
        assertTrue(
            Thread.getAllStackTraces().size() <= allThreads + 4,
            "threads grew with bad connections: "
                + allThreads
                + " -> "
                + Thread.getAllStackTraces().size());
        long held300 = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
        System.out.println(
            "300 bad connections: Netty direct memory "
                + direct
                + " -> "
                + held300
                + " bytes; threads "
                + allThreads
                + " -> "
                + Thread.getAllStackTraces().size()
                + "; HTTP threads "
                + httpThreads);
        assertTrue(
            held300 - direct <= 16L << 20,
            "Netty's direct memory grew from " + direct + " to " + held300 + " bytes");
      } finally {
        for (Socket s : held) {
          s.close();
        }
      }
      assertArrayEquals(smallValues(), readSmall(port));
      awaitNoArrowMemory(server);
      int lines = log.lines() - linesBefore;
      System.out.println("300 bad connections: " + lines + " log lines");
      assertTrue(lines <= 40, lines + " log lines for 300 bad connections:\n" + log.text());
      assertTrue(log.noStackTraces(), log.text());
    }
  }

  /**
   * With a short client timeout the server itself closes what misbehaving clients hold: heads sent
   * a byte at a time and never finished (many at once), garbage without a line end, silent
   * connections, and an Arrow stream whose client never reads (its memory returns to the budget). A
   * 1 MiB header gets 431 or a closed connection. Each connection here is driven until the server
   * ends it; one it never ended would hang the test until its timeout.
   */
  @Test
  @SuppressWarnings("try") // the server's close() declares InterruptedException
  void theServerClosesSlowSilentAndNonReadingClients() throws Exception {
    try (LogCapture log = new LogCapture();
        ZaroFlightServer server = serve(Duration.ofMillis(300))) {
      int port = server.startHttp(0);
      warmUp(port);
      List<String> httpThreads = threads("zaro-http");

      // Arrow streams whose replies are never read: the server's pending bytes make no progress
      List<SocketChannel> nonReading = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        SocketChannel c = SocketChannel.open();
        c.socket().setReceiveBufferSize(4096);
        c.connect(new InetSocketAddress(LOOPBACK, port));
        c.write(ByteBuffer.wrap(ascii("GET /arrays/big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")));
        nonReading.add(c);
      }
      // slowloris: 50 connections sending a head that never ends, a byte each per round
      List<SocketChannel> dripping = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        SocketChannel c = SocketChannel.open(new InetSocketAddress(LOOPBACK, port));
        c.configureBlocking(false);
        dripping.add(c);
      }
      List<SocketChannel> waiting = new ArrayList<>();
      for (int i = 0; i < 10; i++) { // garbage without a line end, and silent connections
        SocketChannel c = SocketChannel.open(new InetSocketAddress(LOOPBACK, port));
        if (i % 2 == 0) {
          c.write(ByteBuffer.wrap(ascii("\u0001\u0002garbage-without-a-line-end")));
        }
        c.configureBlocking(false);
        waiting.add(c);
      }
      byte[] head = ascii("GET /arrays/small HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
      long sent = 0;
      for (int round = 0; !dripping.isEmpty() || !waiting.isEmpty(); round++) {
        byte b = round < head.length ? head[round] : (byte) 'a';
        for (var it = dripping.iterator(); it.hasNext(); ) {
          SocketChannel c = it.next();
          boolean closed = closedByServer(c);
          if (!closed) {
            try {
              sent += c.write(ByteBuffer.wrap(new byte[] {b}));
            } catch (IOException reset) {
              closed = true;
            }
          }
          if (closed) {
            c.close();
            it.remove();
          }
        }
        for (var it = waiting.iterator(); it.hasNext(); ) {
          SocketChannel c = it.next();
          if (closedByServer(c)) {
            c.close();
            it.remove();
          }
        }
        assertEquals(httpThreads, threads("zaro-http"), "no HTTP thread per connection");
        Thread.sleep(20);
      }
      assertTrue(sent > 0);

      // the non-reading streams are closed by the server: a byte the client sends now and then
      // (left unread by the server, which reads no further request while it streams) fails once
      // the server has closed the connection; it could not have sent all 16 MiB into the buffers
      for (SocketChannel c : nonReading) {
        try {
          while (true) {
            c.write(ByteBuffer.wrap(new byte[] {'x'}));
            Thread.sleep(20);
          }
        } catch (IOException closed) {
          c.close();
        }
      }
      awaitNoArrowMemory(server);

      // a 1 MiB header: 431, or the connection closed before the reply could be read
      for (int i = 0; i < 4; i++) {
        String reply = sendAndRead(port, hugeHeader());
        assertTrue(reply.isEmpty() || reply.startsWith("HTTP/1.1 431 "), reply);
      }
      // a request line over the limit: 414
      String line = sendAndRead(port, ascii("GET /" + "a".repeat(8000) + " HTTP/1.1\r\n\r\n"));
      assertTrue(line.isEmpty() || line.startsWith("HTTP/1.1 414 "), line);

      assertArrayEquals(smallValues(), readSmall(port));
      assertTrue(log.lines() <= 40, log.text());
      assertTrue(log.noStackTraces(), log.text());
    }
  }

  /**
   * GET /describe reads small arrays' values from the store; with the store's reply held back, the
   * server's event loops still answer other connections (both loops: connections are spread over
   * them in turn), and the describe completes with the values once the store answers.
   */
  @Test
  @SuppressWarnings("try") // the server's close() declares InterruptedException
  void aDescribeWaitingForTheStoreBlocksNoOtherConnection() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    byte[] chunk =
        ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(5).putInt(6).array();
    String zmetadata =
        "{\"zarr_consolidated_format\": 1, \"metadata\": {\".zgroup\": {\"zarr_format\": 2},"
            + " \"x/.zarray\": "
            + zarray(2, 2, 0)
            + "}}";
    try (LoopbackHttpServer upstream =
        new LoopbackHttpServer("upstream") {
          @Override
          protected boolean answer(List<String> head, OutputStream out) throws Exception {
            String path = path(head);
            byte[] body =
                path.equals("/g/.zmetadata")
                    ? zmetadata.getBytes(StandardCharsets.UTF_8)
                    : path.equals("/g/x/0") ? chunk : null;
            if (body == chunk) {
              release.await(); // the describe's read waits here
            }
            if (body == null) {
              out.write(head("404 Not Found", "Content-Length: 0"));
              return true;
            }
            out.write(head("200 OK", "Content-Length: " + body.length));
            out.write(body);
            return true;
          }
        }) {
      try (Zaro zaro = Zaro.open(upstream.url("g").toString());
          ZaroFlightServer server =
              ZaroFlightServer.start(zaro, ServerOptions.defaults().withAddress("127.0.0.1", 0))) {
        int port = server.startHttp(0);
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        var describe =
            client.sendAsync(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/describe/"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        for (int i = 0; i < 4; i++) { // fresh connections, so both event loops answer
          assertEquals(200, get(port, "/stats").statusCode());
          assertEquals(200, get(port, "/arrays/x/metadata").statusCode());
        }
        assertFalse(describe.isDone(), "the describe waits for the store");
        release.countDown();
        HttpResponse<String> r = describe.get();
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.body().contains("\"values\":[5,6]"), r.body());
      } finally {
        release.countDown();
      }
    }
  }

  /** Makes a few requests, so every server thread (event loops, JSON answers) has started. */
  private void warmUp(int port) throws IOException, InterruptedException {
    for (int i = 0; i < 2 * ZaroHttpServer.JSON_THREADS; i++) {
      assertArrayEquals(smallValues(), readSmall(port));
      assertEquals(200, get(port, "/stats").statusCode());
    }
  }

  /** Whether the server closed {@code c} (EOF or a reset); drains what it was sent. */
  private static boolean closedByServer(SocketChannel c) {
    ByteBuffer buf = ByteBuffer.allocate(4096);
    try {
      int n;
      while ((n = c.read(buf)) > 0) {
        buf.clear();
      }
      return n < 0;
    } catch (IOException reset) {
      return true;
    }
  }

  /** Sends {@code request} on a fresh connection and reads the reply's first line (or ""). */
  private static String sendAndRead(int port, byte[] request) throws IOException {
    try (Socket s = new Socket(LOOPBACK, port)) {
      try {
        s.getOutputStream().write(request);
      } catch (IOException closed) {
        // the server answered and closed while the request was still being sent
      }
      ByteArrayOutputStream reply = new ByteArrayOutputStream();
      try (InputStream in = s.getInputStream()) {
        in.transferTo(reply);
      } catch (IOException reset) {
        // closed with the request unread
      }
      String text = reply.toString(StandardCharsets.ISO_8859_1);
      int eol = text.indexOf("\r\n");
      return eol < 0 ? text : text.substring(0, eol);
    }
  }

  private static byte[] hugeHeader() {
    return ascii("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + "a".repeat(1 << 20) + "\r\n\r\n");
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  /** The names of the live threads whose names start with {@code prefix}, sorted. */
  private static List<String> threads(String prefix) {
    List<String> names = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith(prefix)) {
        names.add(t.getName());
      }
    }
    names.sort(null);
    return names;
  }

  private static int[] smallValues() {
    int[] v = new int[SMALL];
    for (int i = 0; i < SMALL; i++) {
      v[i] = i;
    }
    return v;
  }

  private static HttpResponse<byte[]> get(int port, String path)
      throws IOException, InterruptedException {
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  /** GET /arrays/small as an Arrow stream, decoded. */
  private int[] readSmall(int port) throws IOException, InterruptedException {
    HttpResponse<byte[]> r = get(port, "/arrays/small");
    assertEquals(200, r.statusCode(), new String(r.body(), StandardCharsets.UTF_8));
    List<Integer> values = new ArrayList<>();
    try (ArrowStreamReader reader =
        new ArrowStreamReader(new ByteArrayInputStream(r.body()), allocator)) {
      while (reader.loadNextBatch()) {
        IntVector v = (IntVector) reader.getVectorSchemaRoot().getVector(0);
        for (int i = 0; i < v.getValueCount(); i++) {
          values.add(v.get(i));
        }
      }
    }
    return values.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Waits until the server's Arrow memory is back to 0 (a stream's lease freed). */
  private static void awaitNoArrowMemory(ZaroFlightServer server) throws InterruptedException {
    while (server.allocator().getAllocatedMemory() != 0) {
      Thread.sleep(10);
    }
  }

  /**
   * What the server's stderr gets while open: every record of the one-line transport logger, and
   * every other record of INFO or above that {@link TransportLogs} lets through unchanged.
   */
  private static final class LogCapture extends Handler implements AutoCloseable {
    private final Logger quiet = Logger.getLogger("dev.zaro.flight.transport");
    private final Logger root = Logger.getLogger("");
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();

    LogCapture() {
      TransportLogs.install();
      setLevel(Level.INFO);
      quiet.addHandler(this);
      root.addHandler(this);
    }

    @Override
    public void publish(LogRecord record) {
      if (record.getLevel().intValue() >= Level.INFO.intValue()
          && (quiet.getName().equals(record.getLoggerName())
              || TransportLogs.passesUnchanged(record))) {
        records.add(record);
      }
    }

    int lines() {
      return records.size();
    }

    boolean noStackTraces() {
      return records.stream().allMatch(r -> r.getThrown() == null);
    }

    String text() {
      StringBuilder sb = new StringBuilder();
      for (LogRecord r : records) {
        sb.append(r.getLoggerName()).append(": ").append(r.getMessage()).append('\n');
      }
      return sb.toString();
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
      quiet.removeHandler(this);
      root.removeHandler(this);
    }
  }
}
