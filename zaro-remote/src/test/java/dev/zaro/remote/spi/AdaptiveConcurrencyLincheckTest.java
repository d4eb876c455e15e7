package dev.zaro.remote.spi;

import static dev.zaro.arrow.Threads.join;
import static dev.zaro.arrow.Threads.started;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.Test;

/**
 * Model checking of a host's request limit ({@link AdaptiveConcurrency}): Lincheck explores the
 * interleavings of requests started, released and abandoned on several threads (up to {@link
 * #INVOCATIONS}, in the same order every run) and fails with the interleaving that hangs or breaks
 * an assertion. The clock does not move, so every reply's latency holds. See docs/ARCHITECTURE.md,
 * "Concurrency, tested".
 */
class AdaptiveConcurrencyLincheckTest {
  private static final int INVOCATIONS = 300;

  /** Requests, each started at most once; a request's permit once it has started. */
  private static final class Requests {
    final AdaptiveConcurrency limiter;
    final AtomicIntegerArray starts;
    final List<CompletableFuture<AdaptiveConcurrency.Permit>> permits = new ArrayList<>();

    Requests(AdaptiveConcurrency limiter, int n) {
      this.limiter = limiter;
      this.starts = new AtomicIntegerArray(n);
      for (int i = 0; i < n; i++) {
        permits.add(new CompletableFuture<>());
      }
    }

    /**
     * Submits request {@code i}; when it starts (on whichever thread frees a permit), no more
     * requests are in flight than the limit allowed when it was granted (a limit that only grows:
     * than the limit now), nor than the maximum.
     */
    void submit(int i, boolean limitOnlyGrows) {
      limiter.execute(
          permit -> {
            assertEquals(0, starts.getAndIncrement(i), "a request started twice");
            int inFlight = limiter.inFlight();
            assertTrue(inFlight <= 2, "more requests in flight than the maximum");
            if (limitOnlyGrows) {
              assertTrue(inFlight <= limiter.limit(), "more requests in flight than the limit");
            }
            permits.get(i).complete(permit);
          });
    }

    void assertAllStartedOnceAndNoPermitLeft() {
      for (int i = 0; i < starts.length(); i++) {
        assertEquals(1, starts.get(i), "starts of a request");
      }
      assertEquals(0, limiter.inFlight(), "permits still taken after every request ended");
    }
  }

  /**
   * Invariants: permits never exceed the limit (which only grows here: every reply is fast), every
   * request waiting for a permit starts once one is free (no lost wake-up: a release on one thread
   * while another submits never leaves a request queued with a permit free), each request starts
   * exactly once, and no permit leaks. Slow start: three good replies take a limit of 1 to the
   * maximum, 2.
   */
  @Test
  void requestsStartOnceWithinTheLimitAndEveryReleaseStartsTheNext() {
    Lincheck.runConcurrentTest(
        INVOCATIONS,
        () -> {
          Requests r = new Requests(new AdaptiveConcurrency(1, 2, () -> 0L), 3);
          r.submit(0, true);
          Thread[] threads = new Thread[2];
          for (int k = 0; k < 2; k++) {
            int i = k + 1;
            threads[k] =
                started(
                    () -> {
                      r.submit(i, true);
                      r.limiter.release(r.permits.get(i).join(), false);
                    });
          }
          r.limiter.release(r.permits.get(0).join(), false);
          join(threads);
          r.assertAllStartedOnceAndNoPermitLeft();
          assertEquals(2, r.limiter.limit());
        });
  }

  /**
   * Invariants: two throttled replies to requests sent in the same round trip cut the limit once (2
   * to 1), whichever thread releases first; the request queued behind them starts once both have
   * ended (with the limit cut to 1, not after the first), and an abandoned permit is freed without
   * changing the limit: nothing leaks.
   */
  @Test
  void throttledRepliesOfOneRoundTripCutTheLimitOnce() {
    Lincheck.runConcurrentTest(
        INVOCATIONS,
        () -> {
          Requests r = new Requests(new AdaptiveConcurrency(2, 2, () -> 0L), 3);
          r.submit(0, false);
          r.submit(1, false);
          r.submit(2, false); // waits: 2 in flight
          Thread[] threads = new Thread[2];
          for (int k = 0; k < 2; k++) {
            int i = k;
            threads[k] = started(() -> r.limiter.release(r.permits.get(i).join(), true));
          }
          AdaptiveConcurrency.Permit last = r.permits.get(2).join();
          assertEquals(1, r.limiter.inFlight(), "request 2 started before both others ended");
          r.limiter.abandon(last);
          join(threads);
          r.assertAllStartedOnceAndNoPermitLeft();
          assertEquals(1, r.limiter.throttles(), "cuts of the limit");
          assertEquals(1, r.limiter.limit());
        });
  }
}
