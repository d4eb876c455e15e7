package dev.zaro.arrow.metadata.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.error.MetadataException;
import dev.zaro.arrow.metadata.DataType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A numeric numpy dtype as Zarr v2 and numcodecs write it ({@code "<i4"}, {@code ">f8"}, {@code
 * "|b1"}): zaro's {@link DataType} plus the byte order of the stored elements.
 *
 * <p>Also accepted, as numpy accepts them: no byte order or {@code "="} (native, which zaro takes
 * as little endian), {@code "|"} on multi-byte types (numpy reads it as native), and numpy's names
 * ({@code "int32"}, {@code "float64"}, {@code "bool"}), which numcodecs configurations written by
 * zarr-python 3 may hold.
 *
 * @param bigEndian whether stored elements are big endian (false for 1-byte types)
 */
public record NumpyDtype(DataType dataType, boolean bigEndian) {

  private static final Pattern TYPESTR = Pattern.compile("([<>|=]?)([a-zA-Z])([0-9]*)(\\[.*\\])?");

  private static final Map<String, DataType> CODES =
      Map.ofEntries(
          Map.entry("b1", DataType.BOOL),
          Map.entry("i1", DataType.INT8),
          Map.entry("i2", DataType.INT16),
          Map.entry("i4", DataType.INT32),
          Map.entry("i8", DataType.INT64),
          Map.entry("u1", DataType.UINT8),
          Map.entry("u2", DataType.UINT16),
          Map.entry("u4", DataType.UINT32),
          Map.entry("u8", DataType.UINT64),
          Map.entry("f2", DataType.FLOAT16),
          Map.entry("f4", DataType.FLOAT32),
          Map.entry("f8", DataType.FLOAT64),
          Map.entry("c8", DataType.COMPLEX64),
          Map.entry("c16", DataType.COMPLEX128));

  private static final Map<String, String> NAMES =
      Map.ofEntries(
          Map.entry("bool", "b1"),
          Map.entry("int8", "i1"),
          Map.entry("int16", "i2"),
          Map.entry("int32", "i4"),
          Map.entry("int64", "i8"),
          Map.entry("uint8", "u1"),
          Map.entry("uint16", "u2"),
          Map.entry("uint32", "u4"),
          Map.entry("uint64", "u8"),
          Map.entry("float16", "f2"),
          Map.entry("float32", "f4"),
          Map.entry("float64", "f8"),
          Map.entry("complex64", "c8"),
          Map.entry("complex128", "c16"));

  /** numpy kinds zaro knows but does not read as v2 data types yet. */
  private static final String UNSUPPORTED_KINDS = "aO";

  /**
   * Parses a numpy dtype string.
   *
   * @throws IllegalArgumentException with a message naming the string when it is not a numeric
   *     numpy dtype zaro reads (unknown, or a kind such as strings or datetimes not supported yet)
   */
  public static NumpyDtype parse(String s) {
    String named = NAMES.get(s);
    if (named != null) {
      return new NumpyDtype(CODES.get(named), false);
    }
    Matcher m = TYPESTR.matcher(s);
    if (!m.matches()) {
      throw new IllegalArgumentException("unknown data type '" + s + "'");
    }
    String order = m.group(1);
    String kind = m.group(2);
    if (UNSUPPORTED_KINDS.contains(kind)) {
      throw new IllegalArgumentException(
          "data type '"
              + s
              + "' is not supported yet (zaro reads v2"
              + " data types b1, i1-i8, u1-u8, f2-f8, c8, c16, S<n>, U<n>, V<n>, M8[unit], m8[unit], structured dtypes of"
              + " these, and vlen object arrays)");
    }
    if (kind.equals("M") || kind.equals("m")) {
      String unit = m.group(4) == null ? "" : m.group(4).substring(1, m.group(4).length() - 1);
      if (!m.group(3).equals("8") || unit.isEmpty()) {
        throw new IllegalArgumentException(
            "data type '"
                + s
                + "' is not supported (datetime64 and timedelta64 are, as M8[unit] and m8[unit])");
      }
      try {
        return new NumpyDtype(
            kind.equals("M") ? DataType.datetime(unit) : DataType.timedelta(unit),
            order.equals(">"));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("data type '" + s + "': " + e.getMessage(), e);
      }
    }
    if (kind.equals("U")) {
      int n = m.group(3).isEmpty() ? 0 : Integer.parseInt(m.group(3));
      if (n < 1 || m.group(4) != null) {
        throw new IllegalArgumentException(
            "data type '" + s + "' is not a fixed-length text type (<U<n>, n >= 1)");
      }
      return new NumpyDtype(DataType.fixedUtf32(n), order.equals(">"));
    }
    if (kind.equals("S")) {
      int n = m.group(3).isEmpty() ? 0 : Integer.parseInt(m.group(3));
      if (n < 1 || m.group(4) != null) {
        throw new IllegalArgumentException(
            "data type '" + s + "' is not a fixed-length bytes type (|S<n>, n >= 1)");
      }
      return new NumpyDtype(DataType.nullTerminatedBytes(n), false);
    }
    if (kind.equals("V")) {
      long n = m.group(3).isEmpty() || m.group(3).length() > 12 ? 0 : Long.parseLong(m.group(3));
      if (n < 1 || m.group(4) != null) {
        throw new IllegalArgumentException(
            "data type '" + s + "' is not a fixed-length void type (|V<n>, n >= 1)");
      }
      if (n > MAX_FIELD_BYTES) {
        throw new IllegalArgumentException(
            "data type '" + s + "': elements of more than " + MAX_FIELD_BYTES + " bytes");
      }
      return new NumpyDtype(DataType.rawBytes((int) n), false);
    }
    if (m.group(4) != null) {
      throw new IllegalArgumentException("unknown data type '" + s + "'");
    }
    DataType type = CODES.get(kind + m.group(3));
    if (type == null) {
      throw new IllegalArgumentException(
          "unknown data type '"
              + s
              + "' (zaro reads b1, i1, i2, i4, i8, u1, u2,"
              + " u4, u8, f2, f4, f8, c8, c16 with byte order <, > or |)");
    }
    return new NumpyDtype(type, order.equals(">") && type.swapUnit() > 1);
  }

