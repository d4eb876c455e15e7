package dev.zaro.arrow.store;

import java.time.Duration;
import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * Options given as text (Spark's reader options, Trino's catalog properties), parsed the one way
 * every surface takes them: seconds as positive decimals, booleans as true or false, sizes as
 * positive integers with an optional k, m or g suffix (powers of 1024; a trailing b is allowed, as
 * in Trino's 64MB), and the remote limits under the command line's names. A malformed value fails
 * with {@link IllegalArgumentException}: {@code "LABEL is 'VALUE'; expected ..."}, LABEL naming the
 * option as the surface spells it.
 */
public final class OptionText {
  private OptionText() {}

  /** A positive number of seconds (at most 10^9). */
  public static Duration seconds(String value, String label) {
    try {
      double s = Double.parseDouble(value.trim());
      if (s > 0 && s <= 1e9) {
        return Duration.ofNanos(Math.round(s * 1e9));
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        label + " is '" + value + "'; expected a positive number of seconds");
  }

  /** true or false (any case); null is false. */
  public static boolean bool(String value, String label) {
    if (value == null) {
      return false;
    }
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default ->
          throw new IllegalArgumentException(label + " is '" + value + "'; expected true or false");
    };
  }

  /** A positive integer with an optional k, m or g suffix (and b); {@code fallback} for null. */
  public static long size(String value, String label, long fallback) {
    if (value == null) {
      return fallback;
    }
    String v = value.trim().toLowerCase(Locale.ROOT);
    if (v.endsWith("b")) {
      v = v.substring(0, v.length() - 1);
    }
    int shift = v.endsWith("k") ? 10 : v.endsWith("m") ? 20 : v.endsWith("g") ? 30 : 0;
    try {
      long n = Long.parseLong(shift == 0 ? v : v.substring(0, v.length() - 1).trim());
      if (n >= 1 && n <= (Long.MAX_VALUE >> shift)) {
        return n << shift;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        label + " is '" + value + "'; expected a positive integer (k, m, g suffixes allowed)");
  }

  /**
   * The remote limits the options give, over {@link RemoteLimits#DEFAULT}. {@code value} maps each
   * limit's command-line name ({@code timeout}, {@code request-timeout}, {@code retries}, {@code
   * max-object-size}, {@code max-metadata-size}) to its text, or null when not given; {@code label}
   * maps it to the option's name in messages.
   */
  public static RemoteLimits remoteLimits(
      UnaryOperator<String> value, UnaryOperator<String> label) {
    RemoteLimits limits = RemoteLimits.DEFAULT;
    String timeout = value.apply("timeout");
    if (timeout != null) {
      limits = limits.withTimeout(seconds(timeout, label.apply("timeout")));
    }
    String requestTimeout = value.apply("request-timeout");
    if (requestTimeout != null) {
      limits = limits.withRequestTimeout(seconds(requestTimeout, label.apply("request-timeout")));
    }
    String retries = value.apply("retries");
    if (retries != null) {
      try {
        limits = limits.withRetries(Integer.parseInt(retries.trim()));
      } catch (IllegalArgumentException e) { // NumberFormatException too
        throw new IllegalArgumentException(
            label.apply("retries") + " is '" + retries + "'; expected a whole number, 0 or more",
            e);
      }
    }
    String maxObject = value.apply("max-object-size");
    if (maxObject != null) {
      limits = limits.withMaxObjectSize(size(maxObject, label.apply("max-object-size"), 0));
    }
    String maxMetadata = value.apply("max-metadata-size");
    if (maxMetadata != null) {
      limits = limits.withMaxMetadataSize(size(maxMetadata, label.apply("max-metadata-size"), 0));
    }
    return limits;
  }
}
