package dev.zaro.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.zaro.arrow.AllocatorTest;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.Test;

/** A block buffer is handed out again only once every other holder has let go of it. */
class BlockBuffersTest extends AllocatorTest {

  @Test
  void aBufferIsReusedOnlyWhenNobodyElseHoldsIt() {
    try (BlockBuffers pool = new BlockBuffers(2)) {
      assertNull(pool.acquire(100), "an empty pool has nothing to hand out");
      ArrowBuf first = allocator.buffer(1024); // a block read into a fresh buffer
      pool.adopt(first);
      ArrowBuf batch = first.slice(0, 512); // a batch the transport still holds
      batch.getReferenceManager().retain();
      assertNull(pool.acquire(100), "the slab and the batch still hold it");
      first.close(); // the slab
      assertNull(pool.acquire(100), "the batch still holds it");
      batch.close(); // written
      assertNull(pool.acquire(2048), "too small for this block");
      ArrowBuf again = pool.acquire(1024);
      assertSame(first, again);
      assertNull(pool.acquire(100), "handed out already");
      again.close();
      assertSame(first, pool.acquire(10));
      first.close();
    }
    assertEquals(0, allocator.getAllocatedMemory());
  }

  @Test
  void thePoolKeepsAtMostItsSizeAndClosingGivesUpItsReferences() {
    ArrowBuf held;
    try (BlockBuffers pool = new BlockBuffers(2)) {
      ArrowBuf a = allocator.buffer(64);
      ArrowBuf b = allocator.buffer(64);
      ArrowBuf c = allocator.buffer(64);
      pool.adopt(a);
      pool.adopt(b);
      pool.adopt(c); // the pool is full: c is freed when its holder closes it
      assertEquals(2, pool.size());
      c.close();
      assertEquals(128, allocator.getAllocatedMemory());
      b.close();
      held = a; // still being sent when the stream ends
    }
    assertEquals(64, allocator.getAllocatedMemory(), "closing frees what nobody else holds");
    held.close();
    assertEquals(0, allocator.getAllocatedMemory());
  }

  @Test
  void aClosedPoolHandsOutAndKeepsNothing() {
    BlockBuffers pool = new BlockBuffers(2);
    pool.close();
    try (ArrowBuf a = allocator.buffer(64)) {
      pool.adopt(a);
      assertEquals(0, pool.size());
      assertNull(pool.acquire(1));
    }
    assertEquals(0, allocator.getAllocatedMemory());
  }
}
