package dev.zaro.arrow.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Options as text, the one parser behind Spark's options and Trino's catalog properties. */
class OptionTextTest {
  @ParameterizedTest
  @CsvSource({"1k,1024", "7,7", "2k,2048", "64MB,67108864", "64m,67108864", "1g,1073741824"})
  void sizes(String text, long bytes) {
    assertEquals(bytes, OptionText.size(text, "x", 0));
    assertEquals(bytes, OptionText.size(" " + text.toUpperCase(Locale.ROOT) + " ", "x", 0));
    assertEquals(5, OptionText.size(null, "x", 5));
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "-5", "many", "1t", "k", "9999999999g", ""})
  void badSizesNameTheOption(String text) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> OptionText.size(text, "zarr: p", 0));
    assertEquals(
        "zarr: p is '" + text + "'; expected a positive integer (k, m, g suffixes allowed)",
        e.getMessage());
  }

  @Test
  void secondsAndBooleans() {
    assertEquals(Duration.ofMillis(2500), OptionText.seconds("2.5", "t"));
    assertThrows(IllegalArgumentException.class, () -> OptionText.seconds("0", "t"));
    assertThrows(IllegalArgumentException.class, () -> OptionText.seconds("soon", "t"));
    assertTrue(OptionText.bool("TRUE", "b"));
    assertFalse(OptionText.bool(null, "b"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> OptionText.bool("yes", "zarr: b"));
    assertEquals("zarr: b is 'yes'; expected true or false", e.getMessage());
  }

  @Test
  void remoteLimitsByTheirCommandLineNames() {
    Map<String, String> given =
        Map.of(
            "timeout", "2.5",
            "request-timeout", "1",
            "retries", "0",
            "max-object-size", "1g",
            "max-metadata-size", "64m");
    assertEquals(
        new RemoteLimits(Duration.ofMillis(2500), Duration.ofSeconds(1), 0, 1L << 30, 64L << 20),
        OptionText.remoteLimits(given::get, k -> "--" + k));
    assertEquals(RemoteLimits.DEFAULT, OptionText.remoteLimits(k -> null, k -> k));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> OptionText.remoteLimits(Map.of("retries", "-1")::get, k -> "zarr: zarr." + k));
    assertEquals("zarr: zarr.retries is '-1'; expected a whole number, 0 or more", e.getMessage());
  }
}
