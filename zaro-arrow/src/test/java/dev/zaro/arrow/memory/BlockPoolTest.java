package dev.zaro.arrow.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.junit.jupiter.api.Test;

/**
 * Freed blocks are handed out again, live ones never; buffers count against the caller's allocator;
 * the pool stays within its size and frees what it holds when closed or left idle.
 */
class BlockPoolTest extends AllocatorTest {
  private static final long MIB = 1L << 20;

  @Test
  void aFreedBlockIsHandedOutAgainForTheSameSize() {
    try (BlockPool pool = new BlockPool(64 * MIB, 60_000)) {
      long first;
      try (ArrowBuf a = pool.buffer(allocator, 2 * MIB)) {
        assertEquals(2 * MIB, a.capacity());
        assertEquals(2 * MIB, allocator.getAllocatedMemory(), "counted by the caller's allocator");
        first = a.memoryAddress();
        a.setLong(0, 42);
      }
      assertEquals(0, allocator.getAllocatedMemory());
      assertEquals(2 * MIB, pool.idleBytes());
      try (ArrowBuf other = pool.buffer(allocator, 3 * MIB)) {
        assertNotEquals(first, other.memoryAddress(), "another size gets another block");
      }
      try (ArrowBuf b = pool.buffer(allocator, 2 * MIB)) {
        assertEquals(first, b.memoryAddress());
        assertEquals(1, pool.reused());
        assertEquals(3 * MIB, pool.idleBytes(), "the 3 MiB block is still kept");
        b.setLong(2 * MIB - 8, 7); // usable to its last byte
      }
      assertEquals(5 * MIB, pool.idleBytes());
    }
    assertEquals(0, allocator.getAllocatedMemory());
  }

  @Test
  void aBlockWithALiveReferenceIsNeverHandedOut() {
    try (BlockPool pool = new BlockPool(64 * MIB, 60_000);
        BufferAllocator child = allocator.newChildAllocator("child", 0, Long.MAX_VALUE)) {
      ArrowBuf a = pool.buffer(allocator, 2 * MIB);
      ArrowBuf b = pool.buffer(allocator, 2 * MIB);
      assertNotEquals(a.memoryAddress(), b.memoryAddress());
      long addressA = a.memoryAddress();
      a.getReferenceManager().retain();
      a.close(); // one reference left
      ArrowBuf slice = b.slice(MIB, MIB);
      slice.getReferenceManager().retain();
      b.close(); // the slice's reference holds the block
      ArrowBuf moved = a.getReferenceManager().transferOwnership(a, child).getTransferredBuffer();
      a.close(); // the block lives on in the child allocator
      assertEquals(0, pool.idleBytes());
      Set<Long> live = new HashSet<>(List.of(addressA, slice.memoryAddress() - MIB));
      try (ArrowBuf c = pool.buffer(allocator, 2 * MIB)) {
        assertFalse(live.contains(c.memoryAddress()), "a live block was handed out again");
      }
      assertEquals(2 * MIB, pool.idleBytes(), "only c's block is free");
      moved.close();
      slice.close();
      assertEquals(6 * MIB, pool.idleBytes());
    }
  }

  @Test
  void pastTheAllocatorsLimitFailsWithoutTakingABlock() {
    try (BlockPool pool = new BlockPool(64 * MIB, 60_000);
        BufferAllocator limited = allocator.newChildAllocator("limited", 0, 3 * MIB);
        ArrowBuf a = pool.buffer(limited, 2 * MIB)) {
      long taken = pool.fresh() + pool.reused();
      assertThrows(OutOfMemoryException.class, () -> pool.buffer(limited, 2 * MIB));
      assertEquals(taken, pool.fresh() + pool.reused(), "no block taken for a refused buffer");
      assertEquals(2 * MIB, limited.getAllocatedMemory());
      assertEquals(0, pool.idleBytes());
      assertTrue(a.capacity() > 0);
    }
  }

