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
      ObjectNode config = V2Codecs.withoutId(objectCodec);
      NumpyDtype codes =
          V2Codecs.filterType(
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
      codecs.add(new CodecSpec("numcodecs." + id, V2Codecs.withoutId(objectCodec)));
    } else {
      codecs.add(new CodecSpec(id, null));
    }
    JsonNode compressor = doc.required("compressor");
    if (!compressor.isNull()) {
      codecs.add(V2Codecs.compressor(doc, compressor, itemSize));
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
    return V2Codecs.chain(doc, dtype, rank, fortran, compressor.isNull() ? null : compressor);
  }
}
