package dev.zaro.arrow.metadata.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.MetadataException;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.ChunkKeyEncoding;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import dev.zaro.arrow.metadata.GroupMetadata;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Parses stores in the Zarr v3 drafts of 2019-2022 (zarr-python 2.11-2.18 with {@code
 * ZARR_V3_EXPERIMENTAL_API}, zarrita 0.1, xtensor-zarr) into the same model as v2 and v3: a root
 * {@code zarr.json} whose {@code zarr_format} is the protocol URI, node documents under {@code
 * meta/}, chunks under {@code data/root/}.
 *
 * <p>An array's {@code data_type} is a numpy type string, {@code chunk_memory_layout} F becomes a
 * {@code transpose}, and the one {@code compressor}, named by codec URI, the codec zaro has for the
 * numcodecs compressor of that name (through {@link V2Metadata#chain}, the one chain builder of
 * both). The chunk key encoding is {@link ChunkKeyEncoding.DraftEncoding}, which also marks the
 * array as a draft's.
 */
public final class V3DraftMetadata {
  private V3DraftMetadata() {}

  /** The protocol URI of every draft's root {@code zarr.json}. */
  public static final String PROTOCOL = "https://purl.org/zarr/spec/protocol/core/3.0";

  /** The prefix of the drafts' codec URIs: the codec's name and version follow. */
  public static final String CODEC_PREFIX = "https://purl.org/zarr/spec/codec/";

  /** The compressors a draft names by URI that zaro reads (numcodecs' codecs of those names). */
  private static final Set<String> CODECS =
      Set.of("blosc", "gzip", "zlib", "lz4", "zstd", "bz2", "lzma");

  private static final Set<String> ENTRY_FIELDS =
      Set.of("zarr_format", "metadata_encoding", "metadata_key_suffix", "extensions");
  private static final Set<String> ARRAY_FIELDS =
      Set.of(
          "shape",
          "data_type",
          "chunk_grid",
          "chunk_memory_layout",
          "fill_value",
          "compressor",
          "extensions",
          "attributes",
          "dimension_separator");
  private static final Set<String> GROUP_FIELDS = Set.of("attributes", "extensions");

  /**
   * Whether a root {@code zarr.json} is a draft's entry point: its {@code zarr_format} is a string
   * (the final v3's is the integer 3).
   */
  public static boolean isEntryPoint(JsonDocument doc) {
    JsonNode format = doc.root().get("zarr_format");
    return format != null && format.isTextual();
  }

  /**
   * The layout a draft's entry point describes.
   *
   * @throws MetadataException naming the key and field for a protocol or encoding zaro does not
   *     know, a bad suffix, or an extension that must be understood
   */
  public static DraftLayout entryPoint(JsonDocument doc) {
    String format = doc.requiredString("zarr_format");
    if (!format.equals(PROTOCOL)) {
      throw new MetadataException(
          ErrorKind.UNSUPPORTED,
          doc.where("zarr_format")
              + ": protocol '"
              + format
              + "' is unknown (zaro reads Zarr 2 and 3, and the v3 drafts of "
              + PROTOCOL
              + ")");
    }
    JsonNode encoding = doc.optional("metadata_encoding");
    if (encoding != null
        && !(encoding.isTextual()
            && (encoding.textValue().equals(PROTOCOL)
                || encoding.textValue().equals("application/json")))) {
      throw doc.error(
          "metadata_encoding",
          "must be \"" + PROTOCOL + "\" (JSON documents), not " + JsonDocument.describe(encoding));
    }
    JsonNode suffix = doc.optional("metadata_key_suffix");
    if (suffix != null && (!suffix.isTextual() || suffix.textValue().contains("/"))) {
      throw doc.error(
          "metadata_key_suffix",
          "must be a key suffix such as \".json\", not " + JsonDocument.describe(suffix));
    }
    checkFields(doc, ENTRY_FIELDS);
    checkExtensions(doc);
    return new DraftLayout(suffix == null ? ".json" : suffix.textValue());
  }

  /** Parses a {@code .group.json} document. */
  public static GroupMetadata parseGroup(JsonDocument doc) {
    checkFields(doc, GROUP_FIELDS);
    checkExtensions(doc);
    return new GroupMetadata(3, attributes(doc), false, true);
  }

  /** Parses an {@code .array.json} document. */
  public static ArrayMetadata parseArray(JsonDocument doc) {
    checkFields(doc, ARRAY_FIELDS);
    checkExtensions(doc);
    long[] shape = doc.requiredLongs("shape", 0);
    NumpyDtype dtype = dataType(doc);
    DataType type = dtype.dataType();
    JsonNode grid = doc.required("chunk_grid");
    int[] chunks = chunkShape(doc, grid, shape.length);
    char separator = separator(doc, grid);
    String layout = doc.requiredString("chunk_memory_layout");
    if (!layout.equals("C") && !layout.equals("F")) {
      throw doc.error("chunk_memory_layout", "must be \"C\" or \"F\", not \"" + layout + "\"");
    }
    FillValue fill =
        doc.has("fill_value") ? V2Metadata.fillValue(doc, type) : FillValue.unset(type);
    ObjectNode attributes = attributes(doc);
    return new ArrayMetadata(
        3,
        shape,
        type,
        chunks,
        new ChunkKeyEncoding.DraftEncoding(separator),
        fill,
        V2Codecs.chain(doc, dtype, shape.length, layout.equals("F"), compressor(doc)),
        V2Metadata.dimensionNames(attributes, shape.length),
        attributes);
  }

  /**
   * The node documents of zarr-python's consolidated metadata for the drafts ({@code
   * meta/root/consolidated/.zmetadata}: {@code {"zarr_consolidated_format": 1, "metadata": {key:
   * document}}}), by the key each stands for; each named in errors as that key "(in" the
   * document's).
   */
  public static Map<String, JsonDocument> consolidated(String key, byte[] json) {
    JsonDocument doc = JsonDocument.parse(key, json);
    JsonNode format = doc.required("zarr_consolidated_format");
    if (!format.isIntegralNumber() || format.intValue() != 1) {
      throw doc.error(
          "zarr_consolidated_format", "must be 1, not " + JsonDocument.describe(format));
    }
    JsonNode metadata = doc.required("metadata");
    if (!metadata.isObject()) {
      throw doc.error(
          "metadata",
          "must be an object of node documents, not " + JsonDocument.describe(metadata));
    }
    Map<String, JsonDocument> out = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : metadata.properties()) {
      if (!e.getValue().isObject()) {
        throw doc.error(
            "metadata",
            "entry '"
                + e.getKey()
                + "' must be an object, not "
                + JsonDocument.describe(e.getValue()));
      }
      out.put(
          e.getKey(), JsonDocument.of(e.getKey() + " (in " + key + ")", (ObjectNode) e.getValue()));
    }
    return out;
  }

  /** A numpy type string ({@code "<f4"}, {@code "u1"}, {@code "bool"}), as zarr-python wrote it. */
  private static NumpyDtype dataType(JsonDocument doc) {
    JsonNode node = doc.required("data_type");
    if (node.isObject() && node.path("type").isTextual()) {
      node = node.get("type"); // zarr-python's extended types: {"type": "<U4", ...}
    }
    if (!node.isTextual()) {
      throw doc.error(
          "data_type",
          "must be a numpy type string such as \"<f4\", not " + JsonDocument.describe(node));
    }
    NumpyDtype dtype = V2Metadata.numpy(doc, "data_type", node.textValue());
    if (dtype.dataType().kind() == DataType.Kind.STRUCT) {
      throw new MetadataException(
          ErrorKind.UNSUPPORTED,
          doc.where("data_type") + ": structured types are not read in v3 draft stores");
    }
    return dtype;
  }

  /** {@code {"type": "regular", "chunk_shape": [...], "separator": "/"}}. */
  private static int[] chunkShape(JsonDocument doc, JsonNode grid, int rank) {
    if (!grid.isObject() || !grid.path("type").isTextual()) {
      throw doc.error(
          "chunk_grid",
          "must be an object with a \"type\", \"chunk_shape\" and \"separator\", not "
              + JsonDocument.describe(grid));
    }
    String type = grid.get("type").textValue();
    if (!type.equals("regular")) {
      throw doc.error(
          "chunk_grid", "grid type \"" + type + "\" is not supported (only \"regular\")");
    }
    JsonNode shape = grid.path("chunk_shape");
    if (shape.isMissingNode()) {
      throw doc.error("chunk_grid", "chunk_shape is missing");
    }
    return V3Metadata.chunkShape(doc, shape, "chunk_grid.chunk_shape", rank);
  }

  private static char separator(JsonDocument doc, JsonNode grid) {
    JsonNode node = grid.get("separator");
    if (node == null) {
      return '/';
    }
    if (!node.isTextual() || !(node.textValue().equals("/") || node.textValue().equals("."))) {
      throw doc.error(
          "chunk_grid", "separator must be \"/\" or \".\", not " + JsonDocument.describe(node));
    }
    return node.textValue().charAt(0);
  }

  /**
   * The draft's {@code compressor} ({@code {"codec": URI, "configuration": {...}}}) as the
   * numcodecs configuration of the codec the URI names, or null when there is none.
   */
  private static ObjectNode compressor(JsonDocument doc) {
    JsonNode node = doc.optional("compressor");
    if (node == null) {
      return null;
    }
    if (!node.isObject() || !node.path("codec").isTextual()) {
      throw doc.error(
          "compressor",
          "must be an object with a \"codec\" URI, not " + JsonDocument.describe(node));
    }
    String uri = node.get("codec").textValue();
    String name = null;
    if (uri.startsWith(CODEC_PREFIX)) {
      String rest = uri.substring(CODEC_PREFIX.length());
      int slash = rest.indexOf('/');
      name = slash < 0 ? rest : rest.substring(0, slash);
    }
    if (name == null || !CODECS.contains(name)) {
      throw new MetadataException(
          ErrorKind.UNSUPPORTED,
          doc.where("compressor")
              + ": codec '"
              + uri
              + "' is unknown (zaro reads "
              + CODEC_PREFIX
              + "<name>/1.0 for "
              + String.join(", ", CODECS.stream().sorted().toList())
              + ")");
    }
    JsonNode config = node.get("configuration");
    if (config != null && !config.isNull() && !config.isObject()) {
      throw doc.error(
          "compressor",
          name + ": configuration must be an object, not " + JsonDocument.describe(config));
    }
    ObjectNode numcodecs = JsonNodeFactory.instance.objectNode().put("id", name);
    if (config != null && config.isObject()) {
      config.properties().forEach(e -> numcodecs.set(e.getKey(), e.getValue()));
      numcodecs.put("id", name);
    }
    return numcodecs;
  }

  private static ObjectNode attributes(JsonDocument doc) {
    JsonNode attributes = doc.optional("attributes");
    if (attributes != null && !attributes.isObject()) {
      throw doc.error("attributes", "must be an object, not " + JsonDocument.describe(attributes));
    }
    return (ObjectNode) attributes;
  }

  /** Refuses fields the drafts do not define (zaro would not know what they change). */
  private static void checkFields(JsonDocument doc, Set<String> known) {
    Iterator<Map.Entry<String, JsonNode>> fields = doc.root().properties().iterator();
    while (fields.hasNext()) {
      String name = fields.next().getKey();
      if (!known.contains(name)) {
        throw doc.error(
            name,
            "is not a field of the v3 drafts (known: "
                + String.join(", ", known.stream().sorted().toList())
                + ")");
      }
    }
  }

  /**
   * {@code extensions}: a list of {@code {"extension": URI, "must_understand": bool, ...}}; zaro
   * understands none, so one that must be understood (the default) is refused, naming it.
   */
  private static void checkExtensions(JsonDocument doc) {
    JsonNode list = doc.optional("extensions");
    if (list == null) {
      return;
    }
    if (!list.isArray()) {
      throw doc.error("extensions", "must be a list, not " + JsonDocument.describe(list));
    }
    List<String> refused = new ArrayList<>();
    for (JsonNode e : list) {
      JsonNode must = e.path("must_understand");
      if (must.isBoolean() && !must.booleanValue()) {
        continue;
      }
      JsonNode name = e.path("extension");
      refused.add(name.isTextual() ? "'" + name.textValue() + "'" : JsonDocument.describe(e));
    }
    if (!refused.isEmpty()) {
      throw new MetadataException(
          ErrorKind.UNSUPPORTED,
          doc.where("extensions")
              + ": zaro does not understand the extension "
              + String.join(", ", refused)
              + ", which must be understood (\"must_understand\" is not false)");
    }
  }
}
