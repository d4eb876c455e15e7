package dev.zaro.arrow.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.store.Stores;
import dev.zaro.arrow.store.TestHttpServer;
import dev.zaro.arrow.store.icechunk.IcechunkExpected;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The decoded-chunk cache: repeated reads (whole arrays, then slices served from whole chunks
 * cached by other reads) equal the writers' values for every Zarr v2 fixture; a chunk rewritten in
 * place is never served from the cache; a hit of a chunk whose store tells its version (a file
 * older than a few seconds, an Icechunk snapshot's chunk) fetches nothing; a changed metadata
 * document or a moved Icechunk branch misses in a cache shared across opens; eviction keeps the
 * cache within its capacity; closing the hierarchy frees the cache (its allocator would fail to
 * close otherwise).
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

  private byte[] read(Zaro zaro, String path, String slice, ReadStats stats) {
    try (Slab slab = zaro.read(path, slice, allocator, ReadOptions.DEFAULT.withStats(stats))) {
      byte[] got = new byte[(int) slab.byteSize()];
      slab.data().getBytes(0, got);
      return got;
    }
  }

  private static void age(Path dir, long ago) throws IOException {
    Fixtures.age(dir, ago);
  }

  @Test
  void aVersionedHitFetchesNothingAndARewriteMisses(@TempDir Path dir) throws IOException {
    Path store = copy(dir.resolve("v.zarr"));
    age(store, 3600);
    byte[] want;
    try (Zaro plain = Zaro.open(store.toString())) {
      want = read(plain, "", "");
    }
    try (Zaro zaro =
        Zaro.open(store.toString(), ZaroOptions.defaults().withCacheMemory(16 << 20))) {
      ReadStats first = new ReadStats();
      assertArrayEquals(want, read(zaro, "", "", first));
      assertTrue(first.bytesFetched() > 0, first.toString());
      ReadStats again = new ReadStats();
      assertArrayEquals(want, read(zaro, "", "", again));
      assertEquals(0, again.bytesFetched(), "a versioned hit fetches nothing: " + again);
      assertEquals(
          first.chunksDecoded(), zaro.cache().stats().hits(), zaro.cache().stats().toString());
      // chunk 0.0 overwritten in place (same file) with chunk 1.1's bytes, stamped in the past
      // again but at another time: its version changed, the entry is not served
      Files.write(store.resolve("0.0"), Files.readAllBytes(store.resolve("1.1")));
      Files.setLastModifiedTime(
          store.resolve("0.0"), FileTime.from(Instant.now().minusSeconds(60)));
      byte[] now;
      try (Zaro fresh = Zaro.open(store.toString())) {
        now = read(fresh, "", "");
      }
      assertNotEquals(Arrays.toString(want), Arrays.toString(now));
      ReadStats after = new ReadStats();
      assertArrayEquals(now, read(zaro, "", "", after));
      assertEquals(1, after.chunksDecoded(), "only the rewritten chunk is fetched: " + after);
    }
  }

  @Test
  void aChangedMetadataDocumentMissesInACacheSharedAcrossOpens(@TempDir Path dir)
      throws IOException {
    Path store = copy(dir.resolve("m.zarr"));
    age(store, 3600);
    try (ChunkCache cache = new ChunkCache(16 << 20)) {
      byte[] little;
      try (Zaro zaro = Zaro.open(Stores.open(store.toString()), ZaroOptions.defaults(), cache)) {
        little = read(zaro, "", "");
      }
      try (Zaro again = Zaro.open(Stores.open(store.toString()), ZaroOptions.defaults(), cache)) {
        ReadStats stats = new ReadStats();
        assertArrayEquals(little, read(again, "", "", stats));
        assertEquals(0, stats.bytesFetched(), "the reopened store shares the cache: " + stats);
      }
      // the same chunks, now declared big-endian: every value reads differently
      Path zarray = store.resolve(".zarray");
      Files.writeString(
          zarray, Files.readString(zarray).replace("\"<f4\"", "\">f4\""), StandardCharsets.UTF_8);
      Files.setLastModifiedTime(zarray, FileTime.from(Instant.now().minusSeconds(60)));
      byte[] big;
      try (Zaro plain = Zaro.open(store.toString())) {
        big = read(plain, "", "");
      }
      assertNotEquals(Arrays.toString(little), Arrays.toString(big));
      try (Zaro changed = Zaro.open(Stores.open(store.toString()), ZaroOptions.defaults(), cache)) {
        assertArrayEquals(big, read(changed, "", ""));
      }
    }
    assertEquals(0, allocator.getAllocatedMemory());
  }

  /** Local, and over loopback HTTP (a remote store: chunks fetched ahead of the decoders). */
  static Stream<String> over() {
    return Stream.of("local", "http");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("over")
  void aMovedIcechunkBranchMissesInACacheSharedAcrossOpens(String over, @TempDir Path dir)
      throws Exception {
    Path repo =
        Fixtures.copyTree(
            Fixtures.testdata().resolve("icechunk/split-repo-v1"), dir.resolve("split-repo-v1"));
    Map<String, JsonNode> want = new HashMap<>();
    for (JsonNode c : IcechunkExpected.doc().get("cases")) {
      if (c.get("repo").asText().equals("split-repo-v1")) {
        want.put(c.get("ref").toString(), c.get("arrays"));
      }
    }
    JsonNode atBranch = want.get("{\"branch\":\"main\"}");
    JsonNode atEarlier = want.get("{\"snapshot\":\"X8NA4KMB3XYEDM2FAJEG\"}");
    try (TestHttpServer server = new TestHttpServer(dir);
        ChunkCache cache = new ChunkCache(16 << 20)) {
      String location =
          (over.equals("local") ? "icechunk://" + repo : "icechunk+" + server.url("split-repo-v1"))
              + "?branch=main";
      for (String path : new String[] {"group1/split", "group1/small_chunks"}) {
        try (Zaro zaro = Zaro.open(Stores.open(location), ZaroOptions.defaults(), cache)) {
          IcechunkExpected.checkArray(zaro, path, atBranch.get(path), allocator, false);
        }
        try (Zaro again = Zaro.open(Stores.open(location), ZaroOptions.defaults(), cache)) {
          long hits = cache.stats().hits();
          int requests = server.paths.size();
          ReadStats stats = new ReadStats();
          read(again, path, "", stats);
          assertTrue(cache.stats().hits() > hits, path + ": " + cache.stats());
          assertEquals(0, stats.bytesFetched(), path + ": " + stats);
          // the reopened store loads the snapshot's manifests again, but fetches no chunk
          List<String> chunkRequests =
              server.paths.subList(requests, server.paths.size()).stream()
                  .filter(p -> p.contains("/chunks/"))
                  .toList();
          assertEquals(List.of(), chunkRequests, path + ": no request for cached chunks");
          IcechunkExpected.checkArray(again, path, atBranch.get(path), allocator, false);
        }
      }
      // the branch moves back one commit ("write data again": other values in the same chunks)
      Files.writeString(
          repo.resolve("refs/branch.main/ref.json"),
          "{\"snapshot\":\"X8NA4KMB3XYEDM2FAJEG\"}",
          StandardCharsets.UTF_8);
      try (Zaro moved = Zaro.open(Stores.open(location), ZaroOptions.defaults(), cache)) {
        for (String path : new String[] {"group1/split", "group1/small_chunks"}) {
          IcechunkExpected.checkArray(moved, path, atEarlier.get(path), allocator, false);
        }
      }
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
      assertNotEquals(Arrays.toString(first), Arrays.toString(now));
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

  /** The tensorstore-written array whose chunks [6, 16, 8] span its trailing dimensions. */
  private static Path contiguous(Path dir) throws IOException {
    Path store =
        Fixtures.copyTree(
            Fixtures.testdata().resolve("contiguous/stores/contiguous.zarr"),
            dir.resolve("c.zarr"));
    age(store, 3600);
    return store;
  }

  /** tiled.zarr: the same values in chunks [6, 8, 4], files an hour old (versioned). */
  private static Path tiled(Path dir) throws IOException {
    Path store =
        Fixtures.copyTree(
            Fixtures.testdata().resolve("contiguous/stores/tiled.zarr"), dir.resolve("t.zarr"));
    age(store, 3600);
    return store;
  }

  private static byte[] contiguousExpected(long fromRow, long toRow) throws IOException {
    byte[] all =
        Files.readAllBytes(Fixtures.testdata().resolve("contiguous/expected/contiguous.bin"));
    return Arrays.copyOfRange(all, (int) fromRow * 16 * 8 * 4, (int) toRow * 16 * 8 * 4);
  }

  /**
   * Chunks [6, 8, 4] of the same [24, 16, 8] float32 values (tiled.zarr, tensorstore) do not span
   * the trailing dimensions: once all are cached, a read is copied from the cache row by row across
   * the chunks it crosses. Selections cutting chunks in every dimension, with steps in the leading
   * ones and an index, equal tensorstore's values (sliced here), and each chunk a read touches
   * counts one hit; a read with one chunk not cached goes chunk by chunk, each chunk counted once.
   */
  @Test
  void cachedTiledChunksAreCopiedRowByRowWithTensorstoresValues(@TempDir Path dir)
      throws IOException {
    Path store = tiled(dir);
    float[] all = floats(contiguousExpected(0, 24));
    try (ChunkCache cache = new ChunkCache(1 << 20);
        Zaro zaro = Zaro.open(Stores.open(store.toString()), ZaroOptions.defaults(), cache)) {
      ZarrArray a = zaro.array("/");
      long[] shape = a.metadata().shape();
      try (Slab s = a.read(Selection.parse("0:12", shape), allocator, ReadOptions.DEFAULT)) {
        assertArrayEquals(contiguousExpected(0, 12), bytes(s));
      }
      assertEquals(16 * 12 / 24, cache.stats().misses(), "8 of the 16 chunks cached");
      // rows 0:13 cross chunk row 2, not cached: read chunk by chunk, 8 hits and 4 misses
      try (Slab s = a.read(Selection.parse("0:13", shape), allocator, ReadOptions.DEFAULT)) {
        assertArrayEquals(contiguousExpected(0, 13), bytes(s));
      }
      assertEquals(8, cache.stats().hits());
      assertEquals(12, cache.stats().misses());
      a.read(Selection.parse(":", shape), allocator, ReadOptions.DEFAULT).close();
      assertEquals(16, cache.stats().misses(), "all 16 cached");
      // {slice, chunks it touches}
      Object[][] cases = {
        {"3:21, 5:13, 1:7", 4 * 2 * 2},
        {"1:23:4, 0:16, 3:6", 4 * 2 * 2},
        {"7, 2:15:3, :", 1 * 2 * 2},
        {":, 9, 6", 4},
        {"22:24, 15:16, 0:8", 2},
      };
      for (Object[] c : cases) {
        String slice = (String) c[0];
        long hits = cache.stats().hits();
        Selection sel = Selection.parse(slice, shape);
        try (Slab s = a.read(sel, allocator, ReadOptions.DEFAULT)) {
          assertArrayEquals(expected(all, sel), floats(bytes(s)), slice);
        }
        assertEquals(hits + (int) c[1], cache.stats().hits(), slice + ": a hit per chunk");
        assertEquals(16, cache.stats().misses(), slice);
      }
    }
  }

  /**
   * An assembly ({@link ZarrArray#readAssembled}) over tiled chunks: not made while a chunk is not
   * cached; made, by copying cached chunks, once all are; then taken by reference, the one cached
   * buffer, with tensorstore's values, each chunk counted once per read. A chunk with a new version
   * makes the assembly a miss (never served stale); a different selection is a different assembly.
   */
  @Test
  void aSelectionAssembledFromCachedChunksIsKeptAndThenTakenByReference(@TempDir Path dir)
      throws IOException {
    Path store = tiled(dir);
    float[] all = floats(contiguousExpected(0, 24));
    try (ChunkCache cache = new ChunkCache(1 << 20);
        Zaro zaro = Zaro.open(Stores.open(store.toString()), ZaroOptions.defaults(), cache);
        BufferAllocator server = cache.newAllocator("server")) {
      ZarrArray a = zaro.array("/");
      long[] shape = a.metadata().shape();
      Selection sel = Selection.parse("3:21, 5:13, 1:7", shape); // 4 x 2 x 2 chunks
      assertNull(a.readAssembled(sel, server, ReadOptions.DEFAULT), "no chunk cached");
      a.read(Selection.parse("0:12", shape), allocator, ReadOptions.DEFAULT).close();
      assertNull(a.readAssembled(sel, server, ReadOptions.DEFAULT), "half of them cached");
      assertEquals(0, cache.stats().hits(), "nothing counted");
      a.read(Selection.parse(":", shape), allocator, ReadOptions.DEFAULT).close();
      ChunkCache.Stats before = cache.stats();
      long cached = cache.allocatedBytes();
      try (Slab made = a.readAssembled(sel, server, ReadOptions.DEFAULT)) {
        assertArrayEquals(expected(all, sel), floats(bytes(made)), "assembled");
        assertEquals(before.hits() + 16, cache.stats().hits(), "a hit per chunk, copied");
        assertEquals(before.byReference(), cache.stats().byReference());
        assertEquals(0, server.getAllocatedMemory(), "the assembly is the cache's memory");
        assertTrue(cache.allocatedBytes() >= cached + sel.size() * 4);
        try (Slab again = a.readAssembled(sel, server, ReadOptions.DEFAULT)) {
          assertEquals(made.data().memoryAddress(), again.data().memoryAddress(), "no copy");
          assertArrayEquals(expected(all, sel), floats(bytes(again)));
          assertEquals(before.hits() + 32, cache.stats().hits());
          assertEquals(before.byReference() + 16, cache.stats().byReference(), "by reference");
        }
      }
      assertEquals(before.misses(), cache.stats().misses(), "nothing decoded");
      Selection other = Selection.parse("3:21, 5:13, 1:8", shape);
      try (Slab s = a.readAssembled(other, server, ReadOptions.DEFAULT)) {
        assertArrayEquals(expected(all, other), floats(bytes(s)), "its own assembly");
      }
      // chunk (1, 1, 0) rewritten with a new version: the assembly's key names the old one
      Files.setLastModifiedTime(
          store.resolve("c/1/1/0"), FileTime.from(Instant.now().minusSeconds(60)));
      long byReference = cache.stats().byReference();
      assertNull(a.readAssembled(sel, server, ReadOptions.DEFAULT), "that chunk not cached");
      try (Slab s = a.read(sel, server, ReadOptions.DEFAULT)) {
        assertArrayEquals(expected(all, sel), floats(bytes(s)));
      }
      try (Slab s = a.readAssembled(sel, server, ReadOptions.DEFAULT)) {
        assertArrayEquals(expected(all, sel), floats(bytes(s)), "assembled anew");
      }
      assertEquals(byReference, cache.stats().byReference(), "the old assembly never served");
      assertEquals(0, server.getAllocatedMemory());
    }
  }

  /** Tensorstore's [24, 16, 8] values at the selection's indices, in C order. */
  private static float[] expected(float[] all, Selection sel) {
    List<Selection.Dim> dims = sel.dims();
    float[] out = new float[(int) sel.size()];
    int n = 0;
    for (long i = 0; i < dims.get(0).count(); i++) {
      for (long j = 0; j < dims.get(1).count(); j++) {
        for (long k = 0; k < dims.get(2).count(); k++) {
          long z = dims.get(0).start() + i * dims.get(0).step();
          long y = dims.get(1).start() + j * dims.get(1).step();
          long x = dims.get(2).start() + k * dims.get(2).step();
          out[n++] = all[(int) ((z * 16 + y) * 8 + x)];
        }
      }
    }
    return out;
  }

  private static float[] floats(byte[] b) {
    float[] f = new float[b.length / 4];
    ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(f);
    return f;
  }

  private static byte[] bytes(ArrowBuf buf) {
    byte[] b = new byte[(int) buf.capacity()];
    buf.getBytes(0, b);
    return b;
  }

  private static byte[] bytes(Slab slab) {
    byte[] got = new byte[(int) slab.byteSize()];
    slab.data().getBytes(0, got);
    return got;
  }

  @Test
  void aCachedContiguousRegionIsReadByReference(@TempDir Path dir) throws IOException {
    Path store = contiguous(dir);
    try (ChunkCache cache = new ChunkCache(1 << 20);
        Zaro zaro = Zaro.open(Stores.open(store.toString()), ZaroOptions.defaults(), cache);
        BufferAllocator server = cache.newAllocator("server")) {
      ZarrArray a = zaro.array("/");
      long[] shape = a.metadata().shape();
      assertNull(a.readCached(Selection.parse("6:12", shape), server), "not cached yet");
      try (Slab s = a.read(Selection.parse("6:12", shape), server, ReadOptions.DEFAULT)) {
        assertArrayEquals(contiguousExpected(6, 12), bytes(s));
      }
      long cached = cache.allocatedBytes();
      for (long[] rows : List.of(new long[] {6, 12}, new long[] {7, 9}, new long[] {8, 9})) {
        String slice = rows[0] + ":" + rows[1];
        try (Slab s = a.readCached(Selection.parse(slice, shape), server)) {
          assertNotNull(s, slice);
          // no copy: the server's allocator holds nothing, the slab is the cache entry's memory
          assertEquals(0, server.getAllocatedMemory(), slice);
          assertEquals(cached, cache.allocatedBytes(), slice);
          assertArrayEquals(contiguousExpected(rows[0], rows[1]), bytes(s), slice);
        }
      }
      try (Slab one = a.readCached(Selection.parse("6:12", shape), server);
          Slab two = a.readCached(Selection.parse("7:12", shape), server)) {
        // both are the one cached buffer: the same address, a row (512 bytes) apart
        assertEquals(one.data().memoryAddress() + 16 * 8 * 4, two.data().memoryAddress());
      }
      try (Slab s = a.readCached(Selection.parse("8", shape), server)) {
        assertArrayEquals(new long[] {16, 8}, s.shape(), "an index drops the dimension");
        assertArrayEquals(contiguousExpected(8, 9), bytes(s));
      }
      // not contiguous in the chunk, two chunks, a step: read instead
      for (String slice : List.of("6:12, 0:8", "6:13", "6:12:2")) {
        assertNull(a.readCached(Selection.parse(slice, shape), server), slice);
      }
      // an allocator of another root takes it by reference too: the memory stays the cache's
      try (Slab s = a.readCached(Selection.parse("6:12", shape), allocator)) {
        assertArrayEquals(contiguousExpected(6, 12), bytes(s));
        assertEquals(0, allocator.getAllocatedMemory());
      }
      assertNull(a.readCached(Selection.parse("0:6", shape), server), "chunk 0 not cached");
    }
  }

  @Test
  void anEntryEvictedWhileHeldByReferenceStaysValidUntilClosed(@TempDir Path dir)
      throws IOException {
    Path store = contiguous(dir);
    // four chunks of 3 KiB (4 KiB buffers) fill it; a fifth entry evicts the least recently used
    try (ChunkCache cache = new ChunkCache(4 * 4096);
        Zaro zaro = Zaro.open(Stores.open(store.toString()), ZaroOptions.defaults(), cache);
        BufferAllocator server = cache.newAllocator("server")) {
      ZarrArray a = zaro.array("/");
      long[] shape = a.metadata().shape();
      a.read(Selection.parse("0:6", shape), server, ReadOptions.DEFAULT).close();
      try (Slab held = a.readCached(Selection.parse("0:6", shape), server)) {
        assertNotNull(held);
        a.read(Selection.parse("6:24", shape), server, ReadOptions.DEFAULT).close();
        assertEquals(0, cache.stats().evictions());
        // chunk 1 rewritten (a new version): its new entry evicts chunk 0, which is held
        Files.setLastModifiedTime(
            store.resolve("c/1/0/0"), FileTime.from(Instant.now().minusSeconds(60)));
        a.read(Selection.parse("6:12", shape), server, ReadOptions.DEFAULT).close();
        assertEquals(1, cache.stats().evictions());
        assertNull(a.readCached(Selection.parse("0:6", shape), server), "evicted");
        // the held bytes are still the cache's to account for, and still the values
        assertEquals(0, server.getAllocatedMemory());
        assertEquals(5 * 4096, cache.allocatedBytes(), "four entries and the held one");
        assertArrayEquals(contiguousExpected(0, 6), bytes(held));
      }
      assertEquals(4 * 4096, cache.allocatedBytes(), "freed when the last reference closed");
    }
  }

  /**
   * A server sends a cached region by reference: the batch's vectors, under the request's
   * allocator, retain it, and gRPC holds it until written. The request's allocator closes once its
   * own memory is back, possibly before gRPC lets go. With Arrow's ledgers that allocator then held
   * a ledger of the cached memory, and evicting the entry, or closing the cache, moved the memory's
   * accounting to it: "Attempting operation on allocator when allocator is closed".
   */
  @Test
  void aRegionATransportHoldsOutlivesTheRequestsAllocatorEvictionAndTheCachesClose(
      @TempDir Path dir) throws Exception {
    Path store = contiguous(dir);
    ChunkCache cache = new ChunkCache(4 * 4096);
    ArrowBuf wire;
    ArrowBuf late;
    try (Zaro zaro = Zaro.open(Stores.open(store.toString()), ZaroOptions.defaults(), cache)) {
      ZarrArray a = zaro.array("/");
      long[] shape = a.metadata().shape();
      a.read(Selection.parse("0:12", shape), allocator, ReadOptions.DEFAULT).close();
      try (BufferAllocator request = cache.newAllocator("do_get")) {
        wire = sentByReference(a, "0:6", request);
        late = sentByReference(a, "6:12", request);
        assertEquals(0, request.getAllocatedMemory(), "nothing of the request's own is left");
      } // closes while the transport still holds both
      a.read(Selection.parse("12:24", shape), allocator, ReadOptions.DEFAULT).close();
      for (String chunk : List.of("c/2/0/0", "c/3/0/0")) { // new versions: two new entries
        Files.setLastModifiedTime(
            store.resolve(chunk), FileTime.from(Instant.now().minusSeconds(60)));
      }
      a.read(Selection.parse("12:24", shape), allocator, ReadOptions.DEFAULT).close();
      assertEquals(2, cache.stats().evictions(), "both held entries evicted");
      assertArrayEquals(contiguousExpected(0, 6), bytes(wire), "still the values");
      wire.getReferenceManager().release();
      assertEquals(5 * 4096, cache.allocatedBytes(), "four entries and the region still held");
    }
    // the cache's close waits for the transport to let go of the last region
    Thread closer = new Thread(cache::close, "closer");
    closer.start();
    while (closer.getState() != Thread.State.TIMED_WAITING) {
      Thread.onSpinWait(); // close has freed the entries and waits for the region
    }
    assertArrayEquals(contiguousExpected(6, 12), bytes(late));
    late.getReferenceManager().release();
    closer.join();
    assertEquals(0, cache.allocatedBytes());
  }

  /** The region {@code slice} as a server sends it: in a vector, then held by the transport. */
  private static ArrowBuf sentByReference(ZarrArray a, String slice, BufferAllocator request) {
    try (Slab s = a.readCached(Selection.parse(slice, a.metadata().shape()), request);
        Float4Vector v = new Float4Vector("v", request)) {
      assertNotNull(s, slice);
      int n = (int) (s.byteSize() / 4);
      try (ArrowBuf validity = request.buffer(BitVectorHelper.getValidityBufferSize(n))) {
        validity.setOne(0, validity.capacity());
        v.loadFieldBuffers(new ArrowFieldNode(n, 0), List.of(validity, s.data()));
      }
      ArrowBuf wire = v.getDataBuffer();
      wire.getReferenceManager().retain(); // what gRPC does until the batch is written
      return wire;
    }
  }
}
