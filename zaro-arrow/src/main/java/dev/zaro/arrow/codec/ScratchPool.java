package dev.zaro.arrow.codec;

import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Decode buffers reused across reads of one open hierarchy, so repeated reads stop paying for
 * fresh allocations and page faults. The memory is zaro's own (a private allocator), never part
 * of a read's result; at most {@code maxPooled} idle buffers are kept. Thread-safe.
 */
public final class ScratchPool implements AutoCloseable {
  private final BufferAllocator allocator = new RootAllocator();
  private final ConcurrentLinkedDeque<Scratch> idle = new ConcurrentLinkedDeque<>();
  private final AtomicInteger idleCount = new AtomicInteger();
  private final int maxPooled;

  public ScratchPool(int maxPooled) {
    this.maxPooled = maxPooled;
  }

  /** A scratch for one worker; give it back with {@link #release}. */
  public Scratch borrow() {
    Scratch s = idle.pollFirst();
    if (s != null) {
      idleCount.decrementAndGet();
      return s;
    }
    return new Scratch(allocator);
  }

  public void release(Scratch scratch) {
    if (idleCount.incrementAndGet() <= maxPooled) {
      idle.offerFirst(scratch);
    } else {
      idleCount.decrementAndGet();
      scratch.close();
    }
  }

  /** Bytes held now, and the most ever held, by pooled buffers. */
  public long allocatedBytes() {
    return allocator.getAllocatedMemory();
  }

  public long peakBytes() {
    return allocator.getPeakMemoryAllocation();
  }

  @Override
  public void close() {
    Scratch s;
    while ((s = idle.pollFirst()) != null) {
      s.close();
    }
    allocator.close();
  }
}
