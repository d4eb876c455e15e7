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
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreCapabilities;
import dev.zaro.arrow.store.Stores;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
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
  static final class SlowRemoteStore implements Store {
    private final Store inner;
    private final ExecutorService io = Executors.newFixedThreadPool(8);
    private final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger peakInFlight = new AtomicInteger();
    volatile String failing;

    SlowRemoteStore(Store inner) {
      this.inner = inner;
    }

    @Override
    public Optional<ArrowBuf> get(String key, ByteRange range, BufferAllocator allocator) {
      if (key.equals(failing)) {
        throw new StoreException(ErrorKind.IO, "injected failure for '" + key + "'");
      }
      return inner.get(key, range, allocator);
    }

    @Override
    public CompletableFuture<Optional<ArrowBuf>> getAsync(
        String key, ByteRange range, BufferAllocator allocator, Executor executor) {
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
}
