package dev.zaro.arrow.vector.internal;

import dev.zaro.arrow.metadata.DataType;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The Zarr to Arrow type mapping (docs/formats.md, "Arrow shapes"): bool to Bool, intN/uintN to Int
 * (signedness kept), float16 to HalfFloat, float32/64 to FloatingPoint, complex to its float
 * component type (with a trailing dimension of 2), r&lt;N&gt; to FixedSizeBinary,
 * int2/int4/uint2/uint4 to Int(8), struct to Struct (its children: {@code
 * vector.StructVectors.field}), numpy {@code S<n>} ({@code null_terminated_bytes}) to Binary
 * without trailing NULs, datetime64 and timedelta64 as {@link TimeValues} maps them.
 */
public final class ArrowTypes {
  private ArrowTypes() {}

  /** The Arrow type of one stored value (one component, for complex). */
  public static ArrowType valueType(DataType type) {
    return switch (type.kind()) {
      case BOOL -> ArrowType.Bool.INSTANCE;
      case INT -> new ArrowType.Int(type.bits(), true);
      case UINT -> new ArrowType.Int(type.bits(), false);
      case FLOAT -> new ArrowType.FloatingPoint(precision(type.bits()));
      case COMPLEX -> new ArrowType.FloatingPoint(precision(type.bits() / 2));
      case RAW -> new ArrowType.FixedSizeBinary(type.byteSize());
      case DATETIME, TIMEDELTA -> TimeValues.arrowType(type);
      case STRING, FIXED_UTF32 -> ArrowType.Utf8.INSTANCE;
      case BYTES, NULL_TERMINATED_BYTES -> ArrowType.Binary.INSTANCE;
      case STRUCT -> ArrowType.Struct.INSTANCE;
    };
  }

  /** Arrow values per element: 2 for complex, else 1. */
  public static int valuesPerElement(DataType type) {
    return type.kind() == DataType.Kind.COMPLEX ? 2 : 1;
  }

  /** Whether values of {@code type} may be null in Arrow (numpy's NaT is a null). */
  public static boolean nullable(DataType type) {
    return TimeValues.isTime(type);
  }

  private static FloatingPointPrecision precision(int bits) {
    return switch (bits) {
      case 16 -> FloatingPointPrecision.HALF;
      case 32 -> FloatingPointPrecision.SINGLE;
      case 64 -> FloatingPointPrecision.DOUBLE;
      default -> throw new IllegalArgumentException("no Arrow float type of " + bits + " bits");
    };
  }
}
