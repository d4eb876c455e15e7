package dev.zaro.flight;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.read.Node;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;

/**
 * Each array's size on disk for the explorer's tree ({@code GET /sizes.json}): the sum of the
 * stored sizes of the keys under the array (its chunks or shards, as stored; not its metadata
 * documents), from one listing of the store with sizes ({@link
 * dev.zaro.arrow.store.Store#listSizes}). A store that cannot tell sizes without reading (or a
 * request per key) answers {@code {"known": false}}, and the page shows none: no value is read.
 */
final class StoredSizes {
  /** Metadata documents of Zarr v2 and v3, not counted as an array's data. */
  private static final Set<String> METADATA =
      Set.of("zarr.json", ".zarray", ".zattrs", ".zgroup", ".zmetadata");

  private StoredSizes() {}

  /**
   * {@code {"known": true, "arrays": {path: {"bytes": b, "keys": k}}}} (every array, 0 and 0 for
   * one with no chunk stored), or {@code {"known": false}}.
   */
  static String json(Zaro zaro) {
    ObjectNode out = Json.createObjectNode();
    Optional<SortedMap<String, Long>> listed = zaro.store().listSizes("");
    if (listed.isEmpty()) {
      return out.put("known", false).toString();
    }
    Map<String, long[]> arrays = new HashMap<>(); // path -> {bytes, keys}
    for (Node n : zaro.list()) {
      if (n.isArray()) {
        arrays.put(n.path(), new long[2]);
      }
    }
    for (Map.Entry<String, Long> e : listed.get().entrySet()) {
      String key = e.getKey();
      if (METADATA.contains(key.substring(key.lastIndexOf('/') + 1))) {
        continue;
      }
      long[] sum = owner(arrays, key);
      if (sum != null) {
        sum[0] += e.getValue();
        sum[1]++;
      }
    }
    ObjectNode by = out.put("known", true).putObject("arrays");
    arrays.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            a ->
                by.putObject(a.getKey())
                    .put("bytes", a.getValue()[0])
                    .put("keys", a.getValue()[1]));
    return out.toString();
  }

  /** The array whose directory holds {@code key} (the nearest one above it), or null. */
  private static long[] owner(Map<String, long[]> arrays, String key) {
    String dir = key;
    while (true) {
      int slash = dir.lastIndexOf('/');
      dir = slash < 0 ? "" : dir.substring(0, slash);
      long[] sum = arrays.get(dir);
      if (sum != null || dir.isEmpty()) {
        return sum;
      }
    }
  }
}
