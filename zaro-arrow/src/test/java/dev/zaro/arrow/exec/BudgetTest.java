package dev.zaro.arrow.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Shared work inside a chunk: every task once, helpers that ran out of chunks take part. */
class BudgetTest {
  private final ExecutorService pool = Executors.newFixedThreadPool(2);

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  /**
   * The owner's first task blocks until every other task has run, so only another thread of the
   * read, out of chunks, can run them: its helpOut takes the remaining tasks, and share returns
   * once all have run.
   */
  @Test
  void aThreadOutOfChunksTakesTheRestOfSharedWork() throws Exception {
    Budget budget = new Budget(pool, 2);
    int n = 10;
    AtomicIntegerArray runs = new AtomicIntegerArray(n);
    AtomicReferenceArray<Thread> ranOn = new AtomicReferenceArray<>(n);
    CountDownLatch shared = new CountDownLatch(1);
    CountDownLatch helped = new CountDownLatch(n - 1);
    List<Runnable> tasks = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int t = i;
      tasks.add(
          () -> {
            runs.incrementAndGet(t);
            ranOn.set(t, Thread.currentThread());
            if (t == 0) {
              shared.countDown();
              try {
                assertTrue(helped.await(10, TimeUnit.SECONDS), "nobody helped");
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            } else {
              helped.countDown();
            }
          });
    }
    Thread owner = new Thread(() -> budget.share(tasks, pool, 0), "owner");
    owner.start();
    assertTrue(shared.await(10, TimeUnit.SECONDS));
    budget.helpOut(); // this thread: out of chunks, helps
    owner.join(10_000);
    assertTrue(!owner.isAlive(), "share returned");
    for (int i = 0; i < n; i++) {
      assertEquals(1, runs.get(i), "task " + i);
    }
    assertSame(owner, ranOn.get(0));
    for (int i = 1; i < n; i++) {
      assertSame(Thread.currentThread(), ranOn.get(i), "task " + i + " taken by the helper");
    }
    assertEquals(2, budget.idle(), "helpOut left the budget as it found it");
    budget.helpOut(); // nothing open: returns at once
  }

  @Test
  void theFirstFailureReachesTheOwnerAfterEveryClaimedTaskFinished() {
    Budget budget = new Budget(pool, 2);
    IllegalStateException boom = new IllegalStateException("task 3");
    AtomicIntegerArray runs = new AtomicIntegerArray(50);
    List<Runnable> tasks = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      int t = i;
      tasks.add(
          () -> {
            runs.incrementAndGet(t);
            if (t == 3) {
              throw boom;
            }
          });
    }
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> budget.share(tasks, pool, 1));
    assertSame(boom, e);
    for (int i = 0; i < 50; i++) {
      assertTrue(runs.get(i) <= 1, "task " + i + " ran twice");
    }
  }
}
