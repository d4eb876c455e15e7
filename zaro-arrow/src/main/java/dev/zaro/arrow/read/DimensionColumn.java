package dev.zaro.arrow.read;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.plan.CoordinateValues;
import dev.zaro.arrow.vector.ArrowTypes;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * One dimension column of the table layout: the int64 index, or the values of the dimension's 1-D
 * coordinate array (copied to the heap once), or CF times as epoch microseconds. The one place that
 * decides what a dimension column holds: the table layout writes it, and {@code
 * plan.DimensionFilter} compares predicates against it.
 */
public final class DimensionColumn implements CoordinateValues {
  /** What the column holds. */
  public enum Kind {
    /** The int64 index along the dimension. */
    INDEX,
    /** The coordinate array's stored values (little endian, {@link #width()} bytes each). */
    VALUES,
    /** CF times converted to epoch microseconds. */
    TIMES
  }

  private final int dim;
  private final Field field;
  private final int width;
  private final byte[] values;
  private final long[] times;
  private final DataType type;

  private DimensionColumn(
      int dim, Field field, int width, byte[] values, long[] times, DataType type) {
    this.dim = dim;
    this.field = field;
    this.width = width;
    this.values = values;
    this.times = times;
    this.type = type;
  }

  /** The index column of dimension {@code dim}. */
  public static DimensionColumn index(int dim, String name) {
    return new DimensionColumn(
        dim,
        new Field(name, FieldType.notNullable(new ArrowType.Int(64, true)), null),
        8,
        null,
        null,
        null);
  }

  /**
   * The column of dimension {@code dim} from its coordinate array, or the index column when {@code
   * coordinate} is null or of a type no column can hold (bool, complex).
   *
   * @param attributes the coordinate array's attributes (CF time units)
   * @param cf whether CF times become timestamps
   */
  public static DimensionColumn of(
      int dim, String name, Slab coordinate, JsonNode attributes, boolean cf) {
    if (coordinate == null) {
      return index(dim, name);
    }
    DataType type = coordinate.dataType();
    Field field = field(name, type, attributes, cf);
    if (field == null) {
      return index(dim, name);
    }
    byte[] values = new byte[(int) coordinate.byteSize()];
    coordinate.data().getBytes(0, values);
    if (field.getType() instanceof ArrowType.Timestamp && type.kind() != DataType.Kind.DATETIME) {
      CfConventions.TimeUnits units = CfConventions.timeUnits(attributes).orElseThrow();
      long[] times = new long[(int) coordinate.elementCount()];
      ByteBuffer b = ByteBuffer.wrap(values).order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < times.length; i++) {
        double v =
            switch (type.kind()) {
              case FLOAT -> type.bits() == 32 ? b.getFloat(i * 4) : b.getDouble(i * 8);
              default -> type.bits() == 32 ? b.getInt(i * 4) : (double) b.getLong(i * 8);
            };
        times[i] = units.toMicros(v);
      }
      return new DimensionColumn(dim, field, 8, null, times, type);
    }
    if ((type.kind() == DataType.Kind.DATETIME || type.kind() == DataType.Kind.TIMEDELTA)
        && !type.time().isIdentity()) {
      // numpy time units Arrow has no type for (D, W, M, Y, h, m, counts): the Arrow values
      boolean datetime = type.kind() == DataType.Kind.DATETIME;
      try {
        byte[] converted = type.time().convertAll(values, datetime);
        return new DimensionColumn(
            dim, field, type.time().target(datetime).bytes(), converted, null, type);
      } catch (ArithmeticException e) {
        throw new ZaroException(
            ErrorKind.UNSUPPORTED,
            "coordinate '" + name + "' (" + type + "): " + e.getMessage(),
            e);
      }
    }
    return new DimensionColumn(dim, field, type.byteSize(), values, null, type);
  }

  /**
   * The field of a dimension column whose coordinate array has {@code type} and {@code attributes},
   * from metadata alone (no values read); null when the column is the index instead (a type no
   * column can hold: bool, complex, text, narrow or bit-pattern types).
   */
  public static Field field(String name, DataType type, JsonNode attributes, boolean cf) {
    boolean orderable =
        switch (type.kind()) {
          case INT, UINT, FLOAT, DATETIME, TIMEDELTA -> true;
          default -> false;
        };
    if (!orderable || type.fallbackFormat().isPresent() || type.bits() < 8) {
      return null;
    }
    boolean numeric =
        type.kind() == DataType.Kind.INT
            || type.kind() == DataType.Kind.UINT
            || type.kind() == DataType.Kind.FLOAT;
    if (cf && numeric && type.bits() >= 32 && CfConventions.timeUnits(attributes).isPresent()) {
      return new Field(
          name, FieldType.notNullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)), null);
    }
    return new Field(name, FieldType.notNullable(ArrowTypes.valueType(type)), null);
  }

  @Override
  public int dim() {
    return dim;
  }

  @Override
  public String name() {
    return field.getName();
  }

  /** True for CF times (kind TIMES), which predicates may compare with dates. */
  @Override
  public boolean isEpochMicros() {
    return kind() == Kind.TIMES;
  }

  public Field field() {
    return field;
  }

  /** Bytes per row of the column's data buffer. */
  public int width() {
    return width;
  }

  public Kind kind() {
    return times != null ? Kind.TIMES : values != null ? Kind.VALUES : Kind.INDEX;
  }

  /** The coordinate values as stored (kind VALUES), else null. Not copied: do not modify. */
  byte[] values() {
    return values;
  }

  /** Epoch microseconds (kind TIMES), else null. Not copied: do not modify. */
  long[] times() {
    return times;
  }

  /** The coordinate's data type (kinds VALUES and TIMES), else null. */
  public DataType type() {
    return type;
  }

  /**
   * The column's value at array index {@code i} as a number for ordering: the index itself, epoch
   * microseconds, or the coordinate value (unsigned 64-bit values above 2^63 lose precision).
   */
  @Override
  public double valueAt(long i) {
    if (kind() == Kind.INDEX) {
      return i;
    }
    if (kind() == Kind.TIMES) {
      return times[(int) i];
    }
    ByteBuffer b = ByteBuffer.wrap(values).order(ByteOrder.LITTLE_ENDIAN);
    int at = (int) (i * width);
    return switch (type.kind()) {
      case FLOAT ->
          switch (type.bits()) {
            case 16 -> dev.zaro.arrow.metadata.HalfFloat.toFloat(b.getShort(at));
            case 32 -> b.getFloat(at);
            default -> b.getDouble(at);
          };
      case UINT ->
          switch (type.bits()) {
            case 8 -> b.get(at) & 0xff;
            case 16 -> b.getShort(at) & 0xffff;
            case 32 -> b.getInt(at) & 0xffffffffL;
            default -> {
              long v = b.getLong(at);
              yield v >= 0 ? v : (v >>> 1) * 2.0 + (v & 1);
            }
          };
      default ->
          switch (8 * width) { // a converted time coordinate's Arrow width (date32: 4 bytes)
            case 8 -> b.get(at);
            case 16 -> b.getShort(at);
            case 32 -> b.getInt(at);
            default -> (double) b.getLong(at);
          };
    };
  }
}
