package dev.zaro.remote;

import static dev.zaro.arrow.store.LoopbackHttpServer.head;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.read.Hierarchy;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.LoopbackHttpServer;
import dev.zaro.arrow.store.RemoteLimits;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreLocation;
import dev.zaro.arrow.store.Stores;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HttpStore} against a loopback server that answers as a broken or hostile one would: it
 * stalls, drips a byte a second, announces a terabyte, sends conflicting lengths, a {@code 206}
 * longer than the range asked for, a metadata document over the cap, and a reply whose handling
 * dies of an {@link Error}. Each case ends with the right values or a clean {@link StoreException}
 * naming the key, and the next read of the same store works. Deadlines are short (1-3 s); nothing
 * here measures speed: the class-wide {@link Timeout} only turns a hang into a failure.
 */
@Timeout(120)
class HostileServerTest {
  private static final byte[] DATA = bytes(1000);

  /** What the server answers for each path (set by each test); unknown paths: the data. */
  private final Map<String, Reply> replies = new ConcurrentHashMap<>();

  private final AtomicBoolean closing = new AtomicBoolean();
  private BufferAllocator allocator;
  private LoopbackHttpServer server;

  /** One reply, written byte by byte as the test wants it. */
  @FunctionalInterface
  interface Reply {
    void write(List<String> head, OutputStream out) throws Exception;
  }

  @BeforeEach
  void setUp() throws IOException {
    allocator = new RootAllocator();
    server =
        new LoopbackHttpServer("hostile") {
          @Override
          protected boolean answer(List<String> head, OutputStream out) throws Exception {
            Reply r = replies.get(path(head));
            if (r == null && path(head).startsWith("/data/stalled-dir/")) {
              r = (h, o) -> stall(); // a whole directory that never answers
            }
            if (r == null) {
              good(head, out);
              return true;
            }
            r.write(head, out);
            return false; // every hostile reply ends its connection
          }
        };
  }

  @AfterEach
  void tearDown() throws Exception {
    closing.set(true);
    server.close();
    // a cancelled attempt's body is freed on the I/O thread, which may be just after its failure
    // reached the test: wait for it (bounded) before the leak check of close()
    for (int i = 0; i < 200 && allocator.getAllocatedMemory() > 0; i++) {
      Thread.sleep(50);
    }
    allocator.close();
  }

