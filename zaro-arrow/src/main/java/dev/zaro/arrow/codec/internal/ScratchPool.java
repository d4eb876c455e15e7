package dev.zaro.arrow.codec.internal;

import dev.zaro.arrow.codec.Scratch;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Worker decode contexts reused across the reads of one open hierarchy, so repeated reads stop
 * paying for fresh decoder state (a zstd context costs tens of microseconds). Only state is pooled:
 * a borrowed scratch takes its buffers from the read's allocator and gives them back on {@link
 * #release}, so every byte a read uses counts against the caller's limit. At most {@code maxPooled}
 * idle contexts are kept. Thread-safe.
 */
public final class ScratchPool implements AutoCloseable {
  private final ConcurrentLinkedDeque<Scratch> idle = new ConcurrentLinkedDeque<>();
  private final AtomicInteger idleCount = new AtomicInteger();
  private final int maxPooled;

  public ScratchPool(int maxPooled) {
    this.maxPooled = maxPooled;
  }

  /**
   * A scratch for one worker of a read, its buffers from {@code allocator} and its helpers as
   * {@link Scratch#bind} takes them (null, null: none); give it back with {@link #release} before
   * the read's allocator closes.
   */
  public Scratch borrow(
      BufferAllocator allocator, IntSupplier idleHelpers, Executor helperExecutor) {
    Scratch s = idle.pollFirst();
    if (s != null) {
      idleCount.decrementAndGet();
      return s.bind(allocator, idleHelpers, helperExecutor);
    }
    return new Scratch(allocator).bind(allocator, idleHelpers, helperExecutor);
  }

  /** Takes a scratch back: its buffers return to the read's allocator, its state is kept. */
  public void release(Scratch scratch) {
    scratch.releaseBuffers();
    scratch.bind(null, null, null);
    if (idleCount.incrementAndGet() <= maxPooled) {
      idle.offerFirst(scratch);
    } else {
      idleCount.decrementAndGet();
      scratch.close();
    }
  }

  @Override
  public void close() {
    Scratch s;
    while ((s = idle.pollFirst()) != null) {
      s.close();
    }
  }
}