  /**
   * Parses a structured numpy dtype as Zarr v2 writes it: numpy's {@code descr} list, entries
   * {@code [name, typestr]}, {@code [name, typestr, shape]} (a subarray field) or {@code [name,
   * [nested descr]]} (optionally with a shape), packed in order; an unnamed {@code ["", "|V<n>"]}
   * entry is padding (numpy writes it for aligned dtypes). Also numpy's dict form {@code {"names",
   * "formats", "offsets", "itemsize"}} with explicit offsets.
   *
   * @param where the key and field, for the error message
   * @throws MetadataException naming the field when a field is malformed, of an unsupported type,
   *     overlapping another, past the item size, or of another byte order than the rest
   */
  public static NumpyDtype parseStructured(JsonNode node, String where) {
    Map<String, Boolean> orders = new LinkedHashMap<>();
    DataType type = structured(node, where, "", orders);
    if (orders.values().stream().distinct().count() > 1) {
      throw new MetadataException(
          where
              + ": structured fields of both byte orders ("
              + orders.entrySet().stream()
                  .map(e -> "'" + e.getKey() + "' " + (e.getValue() ? "big" : "little"))
                  .collect(Collectors.joining(", "))
              + "); zaro reads structured dtypes whose multi-byte fields share one byte order");
    }
    return new NumpyDtype(type, orders.containsValue(true));
  }

  private static DataType structured(
      JsonNode node, String where, String prefix, Map<String, Boolean> orders) {
    List<DataType.StructField> fields = new ArrayList<>();
    if (node.isObject()) {
      JsonNode names = node.path("names");
      JsonNode formats = node.path("formats");
      JsonNode offsets = node.path("offsets");
      JsonNode itemsize = node.path("itemsize");
      if (!names.isArray()
          || !formats.isArray()
          || names.size() != formats.size()
          || (!offsets.isMissingNode() && (!offsets.isArray() || offsets.size() != names.size()))
          || (!itemsize.isMissingNode() && !itemsize.canConvertToInt())) {
        throw new MetadataException(
            where
                + ": a structured dtype object needs lists 'names' and 'formats'"
                + " (and 'offsets') of one length and an integer 'itemsize', not "
                + JsonDocument.describe(node));
      }
      int end = 0;
      for (int i = 0; i < names.size(); i++) {
        String name = names.get(i).asText("");
        if (!offsets.isMissingNode() && !offsets.get(i).canConvertToInt()) {
          throw new MetadataException(
              where
                  + ": structured field '"
                  + prefix
                  + name
                  + "': offset "
                  + offsets.get(i)
                  + " is not an integer");
        }
        int offset = offsets.isMissingNode() ? end : offsets.get(i).intValue();
        DataType.StructField f = field(name, formats.get(i), null, offset, where, prefix, orders);
        fields.add(f);
        end = Math.max(end, offset + f.byteSize());
      }
      return DataType.struct(
          fields, itemsize.isMissingNode() ? end : itemsize.intValue(), within(where, prefix));
    }
    if (!node.isArray() || node.isEmpty()) {
      throw new MetadataException(
          where
              + ": a structured dtype must be a non-empty list of fields, not "
              + JsonDocument.describe(node));
    }
    int offset = 0;
    for (JsonNode entry : node) {
      if (!entry.isArray() || entry.size() < 2 || entry.size() > 3 || !entry.get(0).isTextual()) {
        throw new MetadataException(
            where
                + ": a structured field must be [name, type] or [name, type, shape],"
                + " not "
                + JsonDocument.describe(entry));
      }
      String name = entry.get(0).textValue();
      JsonNode type = entry.get(1);
      if (name.isEmpty()
          && type.isTextual()
          && type.textValue().matches("\\|V[0-9]{1,6}")
          && entry.size() == 2) {
        offset = advance(offset, Integer.parseInt(type.textValue().substring(2)), where); // padding
        continue;
      }
      DataType.StructField f =
          field(name, type, entry.size() == 3 ? entry.get(2) : null, offset, where, prefix, orders);
      fields.add(f);
      offset = advance(offset, f.byteSize(), where);
    }
    return DataType.struct(fields, offset, within(where, prefix));
  }

