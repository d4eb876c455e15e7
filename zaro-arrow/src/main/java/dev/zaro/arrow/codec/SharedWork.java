package dev.zaro.arrow.codec;

import dev.zaro.arrow.error.ZaroException;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a list of independent tasks on the calling thread plus up to {@code helpers} executor
 * threads that pull from the same list. The caller always makes progress itself, so nested use
 * on a busy (or the same) pool cannot deadlock: helpers that start late find nothing left.
 */
public final class SharedWork {
  private SharedWork() {}

  public static void run(List<Runnable> tasks, Executor executor, int helpers) {
    int n = tasks.size();
    if (n == 0) {
      return;
    }
    AtomicInteger next = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Object lock = new Object();
    Runnable pull = () -> {
      int i;
      while ((i = next.getAndIncrement()) < n) {
        try {
          if (failure.get() == null) {
            tasks.get(i).run();
          }
        } catch (Throwable t) {
          failure.compareAndSet(null, t);
        } finally {
          if (done.incrementAndGet() == n) {
            synchronized (lock) {
              lock.notifyAll();
            }
          }
        }
      }
    };
    for (int h = 0; h < Math.min(helpers, n - 1); h++) {
      try {
        executor.execute(pull);
      } catch (RejectedExecutionException e) {
        break;
      }
    }
    pull.run();
    synchronized (lock) {
      boolean interrupted = false;
      while (done.get() < n) {
        try {
          lock.wait();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    Throwable t = failure.get();
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
