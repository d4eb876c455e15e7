package dev.zaro.trino;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.read.MissingChunks;
import dev.zaro.arrow.store.OptionText;
import dev.zaro.arrow.store.RemoteLimits;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A {@code zarr} catalog's properties ({@code etc/catalog/zarr.properties}), checked when the
 * catalog is made: an unknown property or a bad value fails it with a message naming the property.
 *
 * @param store the STORE location (any form zaro reads), with the Icechunk reference and S3 options
 *     of the properties folded into its query
 * @param splitBytes about this many decoded bytes per split (chunk- or shard-aligned pieces of the
 *     read plan; a chunk larger than this is a split of its own)
 * @param raw stored values instead of CF decoding
 * @param threads chunks one split decodes in parallel
 * @param remote remote stores' timeouts, retries and size caps
 * @param missingChunks what a read does with a chunk absent from the store: the fill value (Zarr's
 *     default, {@code zarr.missing-chunks=fill}) or an error naming it ({@code error})
 */
public record ZarrConfig(
    String store,
    long splitBytes,
    boolean raw,
    int threads,
    RemoteLimits remote,
    MissingChunks missingChunks) {

  /**
   * Decoded bytes per split unless {@code zarr.split-size} says otherwise: as zaro-spark's
   * partitions (benchmarks/README.md, "Trino: zaro-trino beside Hive on Parquet").
   */
  public static final long DEFAULT_SPLIT_BYTES = 128L << 20;

  private static final Set<String> KNOWN =
      Set.of(
          "zarr.store",
          "zarr.icechunk.branch",
          "zarr.icechunk.tag",
          "zarr.icechunk.snapshot",
          "zarr.s3.endpoint",
          "zarr.s3.region",
          "zarr.s3.path-style",
          "zarr.s3.anonymous",
          "zarr.split-size",
          "zarr.raw",
          "zarr.threads",
          "zarr.timeout",
          "zarr.request-timeout",
          "zarr.retries",
          "zarr.max-object-size",
          "zarr.max-metadata-size",
          "zarr.missing-chunks");

  /**
   * Checks and parses a catalog's properties.
   *
   * @throws IllegalArgumentException naming the property when one is unknown, missing or malformed
   */
  public static ZarrConfig parse(Map<String, String> properties) {
    for (String key : properties.keySet()) {
      if (!KNOWN.contains(key)) {
        throw new IllegalArgumentException(
            "zarr: unknown catalog property '"
                + key
                + "'; the properties are "
                + String.join(", ", new TreeSet<>(KNOWN)));
      }
    }
    String store = properties.get("zarr.store");
    if (store == null || store.isBlank()) {
      throw new IllegalArgumentException(
          "zarr: catalog property 'zarr.store' is required (a STORE: a path, s3://..., icechunk://...)");
    }
    List<String> query = new ArrayList<>();
    List<String> refs = new ArrayList<>();
    for (String ref : List.of("branch", "tag", "snapshot")) {
      String value = properties.get("zarr.icechunk." + ref);
      if (value != null) {
        refs.add(ref);
        query.add(ref + "=" + encode(value));
      }
    }
    if (refs.size() > 1) {
      throw new IllegalArgumentException(
          "zarr: give one of zarr.icechunk.branch, zarr.icechunk.tag, zarr.icechunk.snapshot, not "
              + String.join(" and ", refs));
    }
    if (!refs.isEmpty() && !store.startsWith("icechunk")) {
      throw new IllegalArgumentException(
          "zarr: zarr.icechunk."
              + refs.get(0)
              + " needs an icechunk:// store, not '"
              + store
              + "'");
    }
    for (String option : List.of("endpoint", "region", "path-style", "anonymous")) {
      String value = properties.get("zarr.s3." + option);
      if (value != null) {
        if (!store.contains("s3://")) {
          throw new IllegalArgumentException(
              "zarr: zarr.s3." + option + " needs an s3:// store, not '" + store + "'");
        }
        query.add(option.replace('-', '_') + "=" + encode(value));
      }
    }
    if (!query.isEmpty()) {
      store = store + (store.contains("?") ? "&" : "?") + String.join("&", query);
    }
    return new ZarrConfig(
        store,
        OptionText.size(
            properties.get("zarr.split-size"), "zarr: zarr.split-size", DEFAULT_SPLIT_BYTES),
        OptionText.bool(properties.get("zarr.raw"), "zarr: zarr.raw"),
        (int)
            Math.min(64, OptionText.size(properties.get("zarr.threads"), "zarr: zarr.threads", 1)),
        OptionText.remoteLimits(k -> properties.get("zarr." + k), k -> "zarr: zarr." + k),
        missingChunks(properties.get("zarr.missing-chunks")));
  }

  private static MissingChunks missingChunks(String value) {
    if (value == null || value.equals("fill")) {
      return MissingChunks.FILL;
    }
    if (value.equals("error")) {
      return MissingChunks.ERROR;
    }
    throw new IllegalArgumentException(
        "zarr: zarr.missing-chunks is 'fill' or 'error', not '" + value + "'");
  }

  /** The zaro options a store of this catalog is opened with. */
  public ZaroOptions zaroOptions() {
    return ZaroOptions.defaults()
        .withThreads(threads)
        .withRemote(remote)
        .withMissingChunks(missingChunks);
  }

  /** Opens the store; the caller closes it. */
  public Zaro open() {
    return Zaro.open(store, zaroOptions());
  }

  private static String encode(String value) {
    // percent-encoded, a space too ('+' is a plus in a store location's query)
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
