package dev.zaro.arrow.metadata;

import dev.zaro.arrow.error.MetadataException;
import java.util.Map;

/**
 * A Zarr element type, normalized over v2 and v3. Elements are stored in memory as
 * {@link #byteSize()} little-endian bytes (bool as one byte 0/1, complex as real then
 * imaginary, raw {@code r<N>} as its N/8 bytes).
 *
 * @param kind what the bytes mean
 * @param bits the element width in bits
 * @param name the v3 name ({@code "int16"}, {@code "r24"}, {@code "numpy.datetime64"}, ...)
 * @param unit the time unit of datetime and timedelta types ({@code "s"}, {@code "ms"},
 *     {@code "us"}, {@code "ns"}), else null
 */
public record DataType(Kind kind, int bits, String name, String unit) {

  public DataType(Kind kind, int bits, String name) {
    this(kind, bits, name, null);
  }

  /** What an element's bytes mean. */
  public enum Kind {
    BOOL,
    INT,
    UINT,
    FLOAT,
    COMPLEX,
    RAW,
    /** numpy datetime64: int64 counts of {@link #unit()} since 1970-01-01 (NaT = min int64). */
    DATETIME,
    /** numpy timedelta64: int64 counts of {@link #unit()}. */
    TIMEDELTA,
    /** Variable-length UTF-8 text; in a slab each element is a 16-byte reference (see VarHeap). */
    STRING,
    /** Variable-length bytes; in a slab each element is a 16-byte reference (see VarHeap). */
    BYTES,
    /** Fixed-length UTF-32 text (v3 fixed_length_utf32, numpy U): NUL-padded little-endian code points. */
    FIXED_UTF32
  }

  /** Text of {@code chars} UTF-32 code points per element. */
  public static DataType fixedUtf32(int chars) {
    if (chars < 1) {
      throw new IllegalArgumentException("fixed_length_utf32 needs at least one character, not " + chars);
    }
    return new DataType(Kind.FIXED_UTF32, 32 * chars, "fixed_length_utf32");
  }

  /** v3 {@code string} (with the vlen-utf8 codec). */
  public static final DataType STRING = new DataType(Kind.STRING, 128, "string");
  /** v3 {@code bytes} (with the vlen-bytes codec). */
  public static final DataType BYTES = new DataType(Kind.BYTES, 128, "bytes");

  /** Whether elements have variable length (their slab elements are references). */
  public boolean isVariableLength() {
    return kind == Kind.STRING || kind == Kind.BYTES;
  }

  /** Time units zaro maps onto Arrow timestamps and durations. */
  public static final java.util.Set<String> TIME_UNITS = java.util.Set.of("s", "ms", "us", "ns");

  /** numpy.datetime64 with {@code unit} (one of {@link #TIME_UNITS}). */
  public static DataType datetime(String unit) {
    checkUnit(unit);
    return new DataType(Kind.DATETIME, 64, "numpy.datetime64", unit);
  }

  /** numpy.timedelta64 with {@code unit} (one of {@link #TIME_UNITS}). */
  public static DataType timedelta(String unit) {
    checkUnit(unit);
    return new DataType(Kind.TIMEDELTA, 64, "numpy.timedelta64", unit);
  }

  private static void checkUnit(String unit) {
    if (!TIME_UNITS.contains(unit)) {
      throw new IllegalArgumentException("time unit '" + unit + "' is not one of " + new java.util.TreeSet<>(TIME_UNITS));
    }
  }

