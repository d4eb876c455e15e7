package dev.zaro.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one record of a remote store's timeouts and retries, as HttpStore's options carry it. */
class RetryOptionsTest {
  @Test
  void defaults() {
    RetryOptions d = RetryOptions.DEFAULT;
    assertEquals(Duration.ofSeconds(30), d.requestTimeout());
    assertEquals(Duration.ofSeconds(10), d.connectTimeout());
    assertEquals(5, d.maxAttempts());
    assertEquals(Duration.ofMillis(100), d.initialBackoff());
    assertEquals(Duration.ofSeconds(5), d.maxBackoff());
    assertSame(d, HttpOptions.DEFAULT.retry());
  }

  @Test
  void withersChangeOnlyTheirFields() {
    RetryOptions d = RetryOptions.DEFAULT;
    assertEquals(
        new RetryOptions(
            Duration.ofMillis(7), d.connectTimeout(), 5, d.initialBackoff(), d.maxBackoff()),
        d.withRequestTimeout(Duration.ofMillis(7)));
    assertEquals(
        new RetryOptions(
            d.requestTimeout(), d.connectTimeout(), 2, Duration.ofMillis(1), Duration.ofMillis(9)),
        d.withRetries(2, Duration.ofMillis(1), Duration.ofMillis(9)));
  }

  @Test
  void httpOptionsWithersGoThroughTheRecord() {
    HttpOptions o =
        HttpOptions.DEFAULT
            .withHeaders(Map.of("Authorization", "x"))
            .withMaxRequests(8)
            .withHedging(false)
            .withRetries(3, Duration.ofMillis(1), Duration.ofMillis(2))
            .withRequestTimeout(Duration.ofMillis(300));
    assertEquals(
        RetryOptions.DEFAULT
            .withRetries(3, Duration.ofMillis(1), Duration.ofMillis(2))
            .withRequestTimeout(Duration.ofMillis(300)),
        o.retry());
    assertEquals(Map.of("Authorization", "x"), o.headers());
    assertEquals(8, o.maxRequests());
    assertFalse(o.hedging());
  }

  @Test
  void atLeastOneAttempt() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> RetryOptions.DEFAULT.withRetries(0, Duration.ZERO, Duration.ZERO));
    assertEquals("maxAttempts must be at least 1, not 0", e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> HttpOptions.DEFAULT.withRetries(0, Duration.ZERO, Duration.ZERO));
  }
}
