package dev.zaro.arrow.exec;

import dev.zaro.arrow.error.ZaroException;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.IntConsumer;

/**
 * The one scheduler of zaro's reads: runs independent tasks {@code 0..n-1} on the calling thread
 * plus up to {@code helpers} threads of an executor, all pulling from one counter. Chunks of a
 * read, inner chunks of a shard and blocks of a blosc chunk all run through it (see
 * docs/ARCHITECTURE.md, "Threads").
 *
 * <ul>
 *   <li>The caller always works itself, so nested use on a busy (or the same) pool cannot deadlock:
 *       helpers that start late find nothing left.
 *   <li>It returns as soon as every task has finished; it never waits for a helper that woke up too
 *       late to find work (on a loaded machine that wake-up takes milliseconds).
 *   <li>The first failure cancels the rest (tasks not started are skipped) and is rethrown; {@link
 *       Control} adds caller cancellation, a deadline and progress.
 *   <li>An interrupt of the caller fails the run (INTERNAL), but only once every task a helper
 *       claimed has finished: the run's tasks are one {@code PulledTasks}, as {@link
 *       Budget#share}'s are.
 * </ul>
 */
public final class WorkRunner {
  private WorkRunner() {}

  /** Runs {@code tasks}, on the caller plus up to {@code helpers} threads of {@code executor}. */
  public static void run(List<Runnable> tasks, Executor executor, int helpers) {
    run(tasks.size(), i -> tasks.get(i).run(), executor, helpers, Control.NONE);
  }

  /**
   * Runs {@code task.accept(i)} for every {@code i < n}.
   *
   * @param executor where helpers run (may be null when {@code helpers} is 0)
   * @param control cancellation, deadline and progress of the whole run
   * @throws ZaroException the first task failure (a RuntimeException is rethrown as is), or an
   *     INTERNAL error when cancelled, past the deadline or interrupted
   */
  public static void run(int n, IntConsumer task, Executor executor, int helpers, Control control) {
    run(n, task, executor, helpers, control, null);
  }

  /**
   * {@link #run(int, IntConsumer, Executor, int, Control)} for the chunks of one read: every thread
   * of the run (the caller and each helper) holds one unit of the read's {@code budget} from the
   * moment it is asked to work (a helper: when it is handed to the executor, not when it wakes up)
   * until no task is left for it to claim; it then gives the unit back and helps with the work
   * inside chunks still running ({@link Budget#helpOut}). So {@link Budget#idle()} never offers a
   * helper that is still waking up to the work inside a chunk, which would leave more runnable
   * threads than the budget allows.
   *
   * @param budget the read's budget, or null (the run then behaves as the overload without it)
   */
  public static void run(
      int n, IntConsumer task, Executor executor, int helpers, Control control, Budget budget) {
    if (n <= 0) {
      return;
    }
    PulledTasks set =
        new PulledTasks(
            n,
            i -> {
              control.check();
              task.accept(i);
            },
            (finishedNow, total) -> control.progress().done(finishedNow, total));
    Runnable pull =
        () -> {
          set.pull();
          if (budget != null) {
            budget.exit();
            budget.helpOut();
          }
        };
    int started = executor == null ? 0 : Math.min(helpers, n - 1);
    for (int h = 0; h < started; h++) {
      if (budget != null) {
        budget.enter();
      }
      try {
        executor.execute(pull);
      } catch (RejectedExecutionException e) {
        if (budget != null) {
          budget.exit();
        }
        break;
      }
    }
    if (budget != null) {
      budget.enter();
    }
    pull.run();
    set.await(true);
  }
}
