package dev.zaro.arrow.exec;

import static dev.zaro.arrow.Threads.join;
import static dev.zaro.arrow.Threads.started;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.Test;

/**
 * Model checking of the tasks an owner and its helpers pull ({@link PulledTasks}): Lincheck
 * explores the interleavings of the owner and a helper (up to {@link #INVOCATIONS}, in the same
 * order every run) and fails with the interleaving that hangs or breaks an assertion. See
 * docs/ARCHITECTURE.md, "Concurrency, tested".
 */
class PulledTasksLincheckTest {
  private static final int INVOCATIONS = 300;

  /**
   * Invariants: every task is handed out exactly once; the owner's await returns only after the
   * last task has finished and been reported (no lost wake-up: it never waits for ever), and each
   * count of finished tasks is reported once. (Before the fix, await could return while a helper
   * still reported the last task: a read's progress callback ran after the read returned, and a
   * failure it threw was lost. This test found it at once.)
   */
  @Test
  void everyTaskRunsExactlyOnceAndAwaitReturnsAfterTheLast() {
    Lincheck.runConcurrentTest(
        INVOCATIONS,
        () -> {
          int n = 3;
          AtomicIntegerArray runs = new AtomicIntegerArray(n);
          AtomicIntegerArray counts = new AtomicIntegerArray(n);
          PulledTasks tasks =
              new PulledTasks(
                  n, runs::incrementAndGet, (now, total) -> counts.incrementAndGet(now - 1));
          Thread helper = started(tasks::pull);
          tasks.pull();
          tasks.await(false);
          for (int i = 0; i < n; i++) {
            assertEquals(1, runs.get(i), "a task's runs when await returned");
            assertEquals(1, counts.get(i), "reports of a count of finished tasks");
          }
          join(helper);
        });
  }

  /**
   * Invariants: the first failure reaches the owner, and only once no claimed task still runs (a
   * task may be writing into memory the owner frees next); no task runs twice.
   */
  @Test
  void aFailureReachesTheOwnerOnceNoClaimedTaskRuns() {
    Lincheck.runConcurrentTest(
        INVOCATIONS,
        () -> {
          int n = 3;
          IllegalStateException failure = new IllegalStateException("task 0 failed");
          AtomicIntegerArray runs = new AtomicIntegerArray(n);
          AtomicInteger running = new AtomicInteger();
          PulledTasks tasks =
              new PulledTasks(
                  n,
                  i -> {
                    running.incrementAndGet();
                    runs.incrementAndGet(i);
                    running.decrementAndGet();
                    if (i == 0) {
                      throw failure;
                    }
                  },
                  null);
          Thread helper = started(tasks::pull);
          tasks.pull();
          assertSame(failure, assertThrows(IllegalStateException.class, () -> tasks.await(true)));
          assertEquals(0, running.get(), "tasks running when the failure reached the owner");
          for (int i = 0; i < n; i++) {
            assertTrue(runs.get(i) <= 1, "a task ran twice");
          }
          join(helper);
        });
  }
}
