package dev.zaro.arrow.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.LoopbackHttpServer;
import dev.zaro.remote.HttpOptions;
import dev.zaro.remote.HttpStore;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Whole shards streamed by the real HTTP store ({@link HttpStore} through its HTTP/1.1 client): a
 * loopback server written on plain sockets in this test sends each shard's body in small pieces
 * (flushed one by one), can hold a shard's last piece back until the read has decoded an inner
 * chunk, and can cut a body off (the connection closed mid-body, or a complete reply shorter than
 * the shard). Values equal tensorstore's (testdata/sharding); a cut-off shard fails the read naming
 * its key; every buffer is freed (the per-test allocator).
 */
@Timeout(120)
class HttpShardStreamTest extends AllocatorTest {

  /** A pieces server for {@code root} (plain http here; {@link HttpsShardStreamTest}: https). */
  PiecesServer serve(Path root) throws IOException {
    return new PiecesServer(root, null);
  }

  enum Cut {
    NONE,
    /** The server closes the connection after part of the body. */
    CLOSES,
    /** The server sends a complete reply holding only part of the shard. */
    SHORT
  }

  /** Serves a directory over HTTP/1.1, chunk bodies in pieces; a thread per connection. */
  static final class PiecesServer extends LoopbackHttpServer {
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d*)-(\\d*)");

    final Path root;
    volatile int piece = 7;
    volatile Cut cut = Cut.NONE;
    volatile String cutKey;
    volatile double cutAt = 0.5;

    /** How many more requests for {@link #cutKey} are cut (then it is served whole). */
    final AtomicInteger cutsLeft = new AtomicInteger(Integer.MAX_VALUE);

    /** When set: the last piece of each chunk body waits (up to 20 s) until it is true. */
    volatile BooleanSupplier holdLastUntil;

    /** How many 10 ms waits {@link #holdLastUntil} gets. */
    volatile int holdTries = 2000;

    final AtomicBoolean conditionMetBeforeLastPiece = new AtomicBoolean();

    /** Chunk requests being answered now, and the most at once. */
    final AtomicInteger chunksInFlight = new AtomicInteger();

    final AtomicInteger peakChunksInFlight = new AtomicInteger();

    /** When set: a chunk body stops after half its bytes until this latch opens. */
    volatile CountDownLatch stall;

    final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();

    PiecesServer(Path root, SSLContext tls) throws IOException {
      super("pieces-server", tls);
      this.root = root;
    }

    URI url() {
      return url("");
    }

    int requests(String key) {
      AtomicInteger n = requests.get(key);
      return n == null ? 0 : n.get();
    }

    @Override
    protected boolean answer(List<String> head, OutputStream out) throws Exception {
      String key = path(head).substring(1);
      String range = null;
      for (String line : head) {
        if (line.toLowerCase(Locale.ROOT).startsWith("range:")) {
          range = line.substring(6).trim();
        }
      }
      requests.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
      boolean chunk = key.contains("/c/") || key.startsWith("c/");
      if (chunk) {
        peakChunksInFlight.accumulateAndGet(chunksInFlight.incrementAndGet(), Math::max);
      }
      try {
        boolean keep = reply(key, range, out);
        out.flush();
        return keep;
      } finally {
        if (chunk) {
          chunksInFlight.decrementAndGet();
        }
      }
    }

