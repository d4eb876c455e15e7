package dev.zaro.arrow.read;

import static dev.zaro.arrow.Threads.join;
import static dev.zaro.arrow.Threads.started;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.arrow.memory.ArrowBuf;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.Test;

/**
 * Model checking of the reference counts of the chunk cache's regions ({@link ChunkCache#region}):
 * Lincheck explores the interleavings of threads holding and closing regions of one cached chunk
 * (up to {@link #INVOCATIONS}, in the same order every run) and fails with the interleaving that
 * breaks an assertion. See docs/ARCHITECTURE.md, "Concurrency, tested".
 */
class ChunkCacheRegionLincheckTest {
  private static final int INVOCATIONS = 300;
  private static final int BYTES = 16;

  private static final ChunkCache.Key KEY = new ChunkCache.Key("store", "a", "c/0", null, "v1");

  /** Puts a chunk of {@link #BYTES} bytes under {@link #KEY}; returns it. */
  private static ArrowBuf put(ChunkCache cache) {
    ChunkCache.Pending p = cache.reserve(KEY, null, BYTES);
    assertNotNull(p);
    cache.put(KEY, p);
    return p.decoded();
  }

  /** A thread that holds its region (the chunk's memory still allocated) and then closes it. */
  private static Thread holder(ArrowBuf region, ArrowBuf chunk) {
    return started(
        () -> {
          assertTrue(chunk.getReferenceManager().getRefCount() > 1, "a held region's memory freed");
          assertEquals(BYTES, region.capacity());
          region.close();
        });
  }

  /**
   * Invariants: a region's count drops to zero exactly once, and only then gives back its one
   * reference to the cached chunk, so the chunk's memory is never freed while a region of it is
   * referenced, nor kept after. Two threads each hold a region of the chunk (one a region of its
   * own, one a buffer retained from the reader's region, as a transport retains what it sends) and
   * close it while the reader closes its own: while any is held the chunk has a reference beyond
   * the cache's entry, and after all are closed exactly the entry's one is left (a region released
   * twice would leave none: the entry's memory freed under it). The chunk is cached once, outside
   * the explored scenarios (Lincheck 3.7 hangs on Arrow's allocation under its scheduler); the
   * cache's close at the end then fails on a region still counted or memory not freed.
   */
  @Test
  void aRegionGivesBackItsReferenceToTheChunkExactlyOnceAfterItsLastHolder() {
    try (ChunkCache cache = new ChunkCache(4 * BYTES * 4)) {
      ArrowBuf chunk = put(cache);
      Lincheck.runConcurrentTest(
          INVOCATIONS,
          () -> {
            ArrowBuf mine = cache.region(KEY, 0, BYTES, null);
            ArrowBuf other = cache.region(KEY, 0, BYTES, null);
            assertNotNull(mine);
            assertNotNull(other);
            ArrowBuf sent = mine.getReferenceManager().retain(mine, null);
            Thread a = holder(other, chunk);
            Thread b = holder(sent, chunk);
            assertTrue(chunk.getReferenceManager().getRefCount() > 1, "the reader's region freed");
            mine.close();
            join(a, b);
            assertEquals(1, chunk.getReferenceManager().getRefCount(), "the chunk's references");
          });
    }
  }
}
