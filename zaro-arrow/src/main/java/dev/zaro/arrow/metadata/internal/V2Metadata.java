package dev.zaro.arrow.metadata.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.ChunkKeyEncoding;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import dev.zaro.arrow.metadata.GroupMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Parses Zarr v2 {@code .zarray}, {@code .zgroup} and {@code .zattrs} documents into the same model
 * as v3 (as zarrs does): the compressor and filters become a codec chain, order F a {@code
 * transpose}, {@code dimension_separator} a {@code v2} chunk key encoding, and xarray's {@code
 * _ARRAY_DIMENSIONS} attribute the dimension names.
 *
 * <p>The chain, in v3 order: {@code transpose} (order F: the stored chunk is the F-order layout,
 * which every numcodecs filter sees as a flat sequence), the filters in list order (array filters
 * as {@code numcodecs.<id>} array-to-array codecs), {@code bytes} with the byte order of the dtype
 * the filters end on, the byte filters ({@code numcodecs.shuffle}, the checksums, {@code
 * numcodecs.base64}: they work on bytes), then the compressor: {@code gzip}, {@code zstd} and
 * {@code blosc} become the v3 codecs of those names, anything else {@code numcodecs.<id>} with the
 * numcodecs configuration (without its {@code id}).
 */
public final class V2Metadata {
  private V2Metadata() {}

  public static final String ZARRAY = ".zarray";
  public static final String ZGROUP = ".zgroup";
  public static final String ZATTRS = ".zattrs";
  public static final String ZMETADATA = ".zmetadata";

  /** xarray's attribute holding the dimension names. */
  public static final String ARRAY_DIMENSIONS = "_ARRAY_DIMENSIONS";

  /** numcodecs filters that work on bytes rather than on elements. */
  private static final Set<String> BYTE_FILTERS =
      Set.of("shuffle", "crc32", "adler32", "crc32c", "fletcher32", "jenkins_lookup3", "base64");

  /**
   * Parses an array's {@code .zarray} (at {@code key}) and its {@code .zattrs} (null when absent).
   */
  public static ArrayMetadata parseArray(
      String key, byte[] zarray, String attrsKey, byte[] zattrs) {
    return parseArray(
        JsonDocument.parse(key, zarray),
        zattrs == null ? null : JsonDocument.parse(attrsKey, zattrs));
  }

  /** Parses a group's {@code .zgroup} and its {@code .zattrs} (null when absent). */
  public static GroupMetadata parseGroup(
      String key, byte[] zgroup, String attrsKey, byte[] zattrs) {
    return parseGroup(
        JsonDocument.parse(key, zgroup),
        zattrs == null ? null : JsonDocument.parse(attrsKey, zattrs));
  }

  public static GroupMetadata parseGroup(JsonDocument doc, JsonDocument attrs) {
    checkFormat(doc);
    return new GroupMetadata(2, attrs == null ? null : attrs.root(), false);
  }

  private static void checkFormat(JsonDocument doc) {
    int format = doc.requiredInt("zarr_format");
    if (format != 2) {
      throw doc.error(
          "zarr_format",
          "is "
              + format
              + "; a "
              + (doc.key().endsWith(ZGROUP) ? ZGROUP : ZARRAY)
              + " document must have zarr_format 2");
    }
  }

  public static ArrayMetadata parseArray(JsonDocument doc, JsonDocument attrs) {
    checkFormat(doc);
    long[] shape = doc.requiredLongs("shape", 0);
    int[] chunks = chunks(doc, shape.length);
    JsonNode dtypeNode = doc.required("dtype");
    if (dtypeNode.isTextual() && dtypeNode.textValue().equals("|O")) {
      return parseObjectArray(doc, attrs, shape, chunks);
    }
    NumpyDtype dtype = dtype(doc);
    DataType type = dtype.dataType();
    FillValue fill = fillValue(doc, type);
    if (type.kind() == DataType.Kind.STRUCT && dtype.bigEndian() && !fill.isUnset()) {
      fill = new FillValue(littleEndian(fill.bytes(), type));
    }
    String order = doc.requiredString("order");
    if (!order.equals("C") && !order.equals("F")) {
      throw doc.error("order", "must be \"C\" or \"F\", not \"" + order + "\"");
    }
    char separator = separator(doc);
    List<CodecSpec> codecs = codecs(doc, dtype, shape.length, order.equals("F"));
    ObjectNode attributes = attrs == null ? null : attrs.root();
    return new ArrayMetadata(
        2,
        shape,
        type,
        chunks,
        new ChunkKeyEncoding.V2Encoding(separator),
        fill,
        codecs,
        dimensionNames(attributes, shape.length),
        attributes);
  }

