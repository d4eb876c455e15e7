package dev.zaro.arrow.read;

import static dev.zaro.arrow.Threads.join;
import static dev.zaro.arrow.Threads.started;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.Test;

/**
 * Model checking of the fetch window ({@link Prefetch}): Lincheck runs each scenario under its own
 * scheduler, switching threads at every shared read and write, lock and wait, and explores the
 * interleavings (up to {@link #INVOCATIONS} of them, in the same order every run). A scenario that
 * hangs in some interleaving (every thread waiting) or breaks an assertion fails with that
 * interleaving printed step by step. See docs/ARCHITECTURE.md, "Concurrency, tested".
 */
class PrefetchLincheckTest {
  /**
   * Interleavings explored per scenario. The lost pump of d333e4f8, reintroduced, is found after
   * about 400 interleavings of {@link #noPumpIsLostWhileRequestsSettleDuringADecodersPump} (the
   * same one every run, since Lincheck explores in a fixed order): 1000 leave room for changes that
   * reorder the exploration.
   */
  private static final int INVOCATIONS = 1000;

  /** Interleavings explored of the other scenarios. */
  private static final int FEWER_INVOCATIONS = 300;

  /** A fetched result whose request settles after it is handed out (a streamed shard's). */
  static final class Held implements AutoCloseable {
    final int task;
    final CompletableFuture<Void> settled = new CompletableFuture<>();
    final AtomicInteger closes = new AtomicInteger();

    Held(int task) {
      this.task = task;
    }

    @Override
    public void close() {
      closes.incrementAndGet();
    }
  }

  /**
   * The window's fetches: each result there at once, its request settling when the test says so.
   * Invariant checked at each fetch: a window of one request never has two in flight (every fetch
   * issued before has settled).
   */
  private static final class Fetches {
    final Held[] held;
    final AtomicIntegerArray issued;
    final int window;

    Fetches(int tasks, int window) {
      this.held = new Held[tasks];
      for (int t = 0; t < tasks; t++) {
        held[t] = new Held(t);
      }
      this.issued = new AtomicIntegerArray(tasks);
      this.window = window;
    }

    CompletableFuture<Held> fetch(int t) {
      assertEquals(0, issued.getAndIncrement(t), () -> "task " + t + " fetched twice");
      int unsettled = 1;
      for (int u = 0; u < held.length; u++) {
        if (u != t && issued.get(u) > 0 && !held[u].settled.isDone()) {
          unsettled++;
        }
      }
      assertTrue(unsettled <= window, () -> "more requests in flight than the window allows");
      return CompletableFuture.completedFuture(held[t]);
    }

    Prefetch<Held> window() {
      return new Prefetch<>(held.length, this::fetch, h -> 10, h -> h.settled, 10, window, 1000);
    }
  }

  /**
   * Invariant: no lost pump (no lost wake-up). A decoder takes tasks 0 and 1 in order while the I/O
   * thread settles their requests, in a window of one request: whatever the interleaving, the
   * window issues task 1 once task 0's request settles, so the decoder gets both, each its own
   * result, and nothing is closed that a decoder took. A pump lost in the race between a decoder's
   * pump deciding to stop and a settling request's pump (d333e4f8) leaves the decoder waiting in
   * {@code take(1)} for ever: Lincheck reports the hang and its interleaving.
   */
  @Test
  void noPumpIsLostWhileRequestsSettleDuringADecodersPump() {
    Lincheck.runConcurrentTest(
        INVOCATIONS,
        () -> {
          Fetches fetches = new Fetches(2, 1);
          Prefetch<Held> prefetch = fetches.window();
          prefetch.pump();
          Thread decoder =
              started(
                  () -> {
                    for (int t = 0; t < 2; t++) {
                      assertSame(fetches.held[t], prefetch.take(t), "a task's own result");
                    }
                  });
          for (Held h : fetches.held) {
            h.settled.complete(null); // the I/O thread: each request settles in turn
          }
          join(decoder);
          prefetch.close();
          for (Held h : fetches.held) {
            assertEquals(1, fetches.issued.get(h.task), "each task fetched once");
            assertEquals(0, h.closes.get(), "a result the decoder took, closed by the window");
          }
        });
  }

  /**
   * Invariant: a result is freed exactly once, by its owner. A decoder takes task 0 and then,
   * failing, closes the window (as a read that fails does) while the I/O thread settles the
   * requests of a window of two over three tasks: close returns only once every request issued has
   * settled, the results nobody took are each closed exactly once, the one taken never, and a task
   * never issued is never fetched after close.
   */
  @Test
  void closeFreesEachResultNobodyTookExactlyOnceAfterItsRequestSettles() {
    Lincheck.runConcurrentTest(
        FEWER_INVOCATIONS,
        () -> {
          Fetches fetches = new Fetches(3, 2);
          Prefetch<Held> prefetch = fetches.window();
          prefetch.pump();
          Thread decoder =
              started(
                  () -> {
                    assertSame(fetches.held[0], prefetch.take(0));
                    prefetch.close();
                    for (Held h : fetches.held) {
                      if (fetches.issued.get(h.task) > 0) {
                        assertTrue(h.settled.isDone(), "close returned before a request settled");
                      }
                    }
                  });
          for (Held h : fetches.held) {
            h.settled.complete(null);
          }
          join(decoder);
          int[] issuedAtClose = new int[3];
          for (Held h : fetches.held) {
            issuedAtClose[h.task] = fetches.issued.get(h.task);
          }
          prefetch.pump(); // a closed window issues nothing more
          for (Held h : fetches.held) {
            assertEquals(issuedAtClose[h.task], fetches.issued.get(h.task));
            int expected = h.task == 0 || fetches.issued.get(h.task) == 0 ? 0 : 1;
            assertEquals(expected, h.closes.get(), "closes of a result");
          }
        });
  }
}
