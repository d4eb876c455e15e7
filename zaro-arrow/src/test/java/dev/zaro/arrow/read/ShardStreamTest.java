package dev.zaro.arrow.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.Stores;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Whole shards decoded as their bytes arrive: a remote store double that delivers each whole-shard
 * body in pieces (in order, reversed, shuffled; of 1 to 64 bytes), holds its last piece back until
 * the read has decoded an inner chunk, or cuts the body off (failing, or ending short). Values
 * equal tensorstore's (testdata/sharding); a cut-off shard fails the read naming its key; every
 * buffer is freed (the per-test allocator).
 */
class ShardStreamTest extends AllocatorTest {

  enum Order {
    IN_ORDER,
    REVERSED,
    SHUFFLED
  }

  enum Cut {
    NONE,
    FAILS,
    ENDS_SHORT
  }

  /** A store answering whole-value requests in pieces on its own threads. */
  static final class PiecesStore extends RemoteReadTest.SlowRemoteStore {
    volatile Order order = Order.IN_ORDER;
    volatile int piece = 7;
    volatile Cut cut = Cut.NONE;
    volatile String cutKey;
    volatile double cutAt = 0.5;

    /**
     * When set: the last piece of each body waits (up to 20 s) until more than {@link
     * #decodedBeforeLast} chunks are decoded.
     */
    volatile ReadStats holdLastUntilDecoded;

    volatile long decodedBeforeLast;

    final AtomicInteger streamed = new AtomicInteger();
    final AtomicBoolean decodedBeforeLastPiece = new AtomicBoolean();

    /** A last piece went out after 20 s without the decodes it waited for. */
    final AtomicBoolean heldInVain = new AtomicBoolean();

    PiecesStore(Store inner) {
      super(inner);
    }

    @Override
    public CompletableFuture<Optional<ArrowBuf>> getAsync(
        String key,
        ByteRange range,
        BufferAllocator allocator,
        Executor executor,
        Arrivals arrivals) {
      streamed.incrementAndGet();
      return CompletableFuture.supplyAsync(() -> deliver(key, range, allocator, arrivals), io);
    }

    private Optional<ArrowBuf> deliver(
        String key, ByteRange range, BufferAllocator allocator, Arrivals arrivals) {
      Optional<byte[]> value = inner.getBytes(key);
      if (value.isEmpty()) {
        return Optional.empty();
      }
      byte[] bytes = value.get();
      long[] at = range.resolve(bytes.length, key, describe());
      int n = (int) at[1];
      boolean cutting = cut != Cut.NONE && key.equals(cutKey);
      int end = cutting ? (int) (n * cutAt) : n;
      List<int[]> pieces = new ArrayList<>();
      for (int p = 0; p < end; p += piece) {
        pieces.add(new int[] {p, Math.min(piece, end - p)});
      }
      if (order == Order.REVERSED) {
        Collections.reverse(pieces);
      } else if (order == Order.SHUFFLED) {
        Collections.shuffle(pieces, new Random(key.hashCode()));
      }
      ArrowBuf body = allocator.buffer(Math.max(1, n));
      try {
        for (int i = 0; i < pieces.size(); i++) {
          int[] p = pieces.get(i);
          ReadStats watch = holdLastUntilDecoded;
          if (i == pieces.size() - 1 && watch != null) {
            for (int w = 0; w < 2000 && watch.chunksDecoded() <= decodedBeforeLast; w++) {
              Thread.sleep(10);
            }
            if (watch.chunksDecoded() > decodedBeforeLast) {
              decodedBeforeLastPiece.set(true);
            } else {
              heldInVain.set(true);
            }
          }
          body.setBytes(p[0], bytes, (int) at[0] + p[0], p[1]);
          arrivals.arrived(body, p[0], p[1]);
        }
        if (cutting && cut == Cut.FAILS) {
          throw new StoreException(
              ErrorKind.IO, "connection reset after " + end + " of " + n + " bytes");
        }
        body.writerIndex(end);
        return Optional.of(body);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        body.close();
        throw new StoreException(ErrorKind.IO, "interrupted");
      } catch (RuntimeException e) {
        body.close();
        throw e;
      }
    }
  }