  /**
   * An object array ({@code "|O"}) whose object codec, the first filter, is {@code vlen-utf8} or
   * {@code vlen-bytes} (what zarr-python 2 writes for strings and bytes), or {@code json2} or
   * {@code msgpack2} (text only): the object codec becomes the array-to-bytes codec, the compressor
   * follows it. Or text stored as codes by {@code categorize}: an array-to-array codec before
   * {@code bytes} on the codes.
   */
  private static ArrayMetadata parseObjectArray(
      JsonDocument doc, JsonDocument attrs, long[] shape, int[] chunks) {
    JsonNode filters = doc.optional("filters");
    JsonNode objectCodec =
        filters != null && filters.isArray() && filters.size() > 0 ? filters.get(0) : null;
    String id = objectCodec == null ? null : objectCodec.path("id").asText(null);
    if (id == null
        || !(id.equals("vlen-utf8")
            || id.equals("vlen-bytes")
            || id.equals("categorize")
            || id.equals("json2")
            || id.equals("msgpack2"))) {
      throw doc.error(
          "filters",
          "an object (\"|O\") array needs vlen-utf8, vlen-bytes, json2, msgpack2 or"
              + " categorize as its object codec (first filter); found "
              + (objectCodec == null ? "none" : JsonDocument.describe(objectCodec)));
    }
    if (filters.size() > 1) {
      throw doc.error("filters", "filters after the object codec " + id + " are not supported");
    }
    DataType type = id.equals("vlen-bytes") ? DataType.BYTES : DataType.STRING;
    JsonNode fillNode = doc.required("fill_value");
    FillValue fill =
        fillNode.isNull() || (fillNode.isNumber() && fillNode.doubleValue() == 0)
            ? new FillValue(new byte[0])
            : FillValue.parse(fillNode, type, doc.where("fill_value"));
    String order = doc.requiredString("order");
    if (!order.equals("C") && !order.equals("F")) {
      throw doc.error("order", "must be \"C\" or \"F\", not \"" + order + "\"");
    }
    List<CodecSpec> codecs = new ArrayList<>();
    // json2/msgpack2 with order F: zarr-python 2 writes the chunk's values in logical (C) order but
    // reads
    // that sequence as F order (it flattens the decoded chunk, then reshapes it in the array's
    // order); zaro reads what zarr-python reads
    if (order.equals("F") && shape.length > 1) {
      ArrayNode reversed = JsonNodeFactory.instance.arrayNode();
      for (int d = shape.length - 1; d >= 0; d--) {
        reversed.add(d);
      }
      codecs.add(
          new CodecSpec("transpose", JsonNodeFactory.instance.objectNode().set("order", reversed)));
    }
    int itemSize = 1;
    if (id.equals("categorize")) {
      ObjectNode config = withoutId(objectCodec);
      NumpyDtype codes =
          filterType(
              doc, "filters", 0, id, config, "astype", new NumpyDtype(DataType.UINT8, false));
      codecs.add(new CodecSpec("numcodecs.categorize", config));
      codecs.add(
          new CodecSpec(
              "bytes",
              JsonNodeFactory.instance
                  .objectNode()
                  .put("endian", codes.bigEndian() ? "big" : "little")));
      itemSize = codes.dataType().byteSize();
    } else if (id.equals("json2") || id.equals("msgpack2")) {
      codecs.add(new CodecSpec("numcodecs." + id, withoutId(objectCodec)));
    } else {
      codecs.add(new CodecSpec(id, null));
    }
    JsonNode compressor = doc.required("compressor");
    if (!compressor.isNull()) {
      codecs.add(compressor(doc, compressor, itemSize));
    }
    ObjectNode attributes = attrs == null ? null : attrs.root();
    return new ArrayMetadata(
        2,
        shape,
        type,
        chunks,
        new ChunkKeyEncoding.V2Encoding(separator(doc)),
        fill,
        codecs,
        dimensionNames(attributes, shape.length),
        attributes);
  }

  private static int[] chunks(JsonDocument doc, int rank) {
    long[] chunks = doc.requiredLongs("chunks", 1);
    if (chunks.length != rank) {
      throw doc.error("chunks", "has " + chunks.length + " dimensions but shape has " + rank);
    }
    int[] out = new int[rank];
    for (int d = 0; d < rank; d++) {
      if (chunks[d] > Integer.MAX_VALUE) {
        throw doc.error("chunks", "chunks[" + d + "] = " + chunks[d] + " is too large");
      }
      out[d] = (int) chunks[d];
    }
    return out;
  }

  private static NumpyDtype dtype(JsonDocument doc) {
    JsonNode node = doc.required("dtype");
    if (node.isArray() || node.isObject()) {
      return NumpyDtype.parseStructured(node, doc.where("dtype"));
    }
    if (!node.isTextual()) {
      throw doc.error(
          "dtype",
          "must be a numpy type string such as \"<f8\", not " + JsonDocument.describe(node));
    }
    return numpy(doc, "dtype", node.textValue());
  }

