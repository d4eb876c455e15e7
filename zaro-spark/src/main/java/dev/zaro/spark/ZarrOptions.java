package dev.zaro.spark;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.store.RemoteLimits;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The options of one {@code spark.read.format("zarr")} read, checked once on the driver. This is
 * all an executor gets to reopen the store: the location and the option values, never an open store
 * or metadata.
 *
 * @param location the STORE ({@code load(...)} path): local, file://, http(s), s3, gs,
 *     reference+...
 * @param arrays the arrays read as one table, in column order (one value column each)
 * @param slice the selection in zaro's slice syntax ("" for everything)
 * @param raw stored values instead of CF decoding
 * @param fallbackTypes read the ML float types (bfloat16, float8_*, ...) as their bit patterns
 *     instead of float values (option {@code rawBits}, or its old name {@code fallbackTypes})
 * @param partitionBytes about this many decoded bytes per partition; 0 when not given: then at most
 *     {@link #DEFAULT_PARTITION_BYTES}, and less when that spreads the read over all of Spark's
 *     cores (as Spark's file sources size their splits)
 * @param threads chunks one task decodes in parallel
 * @param remote remote stores' timeouts, retries and size caps: options {@code timeout} and {@code
 *     requestTimeout} (seconds), {@code retries}, {@code maxObjectSize} and {@code maxMetadataSize}
 *     (k, m, g suffixes allowed), as the CLI's {@code --timeout}, {@code --request-timeout}, ...
 */
public record ZarrOptions(
    String location,
    List<String> arrays,
    String slice,
    boolean raw,
    boolean fallbackTypes,
    long partitionBytes,
    int threads,
    RemoteLimits remote)
    implements Serializable {

  /** Every option the source understands ({@code path} is what {@code load(STORE)} sets). */
  static final Set<String> KNOWN =
      Set.of(
          "path",
          "array",
          "arrays",
          "slice",
          "raw",
          "rawbits",
          "fallbacktypes",
          "partitionbytes",
          "threads",
          "timeout",
          "requesttimeout",
          "retries",
          "maxobjectsize",
          "maxmetadatasize");

  public static final long DEFAULT_PARTITION_BYTES = 128L << 20;

  public ZarrOptions {
    arrays = List.copyOf(arrays);
  }

  /**
   * Checks and parses Spark's (case-insensitive) options.
   *
   * @throws IllegalArgumentException naming the option when one is unknown, missing or malformed
   */
  public static ZarrOptions parse(Map<String, String> options) {
    for (String key : options.keySet()) {
      if (!KNOWN.contains(key.toLowerCase(Locale.ROOT))) {
        throw new IllegalArgumentException(
            "zarr: unknown option '"
                + key
                + "'; the options are path (load(STORE)),"
                + " array, arrays, slice, raw, rawBits (or fallbackTypes), partitionBytes, threads,"
                + " timeout, requestTimeout, retries, maxObjectSize, maxMetadataSize");
      }
    }
    UnaryOperator<String> get =
        k ->
            options.entrySet().stream()
                .filter(e -> e.getKey().equalsIgnoreCase(k))
                .map(Map.Entry::getValue)
                .findFirst()
                .orElse(null);
    String location = get.apply("path");
    if (location == null || location.isBlank()) {
      throw new IllegalArgumentException("zarr: no store; pass it to load(STORE) (option 'path')");
    }
    String array = get.apply("array");
    String arrays = get.apply("arrays");
    if (array != null && arrays != null) {
      throw new IllegalArgumentException("zarr: give option 'array' or option 'arrays', not both");
    }
    if (array == null && arrays == null) {
      throw new IllegalArgumentException(
          "zarr: option 'array' (one array) or 'arrays' (several, comma separated)"
              + " is required");
    }
    List<String> names = new ArrayList<>();
    for (String name : (array != null ? List.of(array) : List.of(arrays.split(",", -1)))) {
      String n = name.trim();
      if (n.isEmpty()) {
        throw new IllegalArgumentException(
            "zarr: option '"
                + (array != null ? "array" : "arrays")
                + "' ('"
                + (array != null ? array : arrays)
                + "') names an empty array");
      }
      names.add(n);
    }
    if (new LinkedHashSet<>(names).size() != names.size()) {
      throw new IllegalArgumentException(
          "zarr: option 'arrays' ('" + arrays + "') names an array twice");
    }
    String slice = get.apply("slice");
    return new ZarrOptions(
        location,
        names,
        slice == null ? "" : slice,
        bool(get.apply("raw"), "raw"),
        bool(get.apply("rawBits"), "rawBits") || bool(get.apply("fallbackTypes"), "fallbackTypes"),
        positive(get.apply("partitionBytes"), "partitionBytes", 0),
        (int) Math.min(Integer.MAX_VALUE, positive(get.apply("threads"), "threads", 1)),
        remote(get));
  }

  /** The remote limits the options give, over {@link RemoteLimits#DEFAULT}. */
  private static RemoteLimits remote(UnaryOperator<String> get) {
    RemoteLimits limits = RemoteLimits.DEFAULT;
    String timeout = get.apply("timeout");
    if (timeout != null) {
      limits = limits.withTimeout(seconds(timeout, "timeout"));
    }
    String requestTimeout = get.apply("requestTimeout");
    if (requestTimeout != null) {
      limits = limits.withRequestTimeout(seconds(requestTimeout, "requestTimeout"));
    }
    String retries = get.apply("retries");
    if (retries != null) {
      try {
        limits = limits.withRetries(Integer.parseInt(retries.trim()));
      } catch (IllegalArgumentException e) { // NumberFormatException too
        throw new IllegalArgumentException(
            "zarr: option 'retries' is '" + retries + "'; expected a whole number, 0 or more", e);
      }
    }
    if (get.apply("maxObjectSize") != null) {
      limits = limits.withMaxObjectSize(positive(get.apply("maxObjectSize"), "maxObjectSize", 0));
    }
    if (get.apply("maxMetadataSize") != null) {
      limits =
          limits.withMaxMetadataSize(positive(get.apply("maxMetadataSize"), "maxMetadataSize", 0));
    }
    return limits;
  }

  private static Duration seconds(String value, String option) {
    try {
      double s = Double.parseDouble(value.trim());
      if (s > 0 && s <= 1e9) {
        return Duration.ofNanos(Math.round(s * 1e9));
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "zarr: option '" + option + "' is '" + value + "'; expected a positive number of seconds");
  }

  private static boolean bool(String value, String option) {
    if (value == null) {
      return false;
    }
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default ->
          throw new IllegalArgumentException(
              "zarr: option '" + option + "' is '" + value + "'; expected true or false");
    };
  }

  /** A positive integer, with an optional k/m/g suffix (powers of 1024). */
  private static long positive(String value, String option, long fallback) {
    if (value == null) {
      return fallback;
    }
    String v = value.trim().toLowerCase(Locale.ROOT);
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
        "zarr: option '"
            + option
            + "' is '"
            + value
            + "'; expected a positive integer"
            + (option.equals("threads") ? "" : " (k, m, g suffixes allowed)"));
  }

  /** The zaro options an open of this read uses. */
  public ZaroOptions zaroOptions() {
    return ZaroOptions.defaults()
        .withThreads(threads)
        .withFallbackTypes(fallbackTypes)
        .withRemote(remote);
  }

  /** Opens the store; the caller closes the result. */
  public Zaro open() {
    return Zaro.open(location, zaroOptions());
  }
}
