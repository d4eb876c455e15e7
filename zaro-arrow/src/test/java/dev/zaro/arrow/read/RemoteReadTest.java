package dev.zaro.arrow.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import dev.zaro.arrow.store.MemoryStore;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreCapabilities;
import dev.zaro.arrow.store.Stores;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The remote read path (fetches issued ahead of the decoders, bounded by requests and bytes in
 * flight; a shard's ranges requested at once): every fixture read of testdata/core and
 * testdata/sharding through a store that reports itself remote and completes its requests out of
 * order on its own threads, compared byte for byte with tensorstore's values; and a failing request
 * fails the read cleanly, freeing every body.
 */
class RemoteReadTest extends AllocatorTest {

  /** A local store that answers like an object store: asynchronously, late, out of order. */
  static class SlowRemoteStore implements Store {
    final Store inner;
    final ExecutorService io = Executors.newFixedThreadPool(8);
    private final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger peakInFlight = new AtomicInteger();

    /** Every request, as "key range" (ByteRange's record form), in the order made. */
    final Queue<String> requests = new ConcurrentLinkedQueue<>();

    volatile String failing;

    /** Keys whose value reads as only its first {@code truncatedTo} bytes (a cut-off upload). */
    volatile String truncated;

    volatile int truncatedTo;

    SlowRemoteStore(Store inner) {
      this.inner = inner;
    }

    @Override
    public Optional<ArrowBuf> get(String key, ByteRange range, BufferAllocator allocator) {
      if (key.equals(failing)) {
        throw new StoreException(ErrorKind.IO, "injected failure for '" + key + "'");
      }
      if (key.equals(truncated)) {
        Optional<byte[]> whole = inner.getBytes(key);
        if (whole.isEmpty()) {
          return Optional.empty();
        }
        byte[] cut = Arrays.copyOf(whole.get(), Math.min(truncatedTo, whole.get().length));
        try (MemoryStore one = new MemoryStore()) {
          return one.put(key, cut).get(key, range, allocator);
        }
      }
      return inner.get(key, range, allocator);
    }

    @Override
    public CompletableFuture<Optional<ArrowBuf>> getAsync(
        String key, ByteRange range, BufferAllocator allocator, Executor executor) {
      requests.add(key + " " + range);
      int n = inFlight.incrementAndGet();
      peakInFlight.accumulateAndGet(n, Math::max);
      return CompletableFuture.supplyAsync(
          () -> {
            try {
              Thread.sleep(ThreadLocalRandom.current().nextInt(3));
              return get(key, range, allocator);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new StoreException(ErrorKind.IO, "interrupted");
            } finally {
              inFlight.decrementAndGet();
            }
          },
          io);
    }

    @Override
    public Optional<byte[]> getBytes(String key) {
      return inner.getBytes(key);
    }

    @Override
    public Stream<String> list(String prefix) {
      return inner.list(prefix);
    }

    @Override
    public StoreCapabilities capabilities() {
      return StoreCapabilities.REMOTE;
    }

    @Override
    public String describe() {
      return "slow " + inner.describe();
    }

    @Override
    public void close() {
      io.shutdownNow();
      try {
        io.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      inner.close();
    }
  }

  static Stream<Arguments> remoteReads() throws IOException {
    return FixtureReadTest.reads()
        .filter(
            a ->
                ((String) a.get()[0]).startsWith("core/")
                    || ((String) a.get()[0]).startsWith("sharding/"))
        .filter(a -> !((String) a.get()[6]).endsWith(".json"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("remoteReads")
  void remoteReadsEqualTensorstore(
      String name,
      String storePath,
      String path,
      String dataType,
      String slice,
      long[] shape,
      String expected,
      boolean fallbackTypes)
      throws IOException {
    byte[] want = Files.readAllBytes(Path.of(expected));
    // requests/bytes in flight: tight (1 request, 1 byte: one chunk at a time) to generous
    for (int[] bounds : new int[][] {{1, 1}, {3, 1}, {64, 1 << 20}}) {
      SlowRemoteStore store = new SlowRemoteStore(Stores.open(storePath));
      try (Zaro zaro =
              Zaro.open(
                  store,
                  ZaroOptions.defaults()
                      .withThreads(2)
                      .withIoConcurrency(bounds[0])
                      .withMaxBytesInFlight(bounds[1])
                      .withFallbackTypes(fallbackTypes));
          Slab slab = zaro.read(path, slice, allocator)) {
        assertEquals(dataType, slab.dataType().name());
        assertArrayEquals(shape, slab.shape(), "shape");
        byte[] got = new byte[(int) slab.byteSize()];
        slab.data().getBytes(0, got);
        assertArrayEquals(want, got, name + " with " + bounds[0] + " requests in flight");
        // (a shard's coalesced ranges are requested together, whatever the bound)
        assertTrue(
            name.startsWith("sharding/") || store.peakInFlight.get() <= bounds[0],
            "requests in flight " + store.peakInFlight.get() + " > " + bounds[0]);
      }
    }
  }

  @Test
  void failedRequestFailsTheReadNamingTheChunkAndFreesEveryBody() {
    Path fixture = Fixtures.testdata().resolve("core/stores/zstd_checksum.zarr");
    for (int requests : new int[] {1, 4, 64}) {
      SlowRemoteStore store = new SlowRemoteStore(Stores.open(fixture.toString()));
      try (Zaro zaro =
          Zaro.open(store, ZaroOptions.defaults().withThreads(2).withIoConcurrency(requests))) {
        String key = zaro.array("").chunkKey(new long[] {1, 1});
        store.failing = key;
        ZaroException e = assertThrows(ZaroException.class, () -> zaro.read("", "", allocator));
        assertEquals(ErrorKind.IO, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains(key), e.getMessage());
        assertEquals(0, allocator.getAllocatedMemory(), "bodies left after the failed read");
      }
    }
  }

  /**
   * A remote read of whole shards fetches each with one request for all of its bytes (as
   * tensorstore does) and, on the first read of a shard whose index is at its end, its index beside
   * it (so that its chunks can be decoded as they land); a read of part of a shard its index and
   * then the needed ranges; once the indexes are cached, one request per shard. Values equal
   * tensorstore's.
   */
  @Test
  void wholeShardsAreOneRequestEachPartsAreIndexThenRanges() throws IOException {
    Path fixture = Fixtures.testdata().resolve("sharding/stores/end_zstd.zarr");
    byte[] want =
        Files.readAllBytes(Fixtures.testdata().resolve("sharding/expected/end_zstd.0.bin"));
    SlowRemoteStore store = new SlowRemoteStore(Stores.open(fixture.toString()));
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults().withThreads(2).withIoConcurrency(4))) {
      store.requests.clear();
      try (Slab slab = zaro.read("", "", allocator)) {
        byte[] got = new byte[(int) slab.byteSize()];
        slab.data().getBytes(0, got);
        assertArrayEquals(want, got);
      }
      // 30 x 41 in shards of 10 x 16: 9 shards, each one request for all of its bytes and one
      // for its index (its last 132 bytes) beside it
      assertEquals(18, store.requests.size(), store.requests.toString());
      assertEquals(
          9,
          store.requests.stream().filter(r -> r.endsWith(" " + ByteRange.ALL)).count(),
          store.requests.toString());
      assertEquals(
          9,
          store.requests.stream().filter(r -> r.endsWith(" last 132 bytes")).count(),
          store.requests.toString());
      store.requests.clear();
      try (Slab again = zaro.read("", "", allocator)) {
        byte[] got = new byte[(int) again.byteSize()];
        again.data().getBytes(0, got);
        assertArrayEquals(want, got, "second read, indexes cached");
      }
      assertEquals(9, store.requests.size(), "indexes cached: " + store.requests);
      assertTrue(
          store.requests.stream().allMatch(r -> r.endsWith(" " + ByteRange.ALL)),
          store.requests.toString());
    }
    SlowRemoteStore fresh = new SlowRemoteStore(Stores.open(fixture.toString()));
    try (Zaro zaro = Zaro.open(fresh, ZaroOptions.defaults().withThreads(2).withIoConcurrency(4));
        Slab part = zaro.read("", "0:15, 0:20", allocator)) {
      assertArrayEquals(new long[] {15, 20}, part.shape());
      // shard c/0/0 whole: all of its bytes, its index beside them; c/0/1, c/1/0, c/1/1 in part:
      // an index, then ranges (the shards of column 2 are whole above: 9 of their 16 columns lie
      // inside the array)
      List<String> made = List.copyOf(fresh.requests);
      assertEquals(
          List.of("c/0/0 " + ByteRange.ALL, "c/0/0 last 132 bytes"),
          made.stream().filter(r -> r.startsWith("c/0/0 ")).sorted().toList(),
          made.toString());
      for (String shard : new String[] {"c/0/1", "c/1/0", "c/1/1"}) {
        List<String> of = made.stream().filter(r -> r.startsWith(shard + " ")).toList();
        assertTrue(of.size() >= 2, shard + ": " + of);
        assertTrue(of.get(0).endsWith(" last 132 bytes"), shard + " index first: " + of);
      }
    }
  }

  /** A failed or cut-off shard fails the read naming the shard's key and frees every body. */
  @Test
  void badShardFailsTheReadNamingItsKeyAndFreesEveryBody() {
    Path fixture = Fixtures.testdata().resolve("sharding/stores/end_zstd.zarr");
    for (int requests : new int[] {1, 4, 64}) {
      for (String slice : new String[] {"", "0:25, 3:40"}) {
        SlowRemoteStore store = new SlowRemoteStore(Stores.open(fixture.toString()));
        try (Zaro zaro =
            Zaro.open(store, ZaroOptions.defaults().withThreads(2).withIoConcurrency(requests))) {
          store.failing = "c/1/1";
          ZaroException e =
              assertThrows(ZaroException.class, () -> zaro.read("", slice, allocator));
          assertEquals(ErrorKind.IO, e.kind(), e.getMessage());
          assertTrue(e.getMessage().contains("c/1/1"), e.getMessage());
          assertEquals(0, allocator.getAllocatedMemory(), "bodies left after the failed read");
        }
        SlowRemoteStore cut = new SlowRemoteStore(Stores.open(fixture.toString()));
        try (Zaro zaro =
            Zaro.open(cut, ZaroOptions.defaults().withThreads(2).withIoConcurrency(requests))) {
          cut.truncated = "c/2/0";
          for (int to : new int[] {7, 300}) {
            cut.truncatedTo = to;
            ZaroException e =
                assertThrows(ZaroException.class, () -> zaro.read("", slice, allocator));
            if (to > 132) { // the 132-byte index is there: its checksum fails
              assertEquals(ErrorKind.CORRUPT, e.kind(), to + " bytes: " + e.getMessage());
            }
            assertTrue(e.getMessage().contains("c/2/0"), e.getMessage());
            assertEquals(0, allocator.getAllocatedMemory(), "bodies left after the failed read");
          }
        }
      }
    }
  }

  /**
   * The bytes budget covers what requests in flight will bring, not only what arrived: with room
   * for two chunks, no more than two requests are in flight, however many the count allows.
   */
  @Test
  void requestsInFlightStayWithinTheBytesBudget() throws IOException {
    Path fixture = Fixtures.testdata().resolve("core/stores/crc_only.zarr");
    byte[] want = Files.readAllBytes(Fixtures.testdata().resolve("core/expected/crc_only.0.bin"));
    // int64 chunks of 7 x 6: 336 decoded bytes, 340 stored (crc32c); 20 chunks
    for (long budget : new long[] {700, 1400}) {
      SlowRemoteStore store = new SlowRemoteStore(Stores.open(fixture.toString()));
      try (Zaro zaro =
              Zaro.open(
                  store,
                  ZaroOptions.defaults()
                      .withThreads(2)
                      .withIoConcurrency(64)
                      .withMaxBytesInFlight(budget));
          Slab slab = zaro.read("", "", allocator)) {
        byte[] got = new byte[(int) slab.byteSize()];
        slab.data().getBytes(0, got);
        assertArrayEquals(want, got);
        assertTrue(
            store.peakInFlight.get() <= budget / 336,
            store.peakInFlight.get() + " requests in flight with a budget of " + budget + " bytes");
      }
    }
  }

  /** An empty selection reads no chunk and returns an empty slab, locally and remotely. */
  @Test
  void emptySelectionsReadNothing() {
    for (String fixture :
        new String[] {"core/stores/crc_only.zarr", "sharding/stores/end_zstd.zarr"}) {
      for (boolean remote : new boolean[] {false, true}) {
        Store inner = Stores.open(Fixtures.testdata().resolve(fixture).toString());
        SlowRemoteStore slow = remote ? new SlowRemoteStore(inner) : null;
        try (Zaro zaro = Zaro.open(remote ? slow : inner, ZaroOptions.defaults().withThreads(2));
            Slab slab = zaro.read("", "0:0, :", allocator)) {
          assertEquals(0, slab.byteSize(), fixture);
          assertEquals(0, slab.shape()[0], fixture);
          if (remote) {
            assertTrue(slow.requests.isEmpty(), slow.requests.toString());
          }
        }
      }
    }
  }
}
