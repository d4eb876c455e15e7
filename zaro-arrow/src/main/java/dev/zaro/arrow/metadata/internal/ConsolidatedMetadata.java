package dev.zaro.arrow.metadata.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.metadata.NodeMetadata;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The metadata of a whole hierarchy in one document: v2 {@code .zmetadata} ({@code
 * {"zarr_consolidated_format": 1, "metadata": {"a/.zarray": {...}, ...}}}) or the v3 root group's
 * inline {@code consolidated_metadata} ({@code {"kind": "inline", "must_understand": false,
 * "metadata": {"a": node doc, ...}}}).
 *
 * <p>Entries are parsed when asked for, so one broken node does not hide the others.
 *
 * @param key the store key of the document
 * @param entries node path (no leading slash, {@code ""} for the root) to its documents
 */
public record ConsolidatedMetadata(String key, Map<String, Entry> entries) {

  /** Keeps an unmodifiable copy of the entries, sorted by path. */
  public ConsolidatedMetadata {
    entries = Collections.unmodifiableMap(new TreeMap<>(entries));
  }

  /**
   * One node's documents.
   *
   * @param node the {@code zarr.json}, {@code .zarray} or {@code .zgroup} document
   * @param attrs the v2 {@code .zattrs} document, or null
   */
  public record Entry(int zarrFormat, JsonDocument node, JsonDocument attrs) {
    /**
     * The node's metadata.
     *
     * @throws dev.zaro.arrow.error.MetadataException if a document is invalid
     */
    public NodeMetadata parse() {
      if (zarrFormat == 3) {
        return V3Metadata.parse(node);
      }
      return node.key().endsWith(V2Metadata.ZARRAY + IN_ZMETADATA)
          ? V2Metadata.parseArray(node, attrs)
          : V2Metadata.parseGroup(node, attrs);
    }
  }

  private static final String IN_ZMETADATA = " (in " + V2Metadata.ZMETADATA + ")";

  /**
   * The inline consolidated metadata of a v3 root group document, if it has any of kind {@code
   * inline}.
   */
  public static Optional<ConsolidatedMetadata> v3Inline(JsonDocument root) {
    JsonNode consolidated = root.optional("consolidated_metadata");
    if (consolidated == null || !"group".equals(root.root().path("node_type").asText())) {
      return Optional.empty();
    }
    if (!consolidated.isObject()) {
      throw root.error(
          "consolidated_metadata",
          "must be an object or null, not " + JsonDocument.describe(consolidated));
    }
    if (!"inline".equals(consolidated.path("kind").asText(null))) {
      return Optional.empty();
    }
    JsonNode metadata = consolidated.get("metadata");
    if (metadata == null || !metadata.isObject()) {
      throw root.error(
          "consolidated_metadata",
          "'metadata' must be an object of node documents, not "
              + (metadata == null ? "missing" : JsonDocument.describe(metadata)));
    }
    Map<String, Entry> entries = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : metadata.properties()) {
      String path = nodePath(e.getKey());
      if (!e.getValue().isObject()) {
        throw root.error(
            "consolidated_metadata",
            "the document of '"
                + e.getKey()
                + "' must be an object, not "
                + JsonDocument.describe(e.getValue()));
      }
      if (path.isEmpty()) {
        continue;
      }
      String label = path + "/zarr.json (in " + root.key() + " consolidated_metadata)";
      entries.put(path, new Entry(3, JsonDocument.of(label, (ObjectNode) e.getValue()), null));
    }
    return Optional.of(new ConsolidatedMetadata(root.key(), entries));
  }

  /** Leading and trailing slashes of a document's name, which name no node. */
  private static final Pattern EDGE_SLASHES = Pattern.compile("^/+|/+$");

  /**
   * A consolidated entry's name as a node path: {@code "/a/b/"} is node {@code a/b} (metadata's own
   * reading of a name, so this layer needs nothing of the store's key helpers).
   */
  private static String nodePath(String name) {
    return EDGE_SLASHES.matcher(name).replaceAll("");
  }

  /** Parses a v2 {@code .zmetadata} document stored at {@code key}. */
  public static ConsolidatedMetadata v2(String key, byte[] json) {
    JsonDocument doc = JsonDocument.parse(key, json);
    int format = doc.requiredInt("zarr_consolidated_format");
    if (format != 1) {
      throw doc.error(
          "zarr_consolidated_format", "is " + format + "; zaro reads consolidated format 1");
    }
    JsonNode metadata = doc.required("metadata");
    if (!metadata.isObject()) {
      throw doc.error(
          "metadata",
          "must be an object of metadata documents, not " + JsonDocument.describe(metadata));
    }
    Map<String, ObjectNode> nodes = new TreeMap<>();
    Map<String, ObjectNode> attrs = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : metadata.properties()) {
      String k = nodePath(e.getKey());
      String name = k.substring(k.lastIndexOf('/') + 1);
      if (!name.equals(V2Metadata.ZARRAY)
          && !name.equals(V2Metadata.ZGROUP)
          && !name.equals(V2Metadata.ZATTRS)) {
        continue;
      }
      JsonNode value = e.getValue();
      if (value.isTextual()) {
        value =
            JsonDocument.parse(k + IN_ZMETADATA, value.textValue().getBytes(StandardCharsets.UTF_8))
                .root();
      }
      if (!value.isObject()) {
        throw doc.error(
            "metadata",
            "the document '"
                + e.getKey()
                + "' must be an object, not "
                + JsonDocument.describe(value));
      }
      String path =
          k.length() == name.length() ? "" : k.substring(0, k.length() - name.length() - 1);
      if (name.equals(V2Metadata.ZATTRS)) {
        attrs.put(path, (ObjectNode) value);
      } else {
        nodes.put(path + "/" + name, (ObjectNode) value);
        if (nodes.containsKey(path + "/" + V2Metadata.ZARRAY)
            && nodes.containsKey(path + "/" + V2Metadata.ZGROUP)) {
          throw doc.error(
              "metadata",
              "'" + (path.isEmpty() ? "/" : path) + "' has both a .zarray and a .zgroup");
        }
      }
    }
    Map<String, Entry> entries = new TreeMap<>();
    for (Map.Entry<String, ObjectNode> n : nodes.entrySet()) {
      String k = n.getKey();
      String path = k.substring(0, k.lastIndexOf('/'));
      String name = k.substring(k.lastIndexOf('/') + 1);
      String nodeKey = path.isEmpty() ? name : path + "/" + name;
      String attrsKey = path.isEmpty() ? V2Metadata.ZATTRS : path + "/" + V2Metadata.ZATTRS;
      ObjectNode a = attrs.get(path);
      entries.put(
          path,
          new Entry(
              2,
              JsonDocument.of(nodeKey + IN_ZMETADATA, n.getValue()),
              a == null ? null : JsonDocument.of(attrsKey + IN_ZMETADATA, a)));
    }
    return new ConsolidatedMetadata(key, entries);
  }

  /** Whether some entry lies below {@code path} (so {@code path} is at least an implicit group). */
  public boolean hasDescendants(String path) {
    if (path.isEmpty()) {
      return !entries.isEmpty();
    }
    String prefix = path + "/";
    return entries.keySet().stream().anyMatch(p -> p.startsWith(prefix));
  }
}
