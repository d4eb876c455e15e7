package dev.zaro.arrow.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.error.ZaroException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WorkRunnerTest {
  private final ExecutorService pool = Executors.newFixedThreadPool(3);

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  @Test
  void runsEveryTaskOnceAndReportsProgress() {
    AtomicIntegerArray runs = new AtomicIntegerArray(1000);
    AtomicLong last = new AtomicLong();
    WorkRunner.run(
        1000,
        runs::incrementAndGet,
        pool,
        3,
        new Control(
            () -> false, Long.MAX_VALUE, (done, total) -> last.accumulateAndGet(done, Math::max)));
    for (int i = 0; i < 1000; i++) {
      assertEquals(1, runs.get(i), "task " + i);
    }
    assertEquals(1000, last.get());
  }

  @Test
  void theFirstFailureStopsTheRestAndIsRethrown() {
    AtomicInteger ran = new AtomicInteger();
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                WorkRunner.run(
                    10_000,
                    i -> {
                      ran.incrementAndGet();
                      if (i == 3) {
                        throw new IllegalStateException("task 3");
                      }
                    },
                    pool,
                    2,
                    Control.NONE));
    assertEquals("task 3", e.getMessage());
    assertTrue(ran.get() < 10_000, "ran " + ran.get());
  }

  @Test
  void cancellationAndDeadlinesStopARun() {
    AtomicBoolean cancelled = new AtomicBoolean();
    AtomicInteger ran = new AtomicInteger();
    assertThrows(
        ZaroException.class,
        () ->
            WorkRunner.run(
                10_000,
                i -> {
                  if (ran.incrementAndGet() == 5) {
                    cancelled.set(true);
                  }
                },
                pool,
                2,
                new Control(cancelled::get, Long.MAX_VALUE, Control.Progress.NONE)));
    assertTrue(ran.get() < 10_000);
    ZaroException late =
        assertThrows(
            ZaroException.class,
            () ->
                WorkRunner.run(
                    3,
                    i -> {},
                    null,
                    0,
                    new Control(() -> false, System.nanoTime() - 1, Control.Progress.NONE)));
    assertTrue(late.getMessage().contains("deadline"), late.getMessage());
  }

  /**
   * Nested runs on a one-thread pool whose thread is busy still finish: the caller works itself.
   */
  @Test
  void nestedRunsOnABusyPoolDoNotDeadlock() {
    ExecutorService one = Executors.newSingleThreadExecutor();
    try {
      AtomicInteger inner = new AtomicInteger();
      WorkRunner.run(
          4,
          i -> WorkRunner.run(5, j -> inner.incrementAndGet(), one, 1, Control.NONE),
          one,
          1,
          Control.NONE);
      assertEquals(20, inner.get());
    } finally {
      one.shutdownNow();
    }
  }

  /**
   * A helper handed to the executor counts against the read's budget before it wakes up: the
   * caller's first chunk sees no idle thread to offer its inner work to (it would be a third
   * runnable thread on a budget of two), and every unit is given back once the helpers are done.
   */
  @Test
  void aHelperStillWakingUpHoldsItsUnitOfTheBudget() throws Exception {
    CountDownLatch firstChunk = new CountDownLatch(1);
    // wakes the helper only once the caller's first chunk has looked at the budget
    Executor late =
        command ->
            pool.execute(
                () -> {
                  try {
                    firstChunk.await();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  command.run();
                });
    Budget budget = new Budget(pool, 2);
    AtomicIntegerArray idle = new AtomicIntegerArray(4);
    WorkRunner.run(
        4,
        i -> {
          idle.set(i, budget.idle());
          if (i == 0) {
            firstChunk.countDown();
          }
        },
        late,
        1,
        Control.NONE,
        budget);
    assertEquals(0, idle.get(0), "idle threads offered while the helper was waking up");
    pool.shutdown();
    assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    assertEquals(2, budget.idle(), "every unit given back");
  }
}
