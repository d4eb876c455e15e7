package dev.zaro.arrow.exec;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One read's concurrency budget: {@code parallelism} threads (the caller and its helpers on {@code
 * executor}), split between chunks and work inside a chunk. A thread of the read's chunk loop holds
 * one unit ({@link #enter()}/{@link #exit()}) from the moment it is asked to start until no chunk
 * is left for it ({@link WorkRunner#run(int, java.util.function.IntConsumer, Executor, int,
 * Control, Budget)}); work inside a chunk (a shard's inner chunks, a blosc chunk's blocks) may use
 * only the {@link #idle()} rest, because more runnable threads than cores would leave a read
 * waiting for a preempted helper. Work inside a chunk is also {@link #share}d: a thread of the read
 * that runs out of chunks ({@link #helpOut}) takes unclaimed pieces of it, so one large shard no
 * longer finishes alone while its neighbour's thread waits. Thread-safe.
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

  /** A thread joins the read's chunks (or the work inside one). */
  public void enter() {
    running.incrementAndGet();
  }

  /** A thread is done with the read's chunks (or the work inside one). */
  public void exit() {
    running.decrementAndGet();
  }

  /** Threads of the budget not running a chunk now: helpers for work inside a chunk. */
  public int idle() {
    return executor == null ? 0 : Math.max(0, parallelism - running.get());
  }

  /** Work inside chunks that threads of this read may still take: see {@link #share}. */
  private final ConcurrentLinkedQueue<Shared> open = new ConcurrentLinkedQueue<>();

  /**
   * Runs {@code tasks} (work inside one chunk) on the calling thread, on up to {@code helpersNow}
   * threads of {@code helperExecutor} started now (the idle part of the budget), and on any thread
   * of this read that runs out of chunks meanwhile ({@link #helpOut}). Returns when every task has
   * finished.
   *
   * @throws RuntimeException the first task failure, as is (an Error likewise)
   */
  public void share(List<Runnable> tasks, Executor helperExecutor, int helpersNow) {
    Shared s = new Shared(tasks);
    open.add(s);
    try {
      int started = helperExecutor == null ? 0 : Math.min(helpersNow, tasks.size() - 1);
      for (int h = 0; h < started; h++) {
        try {
          helperExecutor.execute(s::pull);
        } catch (RejectedExecutionException e) {
          break;
        }
      }
      s.pull();
    } finally {
      open.remove(s);
    }
    s.await();
  }

  /**
   * Takes unclaimed tasks of {@link #share}d work until none is left: what a thread of this read
   * does once no chunk is left for it. Never throws: failures go to the work's owner.
   */
  public void helpOut() {
    if (open.isEmpty()) {
      return;
    }
    enter(); // a helping thread is busy: idle() must not offer it again meanwhile
    try {
      for (Shared s = open.peek(); s != null; s = open.peek()) {
        if (!s.pull()) {
          open.remove(s);
        }
      }
    } finally {
      exit();
    }
  }

  /** Tasks pulled from one counter by their owner and any helper; the owner awaits them all. */
  private static final class Shared {
    private final List<Runnable> tasks;
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger done = new AtomicInteger();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    Shared(List<Runnable> tasks) {
      this.tasks = tasks;
    }

    /** Runs unclaimed tasks; false when there were none left to claim. */
    boolean pull() {
      boolean any = false;
      int n = tasks.size();
      int i;
      while ((i = next.getAndIncrement()) < n) {
        any = true;
        try {
          if (failure.get() == null) {
            tasks.get(i).run();
          }
        } catch (Throwable t) {
          failure.compareAndSet(null, t);
        }
        if (done.incrementAndGet() == n) {
          synchronized (this) {
            notifyAll();
          }
        }
      }
      return any;
    }

    void await() {
      Spin.until(() -> done.get() >= tasks.size());
      boolean interrupted = false;
      synchronized (this) {
        while (done.get() < tasks.size()) {
          try {
            wait();
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      WorkRunner.rethrow(failure.get());
    }
  }
}
