package dev.zaro.arrow.metadata;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.MetadataException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.ObjIntConsumer;

/**
 * A Zarr element type, normalized over v2 and v3. Elements are stored in memory as {@link
 * #byteSize()} little-endian bytes (bool as one byte 0/1, complex as real then imaginary, raw
 * {@code r<N>} as its N/8 bytes).
 *
 * @param kind what the bytes mean
 * @param bits the element width in bits
 * @param name the v3 name ({@code "int16"}, {@code "r24"}, {@code "numpy.datetime64"}, ...)
 * @param unit the time unit of datetime and timedelta types in numpy's notation ({@code "D"},
 *     {@code "ms"}, {@code "10s"}: see {@link NumpyTime}), else null
 * @param fields the fields of a {@link Kind#STRUCT}, in element order; empty for other kinds
 */
public record DataType(Kind kind, int bits, String name, String unit, List<StructField> fields) {

  /** Copies the struct fields; null means none. */
  public DataType {
    fields = fields == null ? List.of() : List.copyOf(fields);
  }

  /** A type without unit or fields. */
  public DataType(Kind kind, int bits, String name) {
    this(kind, bits, name, null, null);
  }

  /** A type with a time unit (datetime, timedelta) and no fields. */
  public DataType(Kind kind, int bits, String name, String unit) {
    this(kind, bits, name, unit, null);
  }

  /** What an element's bytes mean. */
  public enum Kind {
    /** Booleans. */
    BOOL,
    /** Signed integers. */
    INT,
    /** Unsigned integers. */
    UINT,
    /** Floating point. */
    FLOAT,
    /** Complex numbers. */
    COMPLEX,
    /** Opaque fixed-size bytes. */
    RAW,
    /** numpy datetime64: int64 counts of {@link #unit()} since 1970-01-01 (NaT = min int64). */
    DATETIME,
    /** numpy timedelta64: int64 counts of {@link #unit()}. */
    TIMEDELTA,
    /** Variable-length UTF-8 text; in a slab each element is a 16-byte reference (see VarHeap). */
    STRING,
    /** Variable-length bytes; in a slab each element is a 16-byte reference (see VarHeap). */
    BYTES,
    /**
     * Fixed-length UTF-32 text (v3 fixed_length_utf32, numpy U): NUL-padded little-endian code
     * points.
     */
    FIXED_UTF32,
    /**
     * Fixed-length bytes with numpy's {@code S<n>} semantics (v2 {@code |S<n>}, v3 {@code
     * null_terminated_bytes}): each element is {@link #byteSize()} bytes, read without its trailing
     * NULs.
     */
    NULL_TERMINATED_BYTES,
    /**
     * A record of named fields at fixed byte offsets (v3 {@code struct}, v2 structured dtypes):
     * each element is {@link #byteSize()} bytes, each field's value in its own layout at its
     * offset.
     */
    STRUCT
  }

  /**
   * One field of a {@link Kind#STRUCT} type.
   *
   * @param name the field's name (unique within its struct)
   * @param type its element type
   * @param offset its first byte within the struct element
   * @param shape the shape of a numpy subarray field (v2 {@code ["b", "<f8", [2]]}), empty for a
   *     scalar field: the field then holds prod(shape) values of {@code type} in C order
   */
  public record StructField(String name, DataType type, int offset, List<Integer> shape) {
    /** Copies the field's sub-array shape. */
    public StructField {
      shape = List.copyOf(shape);
    }

    /** Values of {@link #type()} the field holds: 1, or the product of a subarray's shape. */
    public int count() {
      int n = 1;
      for (int s : shape) {
        n = Math.multiplyExact(n, s);
      }
      return n;
    }

    /** The field's size in bytes. */
    public int byteSize() {
      return Math.multiplyExact(type.byteSize(), count());
    }

    @Override
    public String toString() {
      return name + ": " + type + (shape.isEmpty() ? "" : shape.toString());
    }
  }

