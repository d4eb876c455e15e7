package dev.zaro.arrow.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The spin before a read's thread parks: it ends when its condition holds or its time is up. */
class SpinTest {

  @Test
  void aConditionAlreadyTrueIsAskedOnce() {
    AtomicInteger asked = new AtomicInteger();
    assertTrue(Spin.until(() -> asked.incrementAndGet() > 0));
    assertEquals(1, asked.get());
  }

  /** The condition turns true on its third look, as a helper finishing its last task would. */
  @Test
  void aConditionThatTurnsTrueEndsTheSpin() {
    assumeTrue(Runtime.getRuntime().availableProcessors() > 1, "spins only on more than one core");
    AtomicInteger asked = new AtomicInteger();
    assertTrue(Spin.until(() -> asked.incrementAndGet() >= 3));
    assertEquals(3, asked.get());
  }

  /** A wait longer than the spin is left to the caller's own wait: the spin gives up. */
  @Test
  void aConditionThatNeverHoldsGivesUpAfterTheSpin() {
    AtomicInteger asked = new AtomicInteger();
    long start = System.nanoTime();
    assertFalse(Spin.until(() -> asked.incrementAndGet() < 0));
    assertTrue(System.nanoTime() - start >= (asked.get() > 1 ? Spin.MAX_NANOS : 0));
  }
}
