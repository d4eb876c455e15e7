package dev.zaro.arrow.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The decoded-chunk cache: repeated reads (whole arrays, then slices served from whole chunks
 * cached by other reads) equal the writers' values for every Zarr v2 fixture; a chunk rewritten in
 * place is never served from the cache; eviction keeps the cache within its capacity; closing the
 * hierarchy frees the cache (its allocator would fail to close otherwise).
 */
class ChunkCacheTest extends AllocatorTest {

  static Stream<Arguments> reads() throws IOException {
    return V2FixtureReadTest.reads();
  }

  private byte[] read(Zaro zaro, String path, String slice) {
    try (Slab slab = zaro.read(path, slice, allocator)) {
      byte[] got = new byte[(int) slab.byteSize()];
      slab.data().getBytes(0, got);
      return got;
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("reads")
  void cachedReadsEqualTheWriter(String name, JsonNode c, String slice, long[] shape, Path expected)
      throws IOException {
    byte[] want = Files.readAllBytes(expected);
    String store = V2FixtureReadTest.dir().resolve(c.get("store").asText()).toString();
    String path = c.get("path").asText();
    try (Zaro zaro =
        Zaro.open(store, ZaroOptions.defaults().withThreads(2).withCacheMemory(64 << 20))) {
      read(zaro, path, ""); // fills the cache with whole chunks
      ChunkCache.Stats filled = zaro.cache().stats();
      assertArrayEquals(want, read(zaro, path, slice), name + " (cached)");
      assertArrayEquals(want, read(zaro, path, slice), name + " (cached again)");
      ChunkCache.Stats stats = zaro.cache().stats();
      // every chunk present was decoded by the fill: the slices' lookups all hit
      assertEquals(filled.misses(), stats.misses(), name + ": " + filled + " then " + stats);
      read(zaro, path, ""); // and the whole array again: every present chunk hits
      assertTrue(zaro.cache().stats().hits() - stats.hits() >= filled.misses(), name);
      assertTrue(stats.bytes() <= stats.capacity(), stats.toString());
    }
  }

  private static Path copy(Path dir) throws IOException {
    return Fixtures.copyTree(V2FixtureReadTest.dir().resolve("stores/blosc_zstd_0.zarr"), dir);
  }

  @Test
  void aChunkRewrittenInPlaceIsNeverServedStale(@TempDir Path dir) throws IOException {
    Path store = copy(dir.resolve("a.zarr"));
    try (Zaro zaro =
        Zaro.open(store.toString(), ZaroOptions.defaults().withCacheMemory(16 << 20))) {
      byte[] first = read(zaro, "", "0:8, 0:7"); // chunk 0.0
      assertEquals(1, zaro.cache().stats().misses());
      assertArrayEquals(first, read(zaro, "", "0:8, 0:7"));
      assertEquals(1, zaro.cache().stats().hits());
      // another chunk's bytes at chunk 0.0's key: same metadata, different values
      Files.copy(store.resolve("1.1"), store.resolve("0.0"), StandardCopyOption.REPLACE_EXISTING);
      byte[] now = read(zaro, "", "0:8, 0:7");
      try (Zaro fresh = Zaro.open(store.toString())) {
        assertArrayEquals(read(fresh, "", "0:8, 0:7"), now);
      }
      assertNotEquals(java.util.Arrays.toString(first), java.util.Arrays.toString(now));
      assertEquals(1, zaro.cache().stats().hits(), "the rewritten chunk missed");
      assertArrayEquals(now, read(zaro, "", "0:8, 0:7"));
      assertEquals(2, zaro.cache().stats().hits(), "and is cached from its new bytes");
    }
  }

  @Test
  void evictionKeepsTheCapacityAndValues(@TempDir Path dir) throws IOException {
    Path store = copy(dir.resolve("b.zarr"));
    byte[] want;
    try (Zaro plain = Zaro.open(store.toString())) {
      want = read(plain, "", "");
    }
    // 12 chunks of 8 x 7 float32 (224 bytes decoded, plus their stored bytes): room for a few
    long capacity = 2400;
    try (Zaro zaro =
        Zaro.open(store.toString(), ZaroOptions.defaults().withCacheMemory(capacity))) {
      for (int i = 0; i < 3; i++) {
        assertArrayEquals(want, read(zaro, "", ""), "pass " + i);
        ChunkCache.Stats stats = zaro.cache().stats();
        assertTrue(stats.bytes() <= capacity, stats.toString());
        assertTrue(zaro.cache().allocatedBytes() <= 2 * capacity, stats.toString());
      }
      assertTrue(zaro.cache().stats().evictions() > 0, zaro.cache().stats().toString());
    }
  }
}
