package dev.zaro.arrow.vector;

import dev.zaro.arrow.metadata.DataType;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The Zarr to Arrow type mapping (README, "Arrow shapes"): bool to Bool, intN/uintN to Int
 * (signedness kept), float16 to HalfFloat, float32/64 to FloatingPoint, complex to its float
 * component type (with a trailing dimension of 2), r&lt;N&gt; to FixedSizeBinary,
 * int2/int4/uint2/uint4 to Int(8), struct to Struct (its children: {@link StructVectors#field}).
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
      case DATETIME -> new ArrowType.Timestamp(timeUnit(type.unit()), null);
      case TIMEDELTA -> new ArrowType.Duration(timeUnit(type.unit()));
      case STRING, FIXED_UTF32 -> ArrowType.Utf8.INSTANCE;
      case BYTES -> ArrowType.Binary.INSTANCE;
      case STRUCT -> ArrowType.Struct.INSTANCE;
    };
  }

  /** Arrow values per element: 2 for complex, else 1. */
  public static int valuesPerElement(DataType type) {
    return type.kind() == DataType.Kind.COMPLEX ? 2 : 1;
  }

  private static org.apache.arrow.vector.types.TimeUnit timeUnit(String unit) {
    return switch (unit) {
      case "s" -> org.apache.arrow.vector.types.TimeUnit.SECOND;
      case "ms" -> org.apache.arrow.vector.types.TimeUnit.MILLISECOND;
      case "us" -> org.apache.arrow.vector.types.TimeUnit.MICROSECOND;
      default -> org.apache.arrow.vector.types.TimeUnit.NANOSECOND;
    };
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