  /**
   * A struct type of {@code fields} in elements of {@code itemSize} bytes. Fields may leave gaps
   * (numpy's padding) but must not overlap or reach past the element.
   *
   * @param where the key and field, for the error message
   * @throws MetadataException naming the field that is empty, repeated, variable-length,
   *     overlapping or past the item size
   */
  public static DataType struct(List<StructField> fields, int itemSize, String where) {
    if (fields.isEmpty()) {
      throw new MetadataException(where + ": a struct needs at least one field");
    }
    Set<String> names = new HashSet<>();
    for (StructField f : fields) {
      if (f.name().isEmpty()) {
        throw new MetadataException(where + ": a struct field has an empty name");
      }
      if (!names.add(f.name())) {
        throw new MetadataException(where + ": struct field '" + f.name() + "' appears twice");
      }
      if (f.type().isVariableLength()) {
        throw new MetadataException(
            where
                + ": struct field '"
                + f.name()
                + "' has the variable-length type "
                + f.type()
                + "; struct fields need a fixed size");
      }
      if (f.offset() < 0 || (long) f.offset() + f.byteSize() > itemSize) {
        throw new MetadataException(
            where
                + ": struct field '"
                + f.name()
                + "' (bytes "
                + f.offset()
                + ".."
                + ((long) f.offset() + f.byteSize())
                + ") reaches past the item size of "
                + itemSize
                + " bytes");
      }
    }
    List<StructField> byOffset = new ArrayList<>(fields);
    byOffset.sort(Comparator.comparingInt(StructField::offset));
    for (int i = 1; i < byOffset.size(); i++) {
      StructField a = byOffset.get(i - 1);
      StructField b = byOffset.get(i);
      if (a.offset() + a.byteSize() > b.offset() && a.byteSize() > 0 && b.byteSize() > 0) {
        throw new MetadataException(
            where
                + ": struct fields '"
                + a.name()
                + "' (bytes "
                + a.offset()
                + ".."
                + (a.offset() + a.byteSize())
                + ") and '"
                + b.name()
                + "' (bytes "
                + b.offset()
                + ".."
                + (b.offset() + b.byteSize())
                + ") overlap");
      }
    }
    return new DataType(Kind.STRUCT, Math.multiplyExact(8, itemSize), "struct", null, fields);
  }

  /**
   * Integer types narrower than a byte (zarr-extensions int2, int4, uint2, uint4): stored one value
   * a byte, in the low bits (the bytes codec ignores the upper ones); zaro reads them as int8/uint8
   * with the upper bits sign-extended or cleared.
   */
  private static final Map<String, Integer> NARROW_INT_BITS =
      Map.of("int2", 2, "int4", 4, "uint2", 2, "uint4", 4);

  /**
   * Bits of a value that carry meaning: 2 or 4 for int2/int4/uint2/uint4, 4 or 6 for the
   * float4/float6 bit patterns, else {@link #bits()}. The bytes codec stores a narrow value in the
   * low bits of one byte and ignores the rest.
   */
  public int valueBits() {
    if (kind == Kind.INT || kind == Kind.UINT) {
      Integer narrow = NARROW_INT_BITS.get(name);
      if (narrow != null) {
        return narrow;
      }
      return fallbackFormat().map(MiniFloat::bits).orElse(bits);
    }
    return bits;
  }

  /**
   * Visits every scalar value of one element: {@code visit.accept(type, offset)} for the element
   * itself, or for a struct each field's values (subarray fields value by value, nested structs
   * recursively), with byte offsets counted from {@code offset}.
   */
  public void forEachValue(int offset, ObjIntConsumer<DataType> visit) {
    if (kind != Kind.STRUCT) {
      visit.accept(this, offset);
      return;
    }
    for (StructField f : fields) {
      for (int i = 0; i < f.count(); i++) {
        f.type().forEachValue(offset + f.offset() + i * f.type().byteSize(), visit);
      }
    }
  }

  /**
   * A stored byte of a narrow type ({@link #valueBits()} below 8) as zaro holds it: the value bits,
   * sign-extended for int2/int4, the upper bits cleared otherwise.
   */
  public byte canonicalByte(byte stored) {
    int shift = 32 - valueBits();
    return (byte) (kind == Kind.INT ? stored << shift >> shift : (stored << shift) >>> shift);
  }

  /** Whether some value (a field's, for a struct) uses fewer bits than it is stored in. */
  public boolean hasNarrowValues() {
    if (kind == Kind.STRUCT) {
      return fields.stream().anyMatch(f -> f.type().hasNarrowValues());
    }
    return valueBits() < bits;
  }

