package dev.zaro.arrow.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The owner's wait at the end of a run ({@link WorkRunner#run}, {@link Budget#share}): an interrupt
 * never ends it before a task a helper claimed has finished (that task may still be writing into
 * the read's buffers), and the owner's interrupt flag is set again when it returns. A read's run
 * fails on the interrupt; a chunk's inner work keeps its result.
 */
class PulledTasksTest {
  private final ExecutorService pool = Executors.newFixedThreadPool(1);

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  @Test
  void anInterruptedReadWaitsForItsHelpersTaskThenFails() throws Exception {
    Outcome o =
        interruptTheOwnerWhileAHelperRuns(
            task -> WorkRunner.run(2, i -> task.run(), pool, 1, Control.NONE));
    ZaroException e = (ZaroException) o.thrown;
    assertEquals(ErrorKind.INTERNAL, e.kind());
    assertTrue(e.getMessage().contains("interrupted"), e.getMessage());
    assertTrue(o.interruptedAfter, "the interrupt flag is set again");
  }

  @Test
  void anInterruptedOwnerOfSharedWorkWaitsForItsHelpersTaskAndKeepsTheResult() throws Exception {
    Budget budget = new Budget(pool, 2);
    Outcome o =
        interruptTheOwnerWhileAHelperRuns(task -> budget.share(List.of(task, task), pool, 1));
    assertNull(o.thrown, "the work itself did not fail");
    assertTrue(o.interruptedAfter, "the interrupt flag is set again");
  }

  private record Outcome(Throwable thrown, boolean interruptedAfter) {}

  /**
   * Runs two tasks through {@code run} on an owner thread and one helper of the pool. Each task
   * waits until both have started, so each thread holds one; the helper's then blocks until the
   * owner, done with its own, is parked in its wait and has been interrupted (and has parked
   * again). Only then is the helper's task let go; the run must not have returned before it ends.
   */
  private Outcome interruptTheOwnerWhileAHelperRuns(Consumer<Runnable> run) throws Exception {
    CountDownLatch bothStarted = new CountDownLatch(2);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean helperTaskDone = new AtomicBoolean();
    AtomicBoolean ownerTaskDone = new AtomicBoolean();
    AtomicBoolean returnedBeforeHelperDone = new AtomicBoolean();
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    AtomicBoolean interruptedAfter = new AtomicBoolean();
    Thread[] owner = new Thread[1];
    Runnable task =
        () -> {
          bothStarted.countDown();
          await(bothStarted);
          if (Thread.currentThread() != owner[0]) {
            await(release);
            helperTaskDone.set(true);
          } else {
            ownerTaskDone.set(true);
          }
        };
    owner[0] =
        new Thread(
            () -> {
              try {
                run.accept(task);
              } catch (Throwable t) {
                thrown.set(t);
              }
              returnedBeforeHelperDone.set(!helperTaskDone.get());
              interruptedAfter.set(Thread.currentThread().isInterrupted());
            },
            "owner");
    owner[0].start();
    // done with its own task and parked: nothing else parks the owner before its final wait
    waitUntil(() -> ownerTaskDone.get() && owner[0].getState() == Thread.State.WAITING);
    owner[0].interrupt();
    // the interrupt was taken (the flag cleared by wait's InterruptedException) and it parked again
    waitUntil(
        () ->
            !owner[0].isAlive()
                || (!owner[0].isInterrupted() && owner[0].getState() == Thread.State.WAITING));
    assertTrue(owner[0].isAlive(), "the owner returned while its helper's task was running");
    release.countDown();
    owner[0].join(TimeUnit.SECONDS.toMillis(30));
    assertFalse(owner[0].isAlive(), "the owner still waits after its helper finished");
    assertFalse(
        returnedBeforeHelperDone.get(), "the owner returned before its helper's task ended");
    return new Outcome(thrown.get(), interruptedAfter.get());
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new AssertionError("a task waited 30 s for the other");
      }
    } catch (InterruptedException e) {
      throw new AssertionError("a task was interrupted", e);
    }
  }

  private static void waitUntil(BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        throw new AssertionError("condition not reached in 30 s");
      }
      Thread.sleep(1);
    }
  }
}