  static NumpyDtype numpy(JsonDocument doc, String field, String typestr) {
    try {
      return NumpyDtype.parse(typestr);
    } catch (IllegalArgumentException e) {
      throw doc.error(field, e.getMessage());
    }
  }

  /**
   * v2 fill values: null (no fill value; zaro reads uninitialized chunks as zeros), a number,
   * "NaN", "Infinity", "-Infinity", a [real, imaginary] pair for complex, true/false (or a number)
   * for bool.
   */
  static FillValue fillValue(JsonDocument doc, DataType type) {
    JsonNode node = doc.required("fill_value");
    if (node.isNull()) {
      return FillValue.unset(type);
    }
    if ((type.kind() == DataType.Kind.FIXED_UTF32 || type.kind() == DataType.Kind.STRUCT)
        && node.isNumber()
        && node.doubleValue() == 0) {
      return FillValue.zero(type);
    }
    if (type.kind() == DataType.Kind.STRUCT && !node.isTextual()) {
      throw doc.error(
          "fill_value",
          "must be base64 of one element ("
              + type.byteSize()
              + " bytes) for a structured"
              + " dtype, not "
              + JsonDocument.describe(node));
    }
    if (type.kind() == DataType.Kind.RAW || type.kind() == DataType.Kind.NULL_TERMINATED_BYTES) {
      // |S<n>, |V<n>: base64 of the bytes (zarr-python 2), shorter values padded with NULs as numpy
      // does
      if (node.isNumber() && node.doubleValue() == 0) {
        return FillValue.zero(type);
      }
      if (!node.isTextual()) {
        throw doc.error(
            "fill_value",
            "must be base64 text for "
                + NumpyDtype.typestrOf(type)
                + ", not "
                + JsonDocument.describe(node));
      }
      return FillValue.fromBase64(node.textValue(), type, false, doc.where("fill_value"));
    }
    if ((type.kind() == DataType.Kind.DATETIME || type.kind() == DataType.Kind.TIMEDELTA)
        && node.isNumber()
        && !node.isIntegralNumber()) {
      throw doc.error("fill_value", "must be an integer or \"NaT\" for " + type + ", not " + node);
    }
    if (type.kind() == DataType.Kind.BOOL && node.isNumber()) {
      return new FillValue(new byte[] {(byte) (node.doubleValue() != 0 ? 1 : 0)});
    }
    if ((type.kind() == DataType.Kind.FLOAT || type.kind() == DataType.Kind.COMPLEX)
        && node.isTextual()
        && node.textValue().startsWith("0x")) {
      throw doc.error(
          "fill_value",
          "'"
              + node.textValue()
              + "' is not a v2 fill value for "
              + type
              + " (a number, \"NaN\", \"Infinity\" or \"-Infinity\")");
    }
    return FillValue.parse(node, type, doc.where("fill_value"));
  }

  /** A big-endian struct element (a v2 base64 fill value) with every value turned little endian. */
  private static byte[] littleEndian(byte[] element, DataType type) {
    type.forEachValue(
        0,
        (value, at) -> {
          int unit = value.swapUnit();
          for (int u = 0; unit > 1 && u < value.byteSize(); u += unit) {
            for (int i = 0; i < unit / 2; i++) {
              byte x = element[at + u + i];
              element[at + u + i] = element[at + u + unit - 1 - i];
              element[at + u + unit - 1 - i] = x;
            }
          }
        });
    return element;
  }

  private static char separator(JsonDocument doc) {
    JsonNode node = doc.optional("dimension_separator");
    if (node == null) {
      return '.';
    }
    if (!node.isTextual() || !(node.textValue().equals(".") || node.textValue().equals("/"))) {
      throw doc.error(
          "dimension_separator", "must be \".\" or \"/\", not " + JsonDocument.describe(node));
    }
    return node.textValue().charAt(0);
  }

  /**
   * The {@code _ARRAY_DIMENSIONS} names when they are a list of {@code rank} strings, else none.
   */
  static List<String> dimensionNames(ObjectNode attributes, int rank) {
    JsonNode names = attributes == null ? null : attributes.get(ARRAY_DIMENSIONS);
    if (names == null || !names.isArray() || names.size() != rank) {
      return null;
    }
    List<String> out = new ArrayList<>();
    for (JsonNode n : names) {
      if (!n.isTextual()) {
        return null;
      }
      out.add(n.textValue());
    }
    return out;
  }

  private static List<CodecSpec> codecs(
      JsonDocument doc, NumpyDtype dtype, int rank, boolean fortran) {
    JsonNode compressor = doc.required("compressor");
    return chain(doc, dtype, rank, fortran, compressor.isNull() ? null : compressor);
  }

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
  private static NumpyDtype filterType(
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

  private static ObjectNode withoutId(JsonNode codec) {
    ObjectNode config = (ObjectNode) codec.deepCopy();
    config.remove("id");
    return config;
  }

  private static CodecSpec compressor(JsonDocument doc, JsonNode compressor, int itemSize) {
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
