package dev.zaro.arrow.metadata.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The codec chain of a Zarr v2 array (and of the v3 drafts, which name the same codecs by URI), as
 * numcodecs stores it: its order, its {@code filters} and its {@code compressor} translated into v3
 * codec specifications, with the numcodecs configurations checked.
 */
final class V2Codecs {
  private V2Codecs() {}

  /** numcodecs filters that work on bytes rather than on elements. */
  private static final Set<String> BYTE_FILTERS =
      Set.of("shuffle", "crc32", "adler32", "crc32c", "fletcher32", "jenkins_lookup3", "base64");

  /**
   * The codec chain of an array stored as numcodecs stores it: order F, the document's {@code
   * filters}, the bytes in the dtype's order, then {@code compressor} (a numcodecs configuration
   * with its {@code id}, or null for none). Also the v3 drafts' chain, whose compressor names the
   * same codecs by URI.
   */
  static List<CodecSpec> chain(
      JsonDocument doc, NumpyDtype dtype, int rank, boolean fortran, JsonNode compressor) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    List<CodecSpec> arrayCodecs = new ArrayList<>();
    List<CodecSpec> byteCodecs = new ArrayList<>();
    if (fortran && rank > 1) {
      ArrayNode order = f.arrayNode();
      for (int d = rank - 1; d >= 0; d--) {
        order.add(d);
      }
      arrayCodecs.add(new CodecSpec("transpose", f.objectNode().set("order", order)));
    }
    NumpyDtype current = dtype;
    JsonNode filters = doc.optional("filters");
    if (filters != null && !filters.isArray()) {
      throw doc.error(
          "filters",
          "must be a list of numcodecs filter objects or null, not "
              + JsonDocument.describe(filters));
    }
    String byteFilter = null;
    for (int i = 0; filters != null && i < filters.size(); i++) {
      String field = "filters";
      JsonNode filter = filters.get(i);
      String id = codecId(doc, field, "filter " + i, filter);
      ObjectNode config = withoutId(filter);
      if (BYTE_FILTERS.contains(id)) {
        if (id.equals("shuffle") && !config.has("elementsize")) {
          config.put("elementsize", 4);
        }
        byteCodecs.add(new CodecSpec("numcodecs." + id, config));
        byteFilter = id;
        continue;
      }
      if (byteFilter != null) {
        throw doc.error(
            field,
            "filter "
                + i
                + " ("
                + id
                + ") comes after the byte filter "
                + byteFilter
                + "; zaro reads byte filters only after every array filter");
      }
      current =
          switch (id) {
            case "delta", "fixedscaleoffset", "quantize" ->
                filterType(
                    doc,
                    field,
                    i,
                    id,
                    config,
                    "astype",
                    filterType(doc, field, i, id, config, "dtype", current));
            case "astype" -> filterType(doc, field, i, id, config, "encode_dtype", current);
            case "categorize" ->
                filterType(
                    doc, field, i, id, config, "astype", new NumpyDtype(DataType.UINT8, false));
            case "packbits" -> new NumpyDtype(DataType.UINT8, false);
            default -> current;
          };
      arrayCodecs.add(new CodecSpec("numcodecs." + id, config));
    }
    List<CodecSpec> codecs = new ArrayList<>(arrayCodecs);
    codecs.add(
        new CodecSpec(
            "bytes", f.objectNode().put("endian", current.bigEndian() ? "big" : "little")));
    codecs.addAll(byteCodecs);
    if (compressor != null) {
      codecs.add(compressor(doc, compressor, current.dataType().byteSize()));
    }
    return codecs;
  }

  /** The dtype a filter's {@code field} names (the current one when absent), checked. */
  static NumpyDtype filterType(
      JsonDocument doc,
      String field,
      int i,
      String id,
      ObjectNode config,
      String typeField,
      NumpyDtype current) {
    JsonNode node = config.get(typeField);
    if (node == null || node.isNull()) {
      return current;
    }
    if (!node.isTextual()) {
      throw doc.error(
          field,
          "filter "
              + i
              + " ("
              + id
              + "): '"
              + typeField
              + "' must be a numpy type string,"
              + " not "
              + JsonDocument.describe(node));
    }
    try {
      return NumpyDtype.parse(node.textValue());
    } catch (IllegalArgumentException e) {
      throw doc.error(
          field, "filter " + i + " (" + id + "): '" + typeField + "': " + e.getMessage());
    }
  }

  private static String codecId(JsonDocument doc, String field, String what, JsonNode codec) {
    if (!codec.isObject() || !codec.path("id").isTextual()) {
      throw doc.error(
          field,
          what + " must be an object with a string \"id\", not " + JsonDocument.describe(codec));
    }
    return codec.get("id").textValue();
  }

  static ObjectNode withoutId(JsonNode codec) {
    ObjectNode config = (ObjectNode) codec.deepCopy();
    config.remove("id");
    return config;
  }

  static CodecSpec compressor(JsonDocument doc, JsonNode compressor, int itemSize) {
    String id = codecId(doc, "compressor", "compressor", compressor);
    ObjectNode config = withoutId(compressor);
    JsonNodeFactory f = JsonNodeFactory.instance;
    return switch (id) {
      case "gzip" ->
          new CodecSpec(
              "gzip",
              f.objectNode().put("level", intField(doc, config, id, "level", 1, Set.of("level"))));
      case "zstd" -> {
        ObjectNode v3 =
            f.objectNode()
                .put("level", intField(doc, config, id, "level", 0, Set.of("level", "checksum")));
        JsonNode checksum = config.get("checksum");
        if (checksum != null && !checksum.isNull()) {
          if (!checksum.isBoolean()) {
            throw doc.error(
                "compressor",
                "zstd: 'checksum' must be true or false, not " + JsonDocument.describe(checksum));
          }
          v3.put("checksum", checksum.booleanValue());
        }
        yield new CodecSpec("zstd", v3);
      }
      case "blosc" -> new CodecSpec("blosc", blosc(doc, config, itemSize));
      default -> new CodecSpec("numcodecs." + id, config);
    };
  }

  private static int intField(
      JsonDocument doc,
      ObjectNode config,
      String id,
      String field,
      int defaultValue,
      Set<String> known) {
    config
        .fieldNames()
        .forEachRemaining(
            name -> {
              if (!known.contains(name)) {
                throw doc.error(
                    "compressor",
                    id
                        + ": unknown field '"
                        + name
                        + "' (known: id, "
                        + String.join(", ", new TreeSet<>(known))
                        + ")");
              }
            });
    JsonNode node = config.get(field);
    if (node == null || node.isNull()) {
      return defaultValue;
    }
    if (!node.isIntegralNumber() || !node.canConvertToInt()) {
      throw doc.error(
          "compressor",
          id + ": '" + field + "' must be an integer, not " + JsonDocument.describe(node));
    }
    return node.intValue();
  }

  /** numcodecs' blosc configuration as the v3 blosc codec's. */
  private static ObjectNode blosc(JsonDocument doc, ObjectNode config, int itemSize) {
    Set<String> known = Set.of("cname", "clevel", "shuffle", "blocksize", "typesize");
    ObjectNode v3 = JsonNodeFactory.instance.objectNode();
    JsonNode cname = config.get("cname");
    if (cname != null && !cname.isNull() && !cname.isTextual()) {
      throw doc.error(
          "compressor", "blosc: 'cname' must be a string, not " + JsonDocument.describe(cname));
    }
    v3.put("cname", cname == null || cname.isNull() ? "lz4" : cname.textValue());
    v3.put("clevel", intField(doc, config, "blosc", "clevel", 5, known));
    int shuffle = intField(doc, config, "blosc", "shuffle", 1, known);
    int typesize = intField(doc, config, "blosc", "typesize", Math.max(1, itemSize), known);
    v3.put(
        "shuffle",
        switch (shuffle) {
          case 0 -> "noshuffle";
          case 1 -> "shuffle";
          case 2 -> "bitshuffle";
          case -1 -> itemSize == 1 ? "bitshuffle" : "shuffle";
          default ->
              throw doc.error(
                  "compressor", "blosc: 'shuffle' must be 0, 1, 2 or -1, not " + shuffle);
        });
    v3.put("typesize", typesize);
    v3.put("blocksize", intField(doc, config, "blosc", "blocksize", 0, known));
    return v3;
  }
}