  @Test
  void keepsAtMostItsCapacityOldestFirst() {
    try (BlockPool pool = new BlockPool(4 * MIB, 60_000)) {
      ArrowBuf a = pool.buffer(allocator, 2 * MIB);
      ArrowBuf b = pool.buffer(allocator, 2 * MIB);
      ArrowBuf c = pool.buffer(allocator, 2 * MIB);
      long addressB = b.memoryAddress();
      long addressC = c.memoryAddress();
      a.close();
      b.close();
      c.close(); // a, the oldest, is freed to make room
      assertEquals(4 * MIB, pool.idleBytes());
      try (ArrowBuf d = pool.buffer(allocator, 2 * MIB);
          ArrowBuf e = pool.buffer(allocator, 2 * MIB)) {
        assertEquals(addressC, d.memoryAddress(), "the most recently freed first");
        assertEquals(addressB, e.memoryAddress());
      }
      long before = pool.fresh() + pool.reused();
      try (ArrowBuf big = pool.buffer(allocator, 8 * MIB);
          ArrowBuf small = pool.buffer(allocator, MIB - 1)) {
        assertEquals(
            before, pool.fresh() + pool.reused(), "past the capacity or below the minimum");
        assertEquals(8 * MIB, big.capacity());
        assertTrue(small.capacity() >= MIB - 1);
      }
      assertEquals(4 * MIB, pool.idleBytes());
    }
  }

  @Test
  void aClosedPoolFreesWhatItHoldsAndWhatComesBackLater() {
    BlockPool pool = new BlockPool(64 * MIB, 60_000);
    ArrowBuf kept = pool.buffer(allocator, 2 * MIB);
    pool.buffer(allocator, 2 * MIB).close();
    assertEquals(2 * MIB, pool.idleBytes());
    pool.close();
    assertEquals(0, pool.idleBytes());
    kept.close();
    assertEquals(0, pool.idleBytes());
    try (ArrowBuf after = pool.buffer(allocator, 2 * MIB)) {
      assertEquals(2 * MIB, after.capacity(), "still hands out fresh memory");
    }
    assertEquals(0, pool.idleBytes());
  }

  @Test
  void blocksLeftIdleAreFreed() throws InterruptedException {
    try (BlockPool pool = new BlockPool(64 * MIB, 20)) {
      pool.buffer(allocator, 2 * MIB).close();
      // waits for the expiry, however slow the machine: no time is asserted
      while (pool.idleBytes() > 0) {
        Thread.sleep(10);
      }
      pool.buffer(allocator, 2 * MIB).close();
      pool.trim();
      assertEquals(0, pool.idleBytes());
    }
  }

  /**
   * Threads taking and freeing blocks of two sizes at once: each writes its own mark over its block
   * and finds it unchanged before freeing it, so no block is ever shared by two live buffers.
   */
  @Test
  void concurrentUsersNeverShareABlock() throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try (BlockPool pool = new BlockPool(16 * MIB, 60_000)) {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        long mark = 0x5A5A_0000L + t;
        long size = (t % 2 + 1) * MIB;
        done.add(
            threads.submit(
                () -> {
                  for (int i = 0; i < 300; i++) {
                    try (ArrowBuf buf = pool.buffer(allocator, size)) {
                      for (long at = 0; at < size; at += 64 * 1024) {
                        buf.setLong(at, mark + i);
                      }
                      for (long at = 0; at < size; at += 64 * 1024) {
                        assertEquals(mark + i, buf.getLong(at), "a block shared by two users");
                      }
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
      assertTrue(pool.reused() > 0);
      assertTrue(pool.idleBytes() <= 16 * MIB);
    } finally {
      threads.shutdownNow();
    }
    assertEquals(0, allocator.getAllocatedMemory());
  }

  @Test
  void theSharedPoolsSizeFromItsProperty() {
    assertEquals(1L << 30, BlockPool.configuredCapacity(null));
    assertEquals(0, BlockPool.configuredCapacity("0"));
    assertEquals(512L << 20, BlockPool.configuredCapacity("512m"));
    assertEquals(2L << 30, BlockPool.configuredCapacity(" 2G "));
    assertEquals(1000, BlockPool.configuredCapacity("1000"));
    assertEquals(1L << 30, BlockPool.configuredCapacity("lots"));
  }
}