  private static int advance(int offset, int bytes, String where) {
    if ((long) offset + bytes > MAX_FIELD_BYTES) {
      throw new MetadataException(
          where + ": a structured element of more than " + MAX_FIELD_BYTES + " bytes");
    }
    return offset + bytes;
  }

  /** {@code where}, naming the struct field ({@code "p."}) a nested struct's problem is in. */
  private static String within(String where, String prefix) {
    return prefix.isEmpty()
        ? where
        : where + " (in structured field '" + prefix.substring(0, prefix.length() - 1) + "')";
  }

  private static DataType.StructField field(
      String name,
      JsonNode type,
      JsonNode shapeNode,
      int offset,
      String where,
      String prefix,
      Map<String, Boolean> orders) {
    String at = where + ": structured field '" + prefix + name + "'";
    List<Integer> shape = new ArrayList<>();
    if (shapeNode != null) {
      if (!shapeNode.isArray()) {
        throw new MetadataException(
            at + ": shape must be a list of sizes, not " + JsonDocument.describe(shapeNode));
      }
      for (JsonNode n : shapeNode) {
        if (!n.canConvertToInt() || !n.isIntegralNumber() || n.intValue() < 1) {
          throw new MetadataException(
              at
                  + ": shape must be a list of positive sizes, not "
                  + JsonDocument.describe(shapeNode));
        }
        shape.add(n.intValue());
      }
    }
    DataType fieldType;
    if (type.isArray() || type.isObject()) {
      fieldType = structured(type, where, prefix + name + ".", orders);
    } else if (!type.isTextual()) {
      throw new MetadataException(
          at
              + ": type must be a numpy type string or a list of fields, not "
              + JsonDocument.describe(type));
    } else if (type.textValue().matches("\\|V[1-9][0-9]{0,5}")) {
      fieldType = DataType.raw(8 * Integer.parseInt(type.textValue().substring(2)));
    } else {
      NumpyDtype parsed;
      try {
        parsed = parse(type.textValue());
      } catch (IllegalArgumentException e) {
        throw new MetadataException(at + ": " + e.getMessage());
      }
      fieldType = parsed.dataType();
      if (fieldType.swapUnit() > 1) {
        orders.put(prefix + name, parsed.bigEndian());
      }
    }
    long size = fieldType.byteSize();
    for (int n : shape) {
      size *= n;
      if (size > MAX_FIELD_BYTES) {
        throw new MetadataException(at + ": holds more than " + MAX_FIELD_BYTES + " bytes");
      }
    }
    return new DataType.StructField(name, fieldType, offset, shape);
  }

  /** The largest structured field or element zaro reads. */
  private static final int MAX_FIELD_BYTES = 1 << 24;

  /** The little-endian numpy type string of {@code type}, for messages. */
  static String typestrOf(DataType type) {
    return new NumpyDtype(type, false).typestr();
  }

  /** The numpy type string: {@code "<i4"}, {@code ">f8"}, {@code "|u1"}. */
  public String typestr() {
    String code =
        switch (dataType.kind()) {
          case BOOL -> "b";
          case INT -> "i";
          case UINT -> "u";
          case FLOAT -> "f";
          case COMPLEX -> "c";
          case DATETIME -> "M";
          case TIMEDELTA -> "m";
          case RAW -> "V";
          case NULL_TERMINATED_BYTES -> "S";
          case FIXED_UTF32 -> "U";
          case STRUCT -> "V";
          default -> throw new IllegalStateException(dataType.toString());
        };
    if (dataType.kind() == DataType.Kind.DATETIME || dataType.kind() == DataType.Kind.TIMEDELTA) {
      return (bigEndian ? ">" : "<") + code + "8[" + dataType.unit() + "]";
    }
    if (dataType.kind() == DataType.Kind.RAW
        || dataType.kind() == DataType.Kind.NULL_TERMINATED_BYTES
        || dataType.kind() == DataType.Kind.STRUCT) {
      return "|" + code + dataType.byteSize();
    }
    if (dataType.kind() == DataType.Kind.FIXED_UTF32) {
      return (bigEndian ? ">" : "<") + "U" + dataType.byteSize() / 4;
    }
    String order = dataType.byteSize() == 1 ? "|" : bigEndian ? ">" : "<";
    return order + code + dataType.byteSize();
  }
}