  /** Text of {@code chars} UTF-32 code points per element. */
  public static DataType fixedUtf32(int chars) {
    if (chars < 1) {
      throw new IllegalArgumentException(
          "fixed_length_utf32 needs at least one character, not " + chars);
    }
    return new DataType(Kind.FIXED_UTF32, 32 * chars, "fixed_length_utf32");
  }

  /** numpy {@code S<n>} (v3 {@code null_terminated_bytes}): n bytes, trailing NULs dropped. */
  public static DataType nullTerminatedBytes(int bytes) {
    if (bytes < 1) {
      throw new IllegalArgumentException(
          "null_terminated_bytes needs length_bytes of at least 1, not " + bytes);
    }
    return new DataType(
        Kind.NULL_TERMINATED_BYTES, Math.multiplyExact(8, bytes), "null_terminated_bytes");
  }

  /** v3 {@code raw_bytes} (numpy {@code V<n>}): n opaque bytes, read as {@code r<8n>} is. */
  public static DataType rawBytes(int bytes) {
    if (bytes < 1) {
      throw new IllegalArgumentException(
          "raw_bytes needs length_bytes of at least 1, not " + bytes);
    }
    return new DataType(Kind.RAW, Math.multiplyExact(8, bytes), "raw_bytes");
  }

  /** v3 {@code string} (with the vlen-utf8 codec). */
  public static final DataType STRING = new DataType(Kind.STRING, 128, "string");

  /** v3 {@code bytes} (with the vlen-bytes codec). */
  public static final DataType BYTES = new DataType(Kind.BYTES, 128, "bytes");

  /** Whether elements have variable length (their slab elements are references). */
  public boolean isVariableLength() {
    return kind == Kind.STRING || kind == Kind.BYTES;
  }

  /**
   * numpy.datetime64 with {@code unit}: numpy's unit text, a base unit optionally preceded by a
   * count ({@code "D"}, {@code "10s"}; see {@link NumpyTime}).
   *
   * @throws IllegalArgumentException naming the unit when it is unknown or its count is not
   *     positive
   */
  public static DataType datetime(String unit) {
    return new DataType(Kind.DATETIME, 64, "numpy.datetime64", NumpyTime.parse(unit).toString());
  }

  /** numpy.timedelta64 with {@code unit} (as {@link #datetime(String)}). */
  public static DataType timedelta(String unit) {
    return new DataType(Kind.TIMEDELTA, 64, "numpy.timedelta64", NumpyTime.parse(unit).toString());
  }

  /** The time unit of a datetime or timedelta type. */
  public NumpyTime time() {
    if (kind != Kind.DATETIME && kind != Kind.TIMEDELTA) {
      throw new IllegalStateException(this + " is not a time type");
    }
    return NumpyTime.parse(unit);
  }

  /** bool, one byte per value. */
  public static final DataType BOOL = new DataType(Kind.BOOL, 8, "bool");

  /** Signed 8-bit integers. */
  public static final DataType INT8 = new DataType(Kind.INT, 8, "int8");

  /** Signed 16-bit integers. */
  public static final DataType INT16 = new DataType(Kind.INT, 16, "int16");

  /** Signed 32-bit integers. */
  public static final DataType INT32 = new DataType(Kind.INT, 32, "int32");

  /** Signed 64-bit integers. */
  public static final DataType INT64 = new DataType(Kind.INT, 64, "int64");

  /** Unsigned 8-bit integers. */
  public static final DataType UINT8 = new DataType(Kind.UINT, 8, "uint8");

  /** Unsigned 16-bit integers. */
  public static final DataType UINT16 = new DataType(Kind.UINT, 16, "uint16");

  /** Unsigned 32-bit integers. */
  public static final DataType UINT32 = new DataType(Kind.UINT, 32, "uint32");

  /** Unsigned 64-bit integers. */
  public static final DataType UINT64 = new DataType(Kind.UINT, 64, "uint64");

  /** IEEE half precision. */
  public static final DataType FLOAT16 = new DataType(Kind.FLOAT, 16, "float16");

  /** IEEE single precision. */
  public static final DataType FLOAT32 = new DataType(Kind.FLOAT, 32, "float32");

  /** IEEE double precision. */
  public static final DataType FLOAT64 = new DataType(Kind.FLOAT, 64, "float64");

  /** Two float32 values, real then imaginary. */
  public static final DataType COMPLEX64 = new DataType(Kind.COMPLEX, 64, "complex64");

