package dev.zaro.arrow.exec;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

/**
 * Tasks {@code 0..n-1} that an owner and any number of helpers pull from one counter, and that the
 * owner then awaits: the one such set behind {@link WorkRunner#run} (a read's chunks) and {@link
 * Budget#share} (the work inside one chunk). The first failure skips the tasks not yet started and
 * reaches the owner once every claimed task has finished. Thread-safe.
 */
final class PulledTasks {
  /** Told of each task that ran to its end, with the count of tasks finished so far. */
  @FunctionalInterface
  interface Finished {
    void done(int finishedNow, int n);
  }

  private final int n;
  private final IntConsumer task;
  private final Finished finished;
  private final AtomicInteger next = new AtomicInteger();
  private final AtomicInteger ended = new AtomicInteger(); // tasks run (or skipped) to their end
  private final AtomicInteger done = new AtomicInteger(); // ... and reported: await waits for n
  private final AtomicReference<Throwable> failure = new AtomicReference<>();

  /**
   * @param n the tasks' count
   * @param task runs task {@code i}
   * @param finished told after each task that ran without failing (a failure there is the set's
   *     failure too); null for none
   */
  PulledTasks(int n, IntConsumer task, Finished finished) {
    this.n = n;
    this.task = task;
    this.finished = finished;
  }

  /**
   * Runs unclaimed tasks until none is left. Never throws: failures go to the owner's {@link
   * #await}.
   *
   * @return false when there was none left to claim
   */
  boolean pull() {
    boolean any = false;
    int i;
    while ((i = next.getAndIncrement()) < n) {
      any = true;
      boolean ran = false;
      try {
        if (failure.get() == null) {
          task.accept(i);
          ran = true;
        }
      } catch (Throwable t) {
        failure.compareAndSet(null, t);
      }
      // counted as ended before its report, as done (what await waits for) only after it: the
      // owner must not return while the report of the last task still runs (or misses its failure)
      int finishedNow = ended.incrementAndGet();
      if (ran && finished != null) {
        try {
          finished.done(finishedNow, n);
        } catch (Throwable t) {
          failure.compareAndSet(null, t);
        }
      }
      if (done.incrementAndGet() == n) {
        synchronized (this) {
          notifyAll();
        }
      }
    }
    return any;
  }

  /**
   * Waits until every task has finished (a short {@link Spin} first, then parked), then rethrows
   * the first failure. An interrupt never cuts the wait short, since claimed tasks may still be
   * writing into buffers the owner frees after; the thread's interrupt flag is set again on return.
   *
   * @param interruptFails whether an interrupt during the wait fails the set (an INTERNAL error
   *     unless a task failed first), for a run whose caller may be interrupted to stop a read;
   *     otherwise the tasks' result stands
   */
  void await(boolean interruptFails) {
    Spin.until(() -> done.get() >= n); // a helper is usually on its last task now
    boolean interrupted = false;
    synchronized (this) {
      while (done.get() < n) {
        try {
          wait();
        } catch (InterruptedException e) {
          interrupted = true;
          if (interruptFails) {
            failure.compareAndSet(
                null, new ZaroException(ErrorKind.INTERNAL, "the read was interrupted"));
          }
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    rethrow(failure.get());
  }

  /**
   * Rethrows a task's failure as is (RuntimeException, Error) or wrapped; nothing when null. The
   * one place work run on other threads reports back.
   */
  private static void rethrow(Throwable t) {
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    if (t != null) {
      throw new ZaroException(t.toString(), t);
    }
  }
}