  static Stream<Arguments> pieces() {
    List<Arguments> out = new ArrayList<>();
    for (String fixture : new String[] {"end_zstd", "start_gzip_uint16"}) {
      for (Order order : Order.values()) {
        for (int piece : new int[] {1, 7, 64}) {
          out.add(Arguments.of(fixture, order, piece));
        }
      }
    }
    return out.stream();
  }

  private PiecesStore open(String fixture) {
    return new PiecesStore(
        Stores.open(
            Fixtures.testdata().resolve("sharding/stores/" + fixture + ".zarr").toString()));
  }

  static byte[] expected(String fixture) throws IOException {
    return Files.readAllBytes(
        Fixtures.testdata().resolve("sharding/expected/" + fixture + ".0.bin"));
  }

  /** Reading the root array fails, as IO or CORRUPT, naming the shard {@code key}. */
  static void readFailsNaming(Zaro zaro, String key, BufferAllocator allocator, String what) {
    ZaroException e =
        assertThrows(ZaroException.class, () -> zaro.read("", "", allocator).close(), what);
    assertTrue(e.getMessage().contains("'" + key + "'"), what + ": " + e.getMessage());
    assertTrue(
        e.kind() == ErrorKind.IO || e.kind() == ErrorKind.CORRUPT,
        what + ": " + e.kind() + " " + e.getMessage());
  }

  static byte[] bytes(Slab slab) {
    byte[] got = new byte[(int) slab.byteSize()];
    slab.data().getBytes(0, got);
    return got;
  }

