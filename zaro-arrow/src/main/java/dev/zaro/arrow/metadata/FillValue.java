package dev.zaro.arrow.metadata;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.error.MetadataException;
import dev.zaro.arrow.metadata.internal.HalfFloat;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The fill value of an array as the bytes of one element in zaro's in-memory layout (little endian;
 * see {@link DataType}).
 */
public final class FillValue {
  private final byte[] element;
  private final boolean zero;
  private final boolean unset;

  /** The fill value whose one element is the bytes {@code element}. */
  public FillValue(byte[] element) {
    this(element, false);
  }

  private FillValue(byte[] element, boolean unset) {
    this.element = element.clone();
    boolean allZero = true;
    for (byte b : element) {
      allZero &= b == 0;
    }
    this.zero = allZero;
    this.unset = unset;
  }

  /** All-zero bytes of the given type: zarr's default when no fill value is given. */
  public static FillValue zero(DataType type) {
    return new FillValue(new byte[type.byteSize()]);
  }

  /**
   * A v2 {@code "fill_value": null}: no fill value declared; uninitialized chunks read as zeros,
   * but (unlike a declared 0) the zeros are not missing values to readers that mask the fill value.
   */
  public static FillValue unset(DataType type) {
    return new FillValue(new byte[type.byteSize()], true);
  }

  /** Whether this is a v2 {@code null} fill value ({@link #unset}). */
  public boolean isUnset() {
    return unset;
  }

  /** A copy of the element's bytes. */
  public byte[] bytes() {
    return element.clone();
  }

  /** Whether every byte is zero (filling is then a memset). */
  public boolean isZero() {
    return zero;
  }

  /**
   * Parses a v3 {@code fill_value}: a bool literal, an integer, a float number or {@code "NaN"},
   * {@code "Infinity"}, {@code "-Infinity"}, {@code "0x..."} raw bits, a complex {@code [re, im]}
   * pair, a byte list for raw types, an object of the fields' fill values for a struct (or, as
   * legacy {@code structured} arrays have it, base64 of the packed little-endian element).
   *
   * @param where the key and field, for the error message
   */
  public static FillValue parse(JsonNode node, DataType type, String where) {
    if (node == null || node.isNull()) {
      throw new MetadataException(where + ": fill_value is required for data type " + type);
    }
    if (type.kind() == DataType.Kind.STRING) {
      if (!node.isTextual()) {
        throw new MetadataException(
            where + ": fill_value for string must be a string, not " + node);
      }
      return new FillValue(node.textValue().getBytes(StandardCharsets.UTF_8));
    }
    if (type.kind() == DataType.Kind.FIXED_UTF32) {
      if (!node.isTextual()) {
        throw new MetadataException(
            where + ": fill_value for " + type + " must be a string, not " + node);
      }
      int[] codePoints = node.textValue().codePoints().toArray();
      if (codePoints.length > type.byteSize() / 4) {
        throw new MetadataException(
            where
                + ": fill_value '"
                + node.textValue()
                + "' is longer than "
                + type.byteSize() / 4
                + " characters");
      }
      ByteBuffer b = ByteBuffer.allocate(type.byteSize()).order(ByteOrder.LITTLE_ENDIAN);
      for (int c : codePoints) {
        b.putInt(c);
      }
      return new FillValue(b.array());
    }
    if (type.kind() == DataType.Kind.BYTES) {
      if (node.isTextual()) {
        try {
          return new FillValue(Base64.getDecoder().decode(node.textValue()));
        } catch (IllegalArgumentException e) {
          throw new MetadataException(where + ": fill_value for bytes is not base64: " + node);
        }
      }
      if (node.isArray()) {
        byte[] b = new byte[node.size()];
        for (int i = 0; i < b.length; i++) {
          if (!node.get(i).isIntegralNumber()
              || node.get(i).intValue() < 0
              || node.get(i).intValue() > 255) {
            throw new MetadataException(
                where + ": fill_value byte " + node.get(i) + " is not in 0..255");
          }
          b[i] = (byte) node.get(i).intValue();
        }
        return new FillValue(b);
      }
      throw new MetadataException(
          where + ": fill_value for bytes must be base64 text or a byte list, not " + node);
    }
    if (type.kind() == DataType.Kind.STRUCT) {
      return new FillValue(structBytes(node, type, where));
    }
    if (node.isTextual()
        && (type.kind() == DataType.Kind.NULL_TERMINATED_BYTES
            || type.kind() == DataType.Kind.RAW)) {
      return fromBase64(node.textValue(), type, type.kind() == DataType.Kind.RAW, where);
    }
    ByteBuffer out = ByteBuffer.allocate(type.byteSize()).order(ByteOrder.LITTLE_ENDIAN);
    Optional<MiniFloat> format = type.fallbackFormat();
    if (format.isPresent()) {
      putFloat(out, node, type.byteSize(), type, where);
      return new FillValue(out.array());
    }
    switch (type.kind()) {
      case BOOL -> {
        if (!node.isBoolean()) {
          throw new MetadataException(
              where + ": fill_value for bool must be true or false, not " + node);
        }
        out.put((byte) (node.booleanValue() ? 1 : 0));
      }
      case INT, UINT -> putInteger(out, node, type, where);
      case DATETIME, TIMEDELTA -> {
        if (node.isTextual() && node.textValue().equals("NaT")) {
          out.putLong(Long.MIN_VALUE);
        } else if (node.isIntegralNumber() && node.canConvertToLong()) {
          try {
            if (node.longValue() != NumpyTime.NAT) { // zarr-python writes NaT as this integer
              type.time().convert(node.longValue(), type.kind() == DataType.Kind.DATETIME);
            }
          } catch (ArithmeticException e) {
            throw new MetadataException(where + ": fill_value: " + e.getMessage(), e);
          }
          out.putLong(node.longValue());
        } else {
          throw new MetadataException(
              where + ": fill_value for " + type + " must be an integer or \"NaT\", not " + node);
        }
      }
      case FLOAT -> putFloat(out, node, type.byteSize(), type, where);
      case COMPLEX -> {
        if (!node.isArray() || node.size() != 2) {
          throw new MetadataException(
              where
                  + ": fill_value for "
                  + type
                  + " must be a [real, imaginary] pair, not "
                  + node);
        }
        putFloat(out, node.get(0), type.byteSize() / 2, type, where);
        putFloat(out, node.get(1), type.byteSize() / 2, type, where);
      }
      case STRING, BYTES, FIXED_UTF32, STRUCT -> throw new IllegalStateException("handled above");
      case RAW, NULL_TERMINATED_BYTES -> {
        if (!node.isArray() || node.size() != type.byteSize()) {
          throw new MetadataException(
              where
                  + ": fill_value for "
                  + type
                  + " must be a list of "
                  + type.byteSize()
                  + " byte values, not "
                  + node);
        }
        for (JsonNode b : node) {
          if (!b.canConvertToInt()
              || !b.isIntegralNumber()
              || b.intValue() < 0
              || b.intValue() > 255) {
            throw new MetadataException(where + ": fill_value byte " + b + " is not in 0..255");
          }
          out.put((byte) b.intValue());
        }
      }
    }
    return new FillValue(out.array());
  }