    /** Writes the reply; false closes the connection. */
    private boolean reply(String key, String range, OutputStream out) throws Exception {
      Path file = root.resolve(key);
      if (!Files.isRegularFile(file)) {
        out.write(head("404 Not Found", "Content-Length: 0"));
        return true;
      }
      byte[] all = Files.readAllBytes(file);
      int from = 0;
      int to = all.length;
      String status = "200 OK";
      String contentRange = null;
      if (range != null) {
        Matcher m = RANGE.matcher(range);
        if (!m.matches()) {
          throw new IOException("bad range " + range);
        }
        if (m.group(1).isEmpty()) {
          from = Math.max(0, all.length - Integer.parseInt(m.group(2)));
        } else {
          from = Integer.parseInt(m.group(1));
          if (!m.group(2).isEmpty()) {
            to = Math.min(all.length, Integer.parseInt(m.group(2)) + 1);
          }
        }
        status = "206 Partial Content";
        contentRange = "Content-Range: bytes " + from + "-" + (to - 1) + "/" + all.length;
      }
      int n = to - from;
      boolean chunk = key.contains("/c/") || key.startsWith("c/");
      boolean cutting =
          cut != Cut.NONE && key.equals(cutKey) && cutsLeft.getAndDecrement() > 0 && chunk;
      int end = cutting ? (int) (n * cutAt) : n;
      int announced = cutting && cut == Cut.SHORT ? end : n;
      out.write(
          contentRange == null
              ? head(status, "Content-Length: " + announced)
              : head(status, "Content-Length: " + announced, contentRange));
      out.flush();
      if (!chunk) {
        out.write(all, from, n);
        return true;
      }
      CountDownLatch wait = stall;
      for (int p = 0; p < end; p += piece) {
        int len = Math.min(piece, end - p);
        BooleanSupplier hold = holdLastUntil;
        if (p + len == end && hold != null) {
          for (int w = 0; w < holdTries && !hold.getAsBoolean(); w++) {
            Thread.sleep(10);
          }
          if (hold.getAsBoolean()) {
            conditionMetBeforeLastPiece.set(true);
          }
        }
        if (wait != null && p >= end / 2) {
          wait.await(20, TimeUnit.SECONDS);
          wait = null;
        }
        out.write(all, from + p, len);
        out.flush();
      }
      return !(cutting && cut == Cut.CLOSES);
    }
  }

  private static Path fixture(String name) {
    return Fixtures.testdata().resolve("sharding/stores/" + name + ".zarr");
  }

  /** Quick retries, so that a body cut before its first byte is fetched again at once. */
  private static HttpStore store(PiecesServer server) {
    return new HttpStore(
        server.url(),
        HttpOptions.DEFAULT.withRetries(3, Duration.ofMillis(1), Duration.ofMillis(5)));
  }

  static Stream<Arguments> pieces() {
    List<Arguments> out = new ArrayList<>();
    for (String fixture : new String[] {"end_zstd", "start_gzip_uint16"}) {
      for (int piece : new int[] {1, 7, 64, 100_000}) {
        out.add(Arguments.of(fixture, piece));
      }
    }
    return out.stream();
  }

  /**
   * Shards sent in pieces of 1 to 64 bytes (or whole) decode equal to tensorstore's values. An
   * index at the end is the shard's last bytes, so such a shard streams once its index is cached
   * (the second read).
   */
  @ParameterizedTest(name = "{0} pieces of {1}")
  @MethodSource("pieces")
  void shardsSentInPiecesDecodeEqualTensorstore(String fixture, int piece) throws IOException {
    byte[] want = ShardStreamTest.expected(fixture);
    try (PiecesServer server = serve(fixture(fixture))) {
      server.piece = piece;
      try (Zaro zaro =
          Zaro.open(store(server), ZaroOptions.defaults().withThreads(2).withIoConcurrency(4))) {
        for (int read = 0; read < 2; read++) {
          try (Slab slab = zaro.read("", "", allocator)) {
            assertArrayEquals(want, ShardStreamTest.bytes(slab), "read " + read);
          }
        }
      }
    }
  }

  /**
   * An inner chunk is decoded while its shard's last piece is still held back by the server: the
   * store hands the body on as the socket fills it (without streaming, no chunk could be decoded
   * before the server sends its last piece).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.zaro.arrow.read.ShardStreamTest#fixtures")
  void chunksDecodeBeforeTheServerSendsTheLastByte(String fixture) throws IOException {
    byte[] want = ShardStreamTest.expected(fixture);
    try (PiecesServer server = serve(fixture(fixture))) {
      try (Zaro zaro =
          Zaro.open(store(server), ZaroOptions.defaults().withThreads(2).withIoConcurrency(2))) {
        try (Slab warm = zaro.read("", "", allocator)) {
          assertArrayEquals(want, ShardStreamTest.bytes(warm)); // caches an index at the end
        }
        ReadStats stats = new ReadStats();
        server.holdLastUntil = () -> stats.chunksDecoded() > 0;
        try (Slab slab = zaro.read("", "", allocator, ReadOptions.DEFAULT.withStats(stats))) {
          assertArrayEquals(want, ShardStreamTest.bytes(slab));
        }
        assertTrue(
            server.conditionMetBeforeLastPiece.get(), "every decode waited for the last byte");
      }
    }
  }

  /**
   * A shard cut off while arriving (the connection closes mid-body, or the reply ends short) fails
   * the read naming the shard's key, and every buffer is freed. Once body bytes were handed to the
   * decoders the request is not sent again (a retry's body would be another buffer).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.zaro.arrow.read.ShardStreamTest#fixtures")
  void aCutOffShardFailsNamingItsKeyAndFreesEveryBuffer(String fixture) throws IOException {
    byte[] want = ShardStreamTest.expected(fixture);
    for (Cut cut : new Cut[] {Cut.CLOSES, Cut.SHORT}) {
      for (double at : new double[] {0.0, 0.01, 0.5, 0.97}) {
        String what = cut + " at " + at;
        try (PiecesServer server = serve(fixture(fixture));
            Zaro zaro =
                Zaro.open(
                    store(server), ZaroOptions.defaults().withThreads(2).withIoConcurrency(3))) {
          try (Slab warm = zaro.read("", "", allocator)) {
            assertArrayEquals(
                want, ShardStreamTest.bytes(warm), what); // caches an index at the end
          }
          String key = zaro.array("").chunkKey(new long[zaro.array("").metadata().rank()]);
          int before = server.requests(key);
          server.cutKey = key;
          server.cutAt = at;
          server.cut = cut;
          ShardStreamTest.readFailsNaming(zaro, key, allocator, what);
          if (cut == Cut.CLOSES && at > 0) {
            assertEquals(1, server.requests(key) - before, what + ": sent again after streaming");
          }
          assertEquals(0, allocator.getAllocatedMemory(), what + ": buffers left");
        }
      }
    }
  }

  /** A connection closed before the body's first byte is an ordinary retry: the read succeeds. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.zaro.arrow.read.ShardStreamTest#fixtures")
  void aShardCutBeforeItsFirstByteIsFetchedAgain(String fixture) throws IOException {
    byte[] want = ShardStreamTest.expected(fixture);
    try (PiecesServer server = serve(fixture(fixture));
        Zaro zaro =
            Zaro.open(store(server), ZaroOptions.defaults().withThreads(2).withIoConcurrency(3))) {
      try (Slab warm = zaro.read("", "", allocator)) {
        assertArrayEquals(want, ShardStreamTest.bytes(warm));
      }
      String key = zaro.array("").chunkKey(new long[zaro.array("").metadata().rank()]);
      int before = server.requests(key);
      server.cutKey = key;
      server.cutAt = 0.0;
      server.cutsLeft.set(1);
      server.cut = Cut.CLOSES;
      try (Slab slab = zaro.read("", "", allocator)) {
        assertArrayEquals(want, ShardStreamTest.bytes(slab));
      }
      assertEquals(2, server.requests(key) - before);
    }
  }

  /**
   * A shard handed to the decoders while its bytes still arrive stays counted as a request in
   * flight: with two requests allowed, the server never answers three shards at once, although it
   * holds each shard's last piece back for as long as a third request might come.
   */
  @Test
  void streamedShardsCountAsRequestsInFlightUntilTheirLastByte() throws IOException {
    byte[] want = ShardStreamTest.expected("end_zstd");
    try (PiecesServer server = serve(fixture("end_zstd"));
        Zaro zaro =
            Zaro.open(store(server), ZaroOptions.defaults().withThreads(2).withIoConcurrency(2))) {
      try (Slab warm = zaro.read("", "", allocator)) {
        assertArrayEquals(want, ShardStreamTest.bytes(warm)); // caches the indexes (at the end)
      }
      server.peakChunksInFlight.set(0);
      server.holdTries = 20;
      server.holdLastUntil = () -> server.chunksInFlight.get() > 2;
      try (Slab slab = zaro.read("", "", allocator)) {
        assertArrayEquals(want, ShardStreamTest.bytes(slab));
      }
      assertEquals(2, server.peakChunksInFlight.get());
    }
  }

  /**
   * Cancelling a streamed request mid-body stops it and frees its buffer, while the server still
   * holds the rest of the body back.
   */
  @Test
  void cancellingMidBodyFreesTheBuffer() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (PiecesServer server = serve(fixture("end_zstd"))) {
      server.stall = release;
      HttpStore store = store(server);
      AtomicLong told = new AtomicLong();
      CountDownLatch some = new CountDownLatch(1);
      CompletableFuture<Optional<ArrowBuf>> f =
          store.getAsync(
              "c/0/0",
              ByteRange.ALL,
              allocator,
              Runnable::run,
              (body, offset, length) -> {
                told.addAndGet(length);
                some.countDown();
              });
      assertTrue(some.await(20, TimeUnit.SECONDS), "no body bytes arrived");
      f.cancel(true);
      while (allocator.getAllocatedMemory() != 0) { // the I/O thread frees it
        Thread.onSpinWait();
      }
      long size = Files.size(fixture("end_zstd").resolve("c/0/0"));
      assertTrue(told.get() > 0 && told.get() < size, "told of " + told.get());
    } finally {
      release.countDown();
    }
  }
}