  private static byte[] bytes(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + 7);
    }
    return b;
  }

  /** A well-formed reply: the data, whole or the range asked for. */
  private static void good(List<String> head, OutputStream out) throws IOException {
    String range =
        head.stream()
            .filter(h -> h.toLowerCase(Locale.ROOT).startsWith("range:"))
            .findFirst()
            .orElse(null);
    if (range == null) {
      out.write(head("200 OK", "Content-Length: " + DATA.length));
      out.write(DATA);
      return;
    }
    String[] ends = range.substring(range.indexOf('=') + 1).trim().split("-", -1);
    int from = Integer.parseInt(ends[0]);
    int to = Math.min(DATA.length - 1, Integer.parseInt(ends[1]));
    out.write(
        head(
            "206 Partial Content",
            "Content-Length: " + (to - from + 1),
            "Content-Range: bytes " + from + "-" + to + "/" + DATA.length));
    out.write(DATA, from, to - from + 1);
  }

  /** Waits, without answering, until the test ends. */
  private void stall() throws InterruptedException {
    while (!closing.get()) {
      Thread.sleep(20);
    }
  }

  private HttpStore store(RemoteLimits limits) {
    return new HttpStore(server.url("data"), HttpOptions.DEFAULT.withLimits(limits));
  }

  private static RemoteLimits limits(double timeoutSeconds, double requestTimeoutSeconds) {
    return RemoteLimits.DEFAULT
        .withTimeout(Duration.ofMillis((long) (timeoutSeconds * 1000)))
        .withRequestTimeout(Duration.ofMillis((long) (requestTimeoutSeconds * 1000)));
  }

  private static byte[] read(Store s, String key, ByteRange range, BufferAllocator a) {
    try (ArrowBuf buf = s.get(key, range, a).orElseThrow()) {
      byte[] out = new byte[(int) buf.writerIndex()];
      buf.getBytes(0, out);
      return out;
    }
  }

  /** The next reads of {@code s} work: whole and ranged, equal to the data. */
  private void stillReads(Store s) {
    assertArrayEquals(DATA, read(s, "ok", ByteRange.ALL, allocator));
    assertArrayEquals(
        Arrays.copyOfRange(DATA, 10, 30), read(s, "ok", ByteRange.of(10, 20), allocator));
  }

  private static void assertMentions(Throwable e, String... parts) {
    for (String p : parts) {
      assertTrue(e.getMessage().contains(p), "'" + p + "' not in: " + e.getMessage());
    }
  }

  private String host() {
    return server.url("").getRawAuthority();
  }

  @Test
  void aStalledServerFailsAtTheDeadlineNamingHostKeyAndWait() {
    replies.put("/data/stalled", (head, out) -> stall());
    try (HttpStore s = store(limits(2, 1))) {
      StoreException e =
          assertThrows(StoreException.class, () -> s.get("stalled", ByteRange.ALL, allocator));
      // 5 attempts of 1 s each cannot end before the 2 s deadline: the deadline is what fails it
      assertMentions(
          e, "key 'stalled'", host(), "within the 2 s timeout", "waited", "silent for 1 s");
      assertEquals(1, e.getMessage().lines().count(), e.getMessage());
      stillReads(s);
    }
  }

  /**
   * A store opened inside another (a kerchunk reference's target, an Icechunk repository's storage)
   * reads with the limits given for the outer store, not the defaults (30 s, 5 attempts).
   */
  @Test
  void storesNestedInOthersReadWithTheLimitsGiven(@TempDir Path dir) throws IOException {
    replies.put("/data/stalled", (head, out) -> stall());
    RemoteLimits limits = limits(60, 0.5).withRetries(1);
    Path refs = dir.resolve("refs.json");
    Files.writeString(
        refs,
        "{\"version\": 1, \"refs\": {\"x\": [\"" + server.url("data/stalled") + "\", 0, 10]}}");
    try (Store s =
        Stores.open(StoreLocation.parse("reference+json://" + refs).withLimits(limits))) {
      StoreException e =
          assertThrows(StoreException.class, () -> s.get("x", ByteRange.ALL, allocator));
      assertMentions(e, "no bytes from " + host() + " for 500 ms", "2 attempts");
    }
    String repo = "icechunk+" + server.url("data/stalled-dir/repo");
    StoreException e =
        assertThrows(
            StoreException.class,
            () -> Stores.open(StoreLocation.parse(repo).withLimits(limits)).close());
    assertMentions(e, "no bytes from " + host() + " for 500 ms", "2 attempts");
  }

  @Test
  void aStalledServerFailsEachAttemptWithoutBytes() {
    replies.put("/data/stalled", (head, out) -> stall());
    try (HttpStore s = store(limits(60, 0.5).withRetries(1))) {
      StoreException e =
          assertThrows(
              StoreException.class, () -> s.get("stalled", ByteRange.of(0, 10), allocator));
      assertMentions(e, "key 'stalled'", "no bytes from " + host() + " for 500 ms", "2 attempts");
      stillReads(s);
    }
  }

  @Test
  void aOneBytePerSecondDripFailsAtTheDeadline() {
    replies.put(
        "/data/drip",
        (head, out) -> {
          out.write(head("200 OK", "Content-Length: " + DATA.length));
          out.flush();
          for (int i = 0; i < DATA.length && !closing.get(); i++) {
            out.write(DATA[i]);
            out.flush();
            Thread.sleep(1000);
          }
        });
    // the drip never goes 5 s without a byte: only the total deadline can end it
    try (HttpStore s = store(limits(2.5, 5))) {
      StoreException e =
          assertThrows(StoreException.class, () -> s.get("drip", ByteRange.ALL, allocator));
      assertMentions(e, "key 'drip'", host(), "within the 2.5 s timeout");
      stillReads(s);
    }
  }

  @Test
  void aHugeAnnouncedLengthIsRefusedBeforeAllocating() {
    Reply terabyte =
        (head, out) -> {
          out.write(head("200 OK", "Content-Length: 1099511627776"));
          out.write(DATA, 0, 100);
        };
    replies.put("/data/huge", terabyte);
    try (HttpStore s = store(limits(30, 5).withMaxObjectSize(1 << 20));
        BufferAllocator watched = allocator.newChildAllocator("watched", 0, Long.MAX_VALUE)) {
      StoreException e =
          assertThrows(StoreException.class, () -> s.get("huge", ByteRange.ALL, watched));
      assertMentions(
          e, "key 'huge'", "announces 1099511627776 bytes", "1048576 bytes (--max-object-size)");
      // a range: the 200 that ignores it is a whole object, under the same cap
      e = assertThrows(StoreException.class, () -> s.get("huge", ByteRange.of(0, 10), watched));
      assertMentions(e, "announces 1099511627776 bytes");
      assertEquals(0, watched.getPeakMemoryAllocation());
      stillReads(s);
    }
  }

  @Test
  void aChunkedBodyGrowsOnlyUpToTheCap() {
    replies.put(
        "/data/endless",
        (head, out) -> {
          out.write(head("200 OK", "Transfer-Encoding: chunked"));
          byte[] piece = new byte[64 * 1024];
          for (int i = 0; i < 64 && !closing.get(); i++) { // 4 MiB, more than the 1 MiB cap
            out.write(
                (Integer.toHexString(piece.length) + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.write(piece);
            out.write("\r\n".getBytes(StandardCharsets.UTF_8));
          }
        });
    AtomicLong largest = new AtomicLong();
    AllocationListener sizes =
        new AllocationListener() {
          @Override
          public void onPreAllocation(long size) {
            largest.accumulateAndGet(size, Math::max);
          }
        };
    try (HttpStore s = store(limits(30, 5).withMaxObjectSize(1 << 20));
        BufferAllocator watched =
            allocator.newChildAllocator("watched", sizes, 0, Long.MAX_VALUE)) {
      StoreException e =
          assertThrows(StoreException.class, () -> s.get("endless", ByteRange.ALL, watched));
      assertMentions(e, "key 'endless'", "brought at least", "1048576 bytes (--max-object-size)");
      // no buffer passes the cap; while one grows, the smaller one it copies lives beside it
      assertTrue(largest.get() <= 1 << 20, "largest " + largest.get());
      assertTrue(
          watched.getPeakMemoryAllocation() <= 3 << 19,
          "peak " + watched.getPeakMemoryAllocation());
      stillReads(s);
    }
  }

  @Test
  void theJdkClientPathKeepsTheSameCaps() {
    replies.put(
        "/data/huge",
        (head, out) -> {
          out.write(head("200 OK", "Content-Length: 1099511627776"));
          out.write(DATA, 0, 100);
        });
    replies.put(
        "/data/longer",
        (head, out) -> {
          out.write(
              head(
                  "206 Partial Content",
                  "Content-Length: 50",
                  "Content-Range: bytes 10-59/" + DATA.length));
          out.write(DATA, 10, 50);
        });
    String before = System.getProperty("zaro.http.client");
    System.setProperty("zaro.http.client", "jdk");
    try (HttpStore s = store(limits(30, 5).withMaxObjectSize(1 << 20));
        BufferAllocator watched = allocator.newChildAllocator("watched", 0, Long.MAX_VALUE)) {
      StoreException e =
          assertThrows(StoreException.class, () -> s.get("huge", ByteRange.ALL, watched));
      assertMentions(e, "key 'huge'", "announces 1099511627776 bytes", "(--max-object-size)");
      e = assertThrows(StoreException.class, () -> s.get("longer", ByteRange.of(10, 20), watched));
      assertMentions(e, "key 'longer'", "the 20-byte range asked for");
      assertEquals(0, watched.getPeakMemoryAllocation());
      stillReads(s);
    } finally {
      if (before == null) {
        System.clearProperty("zaro.http.client");
      } else {
        System.setProperty("zaro.http.client", before);
      }
    }
  }

  @Test
  void conflictingContentLengthsAreRefused() {
    replies.put(
        "/data/twice",
        (head, out) -> {
          out.write(head("200 OK", "Content-Length: 5", "Content-Length: 7"));
          out.write(DATA, 0, 7);
        });
    replies.put(
        "/data/list",
        (head, out) -> {
          out.write(head("200 OK", "Content-Length: 7, 5"));
          out.write(DATA, 0, 7);
        });
    try (HttpStore s = store(limits(30, 5))) {
      StoreException e =
          assertThrows(StoreException.class, () -> s.get("twice", ByteRange.ALL, allocator));
      assertMentions(e, "key 'twice'", "conflicting Content-Length", "[5, 7]");
      e = assertThrows(StoreException.class, () -> s.get("list", ByteRange.ALL, allocator));
      assertMentions(e, "key 'list'", "conflicting Content-Length");
      stillReads(s);
    }
  }

  @Test
  void aPartialReplyLongerThanTheRangeIsRefusedBeforeAllocating() {
    replies.put(
        "/data/longer",
        (head, out) -> {
          out.write(
              head(
                  "206 Partial Content",
                  "Content-Length: 50",
                  "Content-Range: bytes 10-59/" + DATA.length));
          out.write(DATA, 10, 50);
        });
    replies.put(
        "/data/terabyte-range",
        (head, out) -> {
          out.write(
              head(
                  "206 Partial Content",
                  "Transfer-Encoding: chunked",
                  "Content-Range: bytes 10-1099511627785/1099511627786"));
          out.write("c8\r\n".getBytes(StandardCharsets.UTF_8)); // 200 bytes
          out.write(DATA, 0, 200);
          out.write("\r\n0\r\n\r\n".getBytes(StandardCharsets.UTF_8));
        });
    try (HttpStore s = store(limits(30, 5));
        BufferAllocator watched = allocator.newChildAllocator("watched", 0, Long.MAX_VALUE)) {
      StoreException e =
          assertThrows(StoreException.class, () -> s.get("longer", ByteRange.of(10, 20), watched));
      assertMentions(e, "key 'longer'", "announces 50 bytes", "the 20-byte range asked for");
      assertEquals(0, watched.getPeakMemoryAllocation());
      e =
          assertThrows(
              StoreException.class, () -> s.get("terabyte-range", ByteRange.of(10, 20), watched));
      assertMentions(e, "key 'terabyte-range'", "the 20-byte range asked for");
      assertTrue(watched.getPeakMemoryAllocation() <= 64 * 1024);
      stillReads(s);
    }
  }

  @Test
  void aMetadataDocumentOverTheCapIsACleanErrorNamingKeyAndSize() {
    byte[] big =
        ("{\"zarr_format\": 3, \"node_type\": \"group\", \"attributes\": {\"pad\": \""
                + "x".repeat(3 << 20)
                + "\"}}")
            .getBytes(StandardCharsets.UTF_8);
    replies.put(
        "/data/zarr.json",
        (head, out) -> {
          out.write(head("200 OK", "Content-Length: " + big.length));
          out.write(big);
        });
    replies.put(
        "/data/chunked/zarr.json",
        (head, out) -> {
          out.write(head("200 OK", "Transfer-Encoding: chunked"));
          out.write((Integer.toHexString(big.length) + "\r\n").getBytes(StandardCharsets.UTF_8));
          out.write(big);
          out.write("\r\n0\r\n\r\n".getBytes(StandardCharsets.UTF_8));
        });
    try (HttpStore s = store(limits(30, 5))) {
      StoreException e =
          assertThrows(StoreException.class, () -> new Hierarchy(s, 1 << 20).node(""));
      assertMentions(e, "key 'zarr.json'", "announces " + big.length + " bytes", "1048576 bytes");
      e = assertThrows(StoreException.class, () -> s.getBytes("chunked/zarr.json", 1 << 20));
      assertMentions(e, "key 'chunked/zarr.json'", "brought at least", "1048576 bytes");
      // under a cap it fits, the same document reads
      assertEquals(big.length, s.getBytes("zarr.json", 4 << 20).orElseThrow().length);
      stillReads(s);
    }
  }

  @Test
  void anErrorWhileHandlingOneReplyFailsThatReadAndTheIoThreadGoesOn() throws Exception {
    AtomicBoolean armed = new AtomicBoolean(true);
    AllocationListener dies =
        new AllocationListener() {
          @Override
          public void onPreAllocation(long size) {
            if (armed.getAndSet(false)) {
              throw new OutOfMemoryError("injected while sizing a reply body");
            }
          }
        };
    try (HttpStore s = store(limits(30, 5));
        BufferAllocator poisoned = new RootAllocator(dies, Long.MAX_VALUE)) {
      StoreException e =
          assertThrows(StoreException.class, () -> s.get("first", ByteRange.ALL, poisoned));
      assertMentions(e, "key 'first'", "OutOfMemoryError", "injected");
      // the shared I/O thread lives on: this store's and every other store's reads go on
      assertArrayEquals(DATA, read(s, "second", ByteRange.ALL, poisoned));
      stillReads(s);
      try (HttpStore other = store(limits(30, 5))) {
        stillReads(other);
      }
      assertEquals(
          Optional.of(DATA.length), s.getBytes("third").map(b -> b.length)); // whole, on the heap
    }
  }
}
