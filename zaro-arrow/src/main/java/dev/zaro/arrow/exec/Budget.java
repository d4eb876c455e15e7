package dev.zaro.arrow.exec;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

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

  /** A budget of {@code parallelism} threads (at least one) of {@code executor}. */
  public Budget(Executor executor, int parallelism) {
    this.executor = executor;
    this.parallelism = Math.max(1, parallelism);
  }

  /** The executor the budget's tasks run on. */
  public Executor executor() {
    return executor;
  }

  /** The most tasks of this budget that run at once. */
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
  private final ConcurrentLinkedQueue<PulledTasks> open = new ConcurrentLinkedQueue<>();

  /**
   * Runs {@code tasks} (work inside one chunk) on the calling thread, on up to {@code helpersNow}
   * threads of {@code helperExecutor} started now (the idle part of the budget), and on any thread
   * of this read that runs out of chunks meanwhile ({@link #helpOut}). Returns when every task has
   * finished.
   *
   * @throws RuntimeException the first task failure, as is (an Error likewise)
   */
  public void share(List<Runnable> tasks, Executor helperExecutor, int helpersNow) {
    PulledTasks s = new PulledTasks(tasks.size(), i -> tasks.get(i).run(), null);
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
    s.await(false); // the owner of a chunk's inner work is not stopped by an interrupt
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
      for (PulledTasks s = open.peek(); s != null; s = open.peek()) {
        if (!s.pull()) {
          open.remove(s);
        }
      }
    } finally {
      exit();
    }
  }
}