  /** Two float64 values, real then imaginary. */
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
          // zarr-python 3.1's names for numpy's complex64 and complex128
          Map.entry("complex_float32", COMPLEX64),
          Map.entry("complex_float64", COMPLEX128),
          Map.entry("string", STRING),
          Map.entry("bytes", BYTES),
          Map.entry("variable_length_bytes", BYTES));

  /** The raw type {@code r<bits>}; bits must be a positive multiple of 8. */
  public static DataType raw(int bits) {
    if (bits <= 0 || bits % 8 != 0) {
      throw new IllegalArgumentException(
          "raw data types need a positive multiple of 8 bits, not " + bits);
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
    if (NARROW_INT_BITS.containsKey(name)) {
      // one value a byte, in the low bits (the bytes codec ignores the upper ones): zaro reads
      // them as int8/uint8 with the upper bits sign-extended or cleared
      return new DataType(name.startsWith("u") ? Kind.UINT : Kind.INT, 8, name);
    }
    Optional<MiniFloat> fallback = MiniFloat.named(name);
    if (fallback.isPresent()) {
      return new DataType(Kind.UINT, (fallback.get().bits() + 7) / 8 * 8, name);
    }
    if (name.matches("r[1-9][0-9]{0,6}")) {
      int bits = Integer.parseInt(name.substring(1));
      if (bits % 8 == 0) {
        return raw(bits);
      }
      throw new MetadataException(
          where + ": raw data type '" + name + "' must have a multiple of 8 bits");
    }
    throw new MetadataException(
        ErrorKind.UNSUPPORTED,
        where
            + ": unknown data type '"
            + name
            + "' (known: "
            + String.join(", ", new TreeSet<>(CORE.keySet()))
            + ", "
            + String.join(", ", new TreeSet<>(NARROW_INT_BITS.keySet()))
            + ", r<bits>, struct, and the ML float types "
            + String.join(", ", MiniFloat.names())
            + ")");
  }

  /**
   * The floating-point format of an ML float type as stored ({@code bfloat16}, the {@code
   * float8_*}, {@code float6_*} and {@code float4_*} types): such a type has kind {@link Kind#UINT}
   * of its width rounded up to whole bytes, its values the format's bit patterns. Reads widen it to
   * {@link #widened} float32 values unless the caller asks for the bit patterns ({@code
   * ZaroOptions.withFallbackTypes}). A struct answers for its first such field (at any depth),
   * since reading it reads that field. Empty for every other type.
   */
  public Optional<MiniFloat> fallbackFormat() {
    if (kind == Kind.STRUCT) {
      return fields.stream()
          .map(f -> f.type().fallbackFormat())
          .flatMap(Optional::stream)
          .findFirst();
    }
    return kind == Kind.UINT ? MiniFloat.named(name) : Optional.empty();
  }

  /**
   * The float32 values of an ML float type: kind {@link Kind#FLOAT}, 32 bits, named after the
   * stored type (so the Arrow field can say what was stored: {@link #widenedFrom}).
   */
  public static DataType widened(MiniFloat format) {
    return new DataType(Kind.FLOAT, 32, format.name());
  }

  /** The stored ML float format of a {@link #widened} type; empty for every other type. */
  public Optional<MiniFloat> widenedFrom() {
    return kind == Kind.FLOAT && bits == 32 ? MiniFloat.named(name) : Optional.empty();
  }

  /** Bytes per element. */
  public int byteSize() {
    return bits / 8;
  }

  /**
   * Bytes per byte-swapped unit: half the element for complex, 1 for raw and bool; for a struct 1
   * when no field has multi-byte values, else 0 (its fields swap each by their own unit).
   */
  public int swapUnit() {
    return switch (kind) {
      case COMPLEX -> byteSize() / 2;
      case FIXED_UTF32 -> 4;
      case RAW, BOOL, STRING, BYTES, NULL_TERMINATED_BYTES -> 1;
      case STRUCT -> fields.stream().allMatch(f -> f.type().swapUnit() == 1) ? 1 : 0;
      default -> byteSize();
    };
  }

  @Override
  public String toString() {
    if (kind == Kind.STRUCT) {
      return "struct{"
          + String.join(", ", fields.stream().map(StructField::toString).toList())
          + "}";
    }
    return unit == null ? name : name + "[" + unit + "]";
  }
}