  public static final DataType BOOL = new DataType(Kind.BOOL, 8, "bool");
  public static final DataType INT8 = new DataType(Kind.INT, 8, "int8");
  public static final DataType INT16 = new DataType(Kind.INT, 16, "int16");
  public static final DataType INT32 = new DataType(Kind.INT, 32, "int32");
  public static final DataType INT64 = new DataType(Kind.INT, 64, "int64");
  public static final DataType UINT8 = new DataType(Kind.UINT, 8, "uint8");
  public static final DataType UINT16 = new DataType(Kind.UINT, 16, "uint16");
  public static final DataType UINT32 = new DataType(Kind.UINT, 32, "uint32");
  public static final DataType UINT64 = new DataType(Kind.UINT, 64, "uint64");
  public static final DataType FLOAT16 = new DataType(Kind.FLOAT, 16, "float16");
  public static final DataType FLOAT32 = new DataType(Kind.FLOAT, 32, "float32");
  public static final DataType FLOAT64 = new DataType(Kind.FLOAT, 64, "float64");
  public static final DataType COMPLEX64 = new DataType(Kind.COMPLEX, 64, "complex64");
  public static final DataType COMPLEX128 = new DataType(Kind.COMPLEX, 128, "complex128");

  private static final Map<String, DataType> CORE =
      Map.ofEntries(
          Map.entry("bool", BOOL),
          Map.entry("int8", INT8),
          Map.entry("int16", INT16),
          Map.entry("int32", INT32),
          Map.entry("int64", INT64),
          Map.entry("uint8", UINT8),
          Map.entry("uint16", UINT16),
          Map.entry("uint32", UINT32),
          Map.entry("uint64", UINT64),
          Map.entry("float16", FLOAT16),
          Map.entry("float32", FLOAT32),
          Map.entry("float64", FLOAT64),
          Map.entry("complex64", COMPLEX64),
          Map.entry("complex128", COMPLEX128),
          Map.entry("string", STRING),
          Map.entry("bytes", BYTES),
          Map.entry("variable_length_bytes", BYTES));

  /** The raw type {@code r<bits>}; bits must be a positive multiple of 8. */
  public static DataType raw(int bits) {
    if (bits <= 0 || bits % 8 != 0) {
      throw new IllegalArgumentException("raw data types need a positive multiple of 8 bits, not " + bits);
    }
    return new DataType(Kind.RAW, bits, "r" + bits);
  }

  /**
   * Parses a v3 core data type name.
   *
   * @param where the key and field, for the error message
   */
  public static DataType ofV3Name(String name, String where) {
    DataType core = CORE.get(name);
    if (core != null) {
      return core;
    }
    java.util.Optional<MiniFloat> fallback = MiniFloat.named(name);
    if (fallback.isPresent()) {
      return new DataType(Kind.UINT, fallback.get().bits(), name);
    }
    if (name.matches("r[1-9][0-9]{0,6}")) {
      int bits = Integer.parseInt(name.substring(1));
      if (bits % 8 == 0) {
        return raw(bits);
      }
      throw new MetadataException(where + ": raw data type '" + name
          + "' must have a multiple of 8 bits");
    }
    throw new MetadataException(dev.zaro.arrow.error.ErrorKind.UNSUPPORTED, where + ": unknown data type '" + name + "' (known: "
        + String.join(", ", new java.util.TreeSet<>(CORE.keySet())) + ", r<bits>, and as bit patterns only: "
        + String.join(", ", MiniFloat.names()) + ")");
  }

  /**
   * The floating-point format of a type zaro reads only as its bit patterns ({@code bfloat16},
   * the {@code float8_*} types): such a type has kind {@link Kind#UINT} of the same width, and a
   * read needs the caller's consent ({@code ZaroOptions.withFallbackTypes}). Empty for every
   * other type.
   */
  public java.util.Optional<MiniFloat> fallbackFormat() {
    return kind == Kind.UINT ? MiniFloat.named(name) : java.util.Optional.empty();
  }

  /** Bytes per element. */
  public int byteSize() {
    return bits / 8;
  }

  /** Bytes per byte-swapped unit: half the element for complex, 1 for raw and bool. */
  public int swapUnit() {
    return switch (kind) {
      case COMPLEX -> byteSize() / 2;
      case FIXED_UTF32 -> 4;
      case RAW, BOOL, STRING, BYTES -> 1;
      default -> byteSize();
    };
  }

  @Override
  public String toString() {
    return unit == null ? name : name + "[" + unit + "]";
  }
}
