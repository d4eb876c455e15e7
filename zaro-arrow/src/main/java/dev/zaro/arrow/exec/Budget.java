package dev.zaro.arrow.exec;

import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One read's concurrency budget: {@code parallelism} threads (the caller and its helpers on {@code
 * executor}), split between chunks and work inside a chunk. A thread running a chunk holds one unit
 * ({@link #enter()}/{@link #exit()}); work inside a chunk (a shard's inner chunks, a blosc chunk's
 * blocks) may use only the {@link #idle()} rest, because more runnable threads than cores would
 * leave a read waiting for a preempted helper. Thread-safe.
 */
public final class Budget {
  private final Executor executor;
  private final int parallelism;
  private final AtomicInteger running = new AtomicInteger();

  public Budget(Executor executor, int parallelism) {
    this.executor = executor;
    this.parallelism = Math.max(1, parallelism);
  }

  public Executor executor() {
    return executor;
  }

  public int parallelism() {
    return parallelism;
  }

  /** A thread starts a chunk. */
  public void enter() {
    running.incrementAndGet();
  }

  /** A thread is done with its chunk. */
  public void exit() {
    running.decrementAndGet();
  }

  /** Threads of the budget not running a chunk now: helpers for work inside a chunk. */
  public int idle() {
    return executor == null ? 0 : Math.max(0, parallelism - running.get());
  }
}