  /**
   * A fixed-length bytes fill value from base64 text (zarr-python 2 for {@code |S<n>} and {@code
   * |V<n>}, zarr-python 3.1 for {@code null_terminated_bytes} and {@code raw_bytes}).
   *
   * @param exact whether the text must decode to exactly one element ({@code raw_bytes}); else it
   *     may be shorter and is padded with NULs, as numpy pads {@code S<n>} values
   * @param where the key and field, for the error message
   * @throws MetadataException naming the field when the text is not base64 or decodes to the wrong
   *     length
   */
  public static FillValue fromBase64(String text, DataType type, boolean exact, String where) {
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw new MetadataException(
          where + ": fill_value '" + text + "' for " + type + " is not base64: " + e.getMessage(),
          e);
    }
    if (bytes.length > type.byteSize() || (exact && bytes.length != type.byteSize())) {
      throw new MetadataException(
          where
              + ": fill_value '"
              + text
              + "' decodes to "
              + bytes.length
              + " bytes; "
              + type
              + " elements are "
              + (exact ? "" : "at most ")
              + type.byteSize()
              + " bytes");
    }
    return new FillValue(Arrays.copyOf(bytes, type.byteSize()));
  }

  /** A struct's fill value: an object of per-field fill values, or base64 of the element. */
  private static byte[] structBytes(JsonNode node, DataType type, String where) {
    byte[] element = new byte[type.byteSize()];
    if (node.isTextual()) {
      byte[] b;
      try {
        b = Base64.getDecoder().decode(node.textValue());
      } catch (IllegalArgumentException e) {
        throw new MetadataException(
            where
                + ": fill_value for a struct must be an object of field values"
                + " (or base64 of the element), not "
                + node);
      }
      if (b.length != element.length) {
        throw new MetadataException(
            where
                + ": fill_value holds "
                + b.length
                + " bytes (base64), the struct "
                + element.length);
      }
      type.forEachValue(
          0,
          (value, at) -> {
            if (value.valueBits() < value.bits()) {
              b[at] = value.canonicalByte(b[at]);
            }
          });
      return b;
    }
    if (!node.isObject()) {
      throw new MetadataException(
          where + ": fill_value for a struct must be an object of field values, not " + node);
    }
    Set<String> names = new HashSet<>();
    for (DataType.StructField f : type.fields()) {
      names.add(f.name());
      JsonNode value = node.get(f.name());
      String at = where + ", struct field '" + f.name() + "'";
      if (value == null) {
        throw new MetadataException(
            at + ": missing from the fill_value (a struct's fill_value names every field)");
      }
      List<JsonNode> values = new ArrayList<>();
      flatten(value, f.shape().size(), values, at);
      if (values.size() != f.count()) {
        throw new MetadataException(
            at
                + ": fill_value needs "
                + f.count()
                + " values for shape "
                + f.shape()
                + ", not "
                + value);
      }
      for (int i = 0; i < values.size(); i++) {
        byte[] b = parse(values.get(i), f.type(), at).element;
        System.arraycopy(b, 0, element, f.offset() + i * f.type().byteSize(), b.length);
      }
    }
    node.fieldNames()
        .forEachRemaining(
            n -> {
              if (!names.contains(n)) {
                throw new MetadataException(
                    where + ": fill_value names '" + n + "', which is not a field of " + type);
              }
            });
    return element;
  }

  /** The values of a subarray field's fill value (nested lists, {@code depth} deep), in C order. */
  private static void flatten(JsonNode node, int depth, List<JsonNode> out, String where) {
    if (depth == 0) {
      out.add(node);
      return;
    }
    if (!node.isArray()) {
      throw new MetadataException(
          where + ": fill_value of a subarray field must be a list, not " + node);
    }
    node.forEach(n -> flatten(n, depth - 1, out, where));
  }

  private static void putInteger(ByteBuffer out, JsonNode node, DataType type, String where) {
    BigInteger value;
    if (node.isIntegralNumber()) {
      value = node.bigIntegerValue();
    } else if (node.isNumber()
        && node.doubleValue() == Math.rint(node.doubleValue())
        && !Double.isInfinite(node.doubleValue())) {
      value = node.decimalValue().toBigIntegerExact();
    } else {
      throw new MetadataException(
          where + ": fill_value for " + type + " must be an integer, not " + node);
    }
    int bits = type.valueBits();
    BigInteger min =
        type.kind() == DataType.Kind.INT
            ? BigInteger.ONE.shiftLeft(bits - 1).negate()
            : BigInteger.ZERO;
    BigInteger max =
        type.kind() == DataType.Kind.INT
            ? BigInteger.ONE.shiftLeft(bits - 1).subtract(BigInteger.ONE)
            : BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE);
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new MetadataException(where + ": fill_value " + value + " does not fit in " + type);
    }
    long v = value.longValue();
    for (int i = 0; i < type.byteSize(); i++) {
      out.put((byte) (v >>> (8 * i)));
    }
  }

  private static void putFloat(
      ByteBuffer out, JsonNode node, int width, DataType type, String where) {
    if (node.isTextual() && node.textValue().startsWith("0x")) {
      String hex = node.textValue().substring(2);
      if (hex.length() != width * 2 || !hex.matches("[0-9a-fA-F]+")) {
        throw new MetadataException(
            where
                + ": fill_value '"
                + node.textValue()
                + "' for "
                + type
                + " must be 0x followed by "
                + width * 2
                + " hex digits");
      }
      long bits = Long.parseUnsignedLong(hex, 16);
      if (type.valueBits() < 8 * width && bits >>> type.valueBits() != 0) {
        throw new MetadataException(
            where
                + ": fill_value '"
                + node.textValue()
                + "' for "
                + type
                + " has bits set above its "
                + type.valueBits()
                + " value bits");
      }
      for (int i = 0; i < width; i++) {
        out.put((byte) (bits >>> (8 * i)));
      }
      return;
    }
    double value;
    if (node.isNumber()) {
      value = node.doubleValue();
    } else if (node.isTextual()) {
      value =
          switch (node.textValue()) {
            case "NaN" -> Double.NaN;
            case "Infinity" -> Double.POSITIVE_INFINITY;
            case "-Infinity" -> Double.NEGATIVE_INFINITY;
            default ->
                throw new MetadataException(
                    where
                        + ": fill_value '"
                        + node.textValue()
                        + "' for "
                        + type
                        + " is not a number, \"NaN\", \"Infinity\", \"-Infinity\" or \"0x...\"");
          };
    } else {
      throw new MetadataException(
          where + ": fill_value for " + type + " must be a number, not " + node);
    }
    Optional<MiniFloat> format = type.fallbackFormat();
    if (format.isPresent()) {
      if (!format.get().hasSpecialValues() && !Double.isFinite(value)) {
        throw new MetadataException(
            where
                + ": fill_value "
                + node
                + " for "
                + type
                + " is not a number it has (it has no infinities and no NaN)");
      }
      int bits = format.get().encode(value);
      for (int i = 0; i < width; i++) {
        out.put((byte) (bits >>> (8 * i)));
      }
      return;
    }
    switch (width) {
      case 2 -> out.putShort(HalfFloat.fromDouble(value));
      case 4 -> out.putFloat((float) value);
      case 8 -> out.putDouble(value);
      default -> throw new IllegalStateException("float width " + width);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FillValue f && Arrays.equals(element, f.element);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(element);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("0x");
    for (int i = element.length - 1; i >= 0; i--) {
      sb.append(String.format("%02x", element[i]));
    }
    return sb.toString();
  }
}