  /**
   * Whole shards streamed in pieces decode equal to tensorstore's values. An index at the end is
   * the shard's last bytes, so such a shard streams once its index is cached (the second read).
   */
  @ParameterizedTest(name = "{0} {1} pieces of {2}")
  @MethodSource("pieces")
  void shardsStreamedInPiecesDecodeEqualTensorstore(String fixture, Order order, int piece)
      throws IOException {
    byte[] want = expected(fixture);
    PiecesStore store = open(fixture);
    store.order = order;
    store.piece = piece;
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults().withThreads(2).withIoConcurrency(4))) {
      for (int read = 0; read < 2; read++) {
        try (Slab slab = zaro.read("", "", allocator)) {
          assertArrayEquals(want, bytes(slab), "read " + read);
        }
      }
      assertTrue(store.streamed.get() > 0, "no shard was streamed");
    }
  }

  /** An inner chunk is decoded while its shard's last piece has not arrived yet. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("fixtures")
  void chunksDecodeBeforeTheLastByteOfTheirShard(String fixture) throws IOException {
    byte[] want = expected(fixture);
    PiecesStore store = open(fixture);
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults().withThreads(2).withIoConcurrency(2))) {
      try (Slab warm = zaro.read("", "", allocator)) {
        assertArrayEquals(want, bytes(warm)); // caches an index at the end
      }
      ReadStats stats = new ReadStats();
      store.holdLastUntilDecoded = stats;
      try (Slab slab = zaro.read("", "", allocator, ReadOptions.DEFAULT.withStats(stats))) {
        assertArrayEquals(want, bytes(slab));
      }
      assertTrue(store.decodedBeforeLastPiece.get(), "every decode waited for the last byte");
    }
  }

  /**
   * With one decoding thread, the inner chunks of every shard in flight are decoded while the shard
   * the thread took first is still arriving: more chunks than that shard holds are decoded before
   * any shard's last piece is sent. (Shard by shard, the thread would wait for its first shard's
   * last piece after decoding its chunks, and the server, holding every last piece until more were
   * decoded, would give up after 20 s.)
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("fixtures")
  void landedChunksOfOtherShardsDecodeWhileTheFirstIsArriving(String fixture) throws IOException {
    byte[] want = expected(fixture);
    PiecesStore store = open(fixture);
    try (Zaro zaro =
        Zaro.open(store, ZaroOptions.defaults().withThreads(1).withIoConcurrency(64))) {
      try (Slab warm = zaro.read("", "", allocator)) {
        assertArrayEquals(want, bytes(warm)); // caches an index at the end
      }
      ReadStats stats = new ReadStats();
      store.decodedBeforeLast = PER_SHARD.get(fixture);
      store.holdLastUntilDecoded = stats;
      try (Slab slab = zaro.read("", "", allocator, ReadOptions.DEFAULT.withStats(stats))) {
        assertArrayEquals(want, bytes(slab));
      }
      assertTrue(store.decodedBeforeLastPiece.get(), "no shard's last piece was sent");
      assertFalse(
          store.heldInVain.get(),
          "a shard's last piece waited 20 s in vain: no more than one shard's chunks were decoded"
              + " while every shard was still arriving");
    }
  }

  /** Inner chunks per shard (zarr.json: the shard's shape over the inner chunks'). */
  private static final Map<String, Long> PER_SHARD =
      Map.of("end_zstd", 2L * 4, "start_gzip_uint16", 2L * 3 * 1);

  static Stream<String> fixtures() {
    return Stream.of("end_zstd", "start_gzip_uint16");
  }

  /**
   * On a read's first sight of a shard whose index is at its end, the index is asked for beside the
   * body: an inner chunk is decoded while the body's last piece has not arrived yet.
   */
  @Test
  void aFirstReadStreamsAShardWhoseIndexIsAtItsEnd() throws IOException {
    byte[] want = expected("end_zstd");
    PiecesStore store = open("end_zstd");
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults().withThreads(2).withIoConcurrency(4))) {
      ReadStats stats = new ReadStats();
      store.holdLastUntilDecoded = stats;
      try (Slab slab = zaro.read("", "", allocator, ReadOptions.DEFAULT.withStats(stats))) {
        assertArrayEquals(want, bytes(slab));
      }
      assertTrue(store.decodedBeforeLastPiece.get(), "every decode waited for the last byte");
      assertFalse(store.heldInVain.get(), "a last piece waited 20 s for a decode");
    }
  }

  /**
   * A shard cut off while arriving (the request fails, or the body ends short) fails the read
   * naming the shard's key, and every buffer is freed; at any cut, in any order of pieces, on a
   * read that knows the shard's index (cached by an earlier read) and on one that does not.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("fixtures")
  void aCutOffShardFailsNamingItsKeyAndFreesEveryBuffer(String fixture) throws IOException {
    byte[] want = expected(fixture);
    for (boolean warmFirst : new boolean[] {true, false}) {
      for (Cut cut : new Cut[] {Cut.FAILS, Cut.ENDS_SHORT}) {
        for (Order order : Order.values()) {
          for (double at : new double[] {0.0, 0.01, 0.5, 0.97}) {
            cutRead(fixture, want, warmFirst, cut, order, at);
          }
        }
      }
    }
  }

  private void cutRead(
      String fixture, byte[] want, boolean warmFirst, Cut cut, Order order, double at) {
    PiecesStore store = open(fixture);
    store.order = order;
    String what = cut + " at " + at + ", " + order + (warmFirst ? "" : ", first read");
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults().withThreads(2).withIoConcurrency(3))) {
      if (warmFirst) {
        try (Slab warm = zaro.read("", "", allocator)) {
          assertArrayEquals(want, bytes(warm), what); // caches an index at the end
        }
      }
      String key = zaro.array("").chunkKey(new long[zaro.array("").metadata().rank()]);
      store.cutKey = key;
      store.cutAt = at;
      store.cut = cut;
      readFailsNaming(zaro, key, allocator, what);
      assertEquals(0, allocator.getAllocatedMemory(), what + ": buffers left");
    }
  }
}
