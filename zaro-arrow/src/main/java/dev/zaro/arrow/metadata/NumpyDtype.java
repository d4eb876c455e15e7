package dev.zaro.arrow.metadata;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A numeric numpy dtype as Zarr v2 and numcodecs write it ({@code "<i4"}, {@code ">f8"},
 * {@code "|b1"}): zaro's {@link DataType} plus the byte order of the stored elements.
 *
 * <p>Also accepted, as numpy accepts them: no byte order or {@code "="} (native, which zaro
 * takes as little endian), {@code "|"} on multi-byte types (numpy reads it as native), and
 * numpy's names ({@code "int32"}, {@code "float64"}, {@code "bool"}), which numcodecs
 * configurations written by zarr-python 3 may hold.
 *
 * @param bigEndian whether stored elements are big endian (false for 1-byte types)
 */
public record NumpyDtype(DataType dataType, boolean bigEndian) {

  private static final Pattern TYPESTR = Pattern.compile("([<>|=]?)([a-zA-Z])([0-9]*)(\\[.*\\])?");

  private static final Map<String, DataType> CODES = Map.ofEntries(
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

  private static final Map<String, String> NAMES = Map.ofEntries(
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
  private static final String UNSUPPORTED_KINDS = "aOV";

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
      throw new IllegalArgumentException("data type '" + s + "' is not supported yet (zaro reads v2"
          + " data types b1, i1-i8, u1-u8, f2-f8, c8, c16, S<n>, U<n>, M8[unit], m8[unit] and vlen object arrays)");
    }
    if (kind.equals("M") || kind.equals("m")) {
      String unit = m.group(4) == null ? "" : m.group(4).substring(1, m.group(4).length() - 1);
      if (!m.group(3).equals("8") || !DataType.TIME_UNITS.contains(unit)) {
        throw new IllegalArgumentException("data type '" + s + "' is not supported (datetime64 and timedelta64"
            + " with units s, ms, us or ns are)");
      }
      return new NumpyDtype(kind.equals("M") ? DataType.datetime(unit) : DataType.timedelta(unit), order.equals(">"));
    }
    if (kind.equals("U")) {
      int n = m.group(3).isEmpty() ? 0 : Integer.parseInt(m.group(3));
      if (n < 1 || m.group(4) != null) {
        throw new IllegalArgumentException("data type '" + s + "' is not a fixed-length text type (<U<n>, n >= 1)");
      }
      return new NumpyDtype(DataType.fixedUtf32(n), order.equals(">"));
    }
    if (kind.equals("S")) {
      int n = m.group(3).isEmpty() ? 0 : Integer.parseInt(m.group(3));
      if (n < 1 || m.group(4) != null) {
        throw new IllegalArgumentException("data type '" + s + "' is not a fixed-length bytes type (|S<n>, n >= 1)");
      }
      return new NumpyDtype(DataType.raw(8 * n), false);
    }
    if (m.group(4) != null) {
      throw new IllegalArgumentException("unknown data type '" + s + "'");
    }
    DataType type = CODES.get(kind + m.group(3));
    if (type == null) {
      throw new IllegalArgumentException("unknown data type '" + s + "' (zaro reads b1, i1, i2, i4, i8, u1, u2,"
          + " u4, u8, f2, f4, f8, c8, c16 with byte order <, > or |)");
    }
    return new NumpyDtype(type, order.equals(">") && type.swapUnit() > 1);
  }

  /** The little-endian numpy type string of {@code type}, for messages. */
  static String typestrOf(DataType type) {
    return new NumpyDtype(type, false).typestr();
  }

  /** The numpy type string: {@code "<i4"}, {@code ">f8"}, {@code "|u1"}. */
  public String typestr() {
    String code = switch (dataType.kind()) {
      case BOOL -> "b";
      case INT -> "i";
      case UINT -> "u";
      case FLOAT -> "f";
      case COMPLEX -> "c";
      case DATETIME -> "M";
      case TIMEDELTA -> "m";
      case RAW -> "S";
      case FIXED_UTF32 -> "U";
      default -> throw new IllegalStateException(dataType.toString());
    };
    if (dataType.kind() == DataType.Kind.DATETIME || dataType.kind() == DataType.Kind.TIMEDELTA) {
      return (bigEndian ? ">" : "<") + code + "8[" + dataType.unit() + "]";
    }
    if (dataType.kind() == DataType.Kind.RAW) {
      return "|S" + dataType.byteSize();
    }
    if (dataType.kind() == DataType.Kind.FIXED_UTF32) {
      return (bigEndian ? ">" : "<") + "U" + dataType.byteSize() / 4;
    }
    String order = dataType.byteSize() == 1 ? "|" : bigEndian ? ">" : "<";
    return order + code + dataType.byteSize();
  }
}
