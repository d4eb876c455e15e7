package dev.zaro.spark;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.store.OptionText;
import dev.zaro.arrow.store.RemoteLimits;
import java.io.Serializable;
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
        OptionText.bool(get.apply("raw"), label("raw")),
        OptionText.bool(get.apply("rawBits"), label("rawBits"))
            || OptionText.bool(get.apply("fallbackTypes"), label("fallbackTypes")),
        OptionText.size(get.apply("partitionBytes"), label("partitionBytes"), 0),
        (int)
            Math.min(Integer.MAX_VALUE, OptionText.size(get.apply("threads"), label("threads"), 1)),
        OptionText.remoteLimits(k -> get.apply(camel(k)), k -> label(camel(k))));
  }

  /** An option as messages name it. */
  private static String label(String option) {
    return "zarr: option '" + option + "'";
  }

  /** The Spark name of a command-line name: request-timeout is requestTimeout. */
  private static String camel(String name) {
    StringBuilder b = new StringBuilder();
    for (String part : name.split("-", -1)) {
      b.append(b.length() == 0 ? part : Character.toUpperCase(part.charAt(0)) + part.substring(1));
    }
    return b.toString();
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
