package dev.zaro.remote.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AdaptiveConcurrencyTest {
  /**
   * Latencies on a clock that does not move: every reply is as fast as the fastest, so growth never
   * depends on how fast the test itself runs (on the system clock, a pause of a few ms between
   * starting and releasing a round's permits, under load, counted as latency that did not hold and
   * withheld the growth).
   */
  private static AdaptiveConcurrency steady(int initial, int max) {
    return new AdaptiveConcurrency(initial, max, () -> 0L);
  }

  /** Starts {@code n} tasks; returns the permits of those that started. */
  private static List<AdaptiveConcurrency.Permit> submit(AdaptiveConcurrency c, int n) {
    List<AdaptiveConcurrency.Permit> started = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      c.execute(started::add);
    }
    return started;
  }

  @Test
  void startsNoMoreThanTheLimitAndQueuesTheRestInOrder() {
    AdaptiveConcurrency c = steady(4, 64);
    List<Integer> order = new ArrayList<>();
    List<AdaptiveConcurrency.Permit> permits = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      int task = i;
      c.execute(
          p -> {
            order.add(task);
            permits.add(p);
          });
    }
    assertEquals(List.of(0, 1, 2, 3), order);
    assertEquals(4, c.inFlight());
    c.release(permits.get(0), true); // overloaded: 4 -> 2, and 3 still in flight
    assertEquals(2, c.limit());
    assertEquals(4, order.size());
    c.release(permits.get(1), false);
    assertEquals(4, order.size(), "2 still in flight under the limit of 2");
    // a round trip's worth (2) of good replies since the cut: the limit grows to 3, 1 in flight
    c.release(permits.get(2), false);
    assertEquals(3, c.limit());
    assertEquals(List.of(0, 1, 2, 3, 4, 5), order);
  }

  @Test
  void slowStartDoublesEachRoundTripUpToMax() {
    AdaptiveConcurrency c = steady(2, 10);
    for (int round = 0; round < 5; round++) {
      List<AdaptiveConcurrency.Permit> started = submit(c, c.limit());
      started.forEach(p -> c.release(p, false));
    }
    assertEquals(10, c.limit(), "2 -> 4 -> 8 -> 10 (the ceiling)");
  }

  @Test
  void halvesOncePerRoundTripThenGrowsByOne() {
    AdaptiveConcurrency c = steady(16, 64);
    List<AdaptiveConcurrency.Permit> round = submit(c, 16);
    // a whole window of 503s, as an overloaded host answers: one cut, not sixteen
    round.forEach(p -> c.release(p, true));
    assertEquals(8, c.limit());
    assertEquals(1, c.throttles());
    // after the cut, growth is additive: about one more per round trip
    for (int i = 0; i < 3; i++) {
      int before = c.limit();
      submit(c, before).forEach(p -> c.release(p, false));
      assertEquals(before + 1, c.limit());
    }
    // repeated overload never goes below one
    for (int i = 0; i < 10; i++) {
      submit(c, c.limit()).forEach(p -> c.release(p, true));
    }
    assertEquals(1, c.limit());
  }

  @Test
  void growthWaitsWhileLatencyDoesNotHold() {
    long[] now = {0};
    AdaptiveConcurrency c = new AdaptiveConcurrency(4, 64, () -> now[0]);
    submit(c, 4).forEach(p -> c.release(p, true)); // out of slow start: 4 -> 2
    assertEquals(2, c.limit());
    List<AdaptiveConcurrency.Permit> fast = submit(c, 2);
    now[0] += 1_000_000; // 1 ms: the lowest latency seen
    fast.forEach(p -> c.release(p, false));
    assertEquals(3, c.limit(), "a round trip of replies at the lowest latency: one more");
    List<AdaptiveConcurrency.Permit> slow = submit(c, 3);
    now[0] += 10_000_000; // 10 ms: over twice the lowest plus 5 ms
    slow.forEach(p -> c.release(p, false));
    assertEquals(3, c.limit(), "latency did not hold: no growth");
  }

  @Test
  void aTaskThatFinishesAtOnceDoesNotRecurse() {
    AdaptiveConcurrency c = steady(1, 1);
    int[] ran = new int[1];
    for (int i = 0; i < 100_000; i++) {
      c.execute(
          p -> {
            ran[0]++;
            c.release(p, false);
          });
    }
    assertEquals(100_000, ran[0]);
    assertEquals(0, c.inFlight());
    assertTrue(c.limit() <= 1);
  }

  @Test
  void refusesAMaxBelowOne() {
    assertThrows(IllegalArgumentException.class, () -> new AdaptiveConcurrency(1, 0));
  }
}
