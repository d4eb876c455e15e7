package dev.zaro.spark;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DayTimeIntervalType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.YearMonthIntervalType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;

/**
 * The Spark side of zaro's table layout: the Spark type of each Arrow column, and the column vector
 * Spark reads it through. Types Spark's {@link ArrowColumnVector} reads (signed ints, float32/64,
 * bool, strings, bytes) are handed over as they are; the others are read in place by a {@link
 * WideningColumnVector} into the nearest Spark type that holds every value: uint8/16/32 to
 * short/int/long, uint64 to decimal(20,0), float16 to float, fixed-size binary to binary,
 * timestamps to microsecond timestamps and durations to day-time intervals (numpy's NaT as null);
 * date32 (numpy datetime64 D, W, M, Y) is a date and a year-month interval (timedelta64 M, Y) a
 * year-month interval, both read by Spark's own vector. Values are never copied into new buffers.
 *
 * <p>Arrow timestamps without a time zone (CF times, numpy.datetime64) are Spark's {@code
 * TIMESTAMP_NTZ}, as Spark reads Parquet's local timestamps.
 */
final class SparkColumns {
  private SparkColumns() {}

  /** The Spark schema of an Arrow schema of zaro's table layout. */
  static StructType schema(Schema schema) {
    StructField[] fields =
        schema.getFields().stream().map(SparkColumns::field).toArray(StructField[]::new);
    return new StructType(fields);
  }

  static StructField field(Field field) {
    MetadataBuilder metadata = new MetadataBuilder();
    if (field.getMetadata() != null) {
      field.getMetadata().forEach(metadata::putString);
    }
    // numpy's NaT reads as null (see WideningColumnVector), so time columns may hold nulls
    boolean time =
        field.getType() instanceof ArrowType.Timestamp
            || field.getType() instanceof ArrowType.Duration;
    return new StructField(
        field.getName(), type(field), field.isNullable() || time, metadata.build());
  }

  /** The Spark type of an Arrow column of the table layout. */
  static DataType type(Field field) {
    ArrowType t = field.getType();
    if (t instanceof ArrowType.Int i) {
      return switch (i.getBitWidth()) {
        case 8 -> i.getIsSigned() ? DataTypes.ByteType : DataTypes.ShortType;
        case 16 -> i.getIsSigned() ? DataTypes.ShortType : DataTypes.IntegerType;
        case 32 -> i.getIsSigned() ? DataTypes.IntegerType : DataTypes.LongType;
        default -> i.getIsSigned() ? DataTypes.LongType : DecimalType.apply(20, 0);
      };
    }
    if (t instanceof ArrowType.FloatingPoint f) {
      return f.getPrecision() == FloatingPointPrecision.DOUBLE
          ? DataTypes.DoubleType
          : DataTypes.FloatType;
    }
    if (t instanceof ArrowType.Bool) {
      return DataTypes.BooleanType;
    }
    if (t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8) {
      return DataTypes.StringType;
    }
    if (t instanceof ArrowType.Binary
        || t instanceof ArrowType.LargeBinary
        || t instanceof ArrowType.FixedSizeBinary) {
      return DataTypes.BinaryType;
    }
    if (t instanceof ArrowType.Timestamp ts) {
      return ts.getTimezone() == null ? DataTypes.TimestampNTZType : DataTypes.TimestampType;
    }
    if (t instanceof ArrowType.Duration) {
      return DayTimeIntervalType.apply(DayTimeIntervalType.DAY(), DayTimeIntervalType.SECOND());
    }
    if (t instanceof ArrowType.Date d && d.getUnit() == DateUnit.DAY) {
      return DataTypes.DateType; // numpy datetime64 D, W, M, Y
    }
    if (t instanceof ArrowType.Interval iv && iv.getUnit() == IntervalUnit.YEAR_MONTH) {
      // numpy timedelta64 M, Y
      return YearMonthIntervalType.apply(
          YearMonthIntervalType.YEAR(), YearMonthIntervalType.MONTH());
    }
    throw new IllegalArgumentException(
        "zarr: column '" + field.getName() + "' has Arrow type " + t + ", which has no Spark type");
  }

  /** Whether Spark's own ArrowColumnVector reads {@code field} as {@link #type} says. */
  static boolean direct(Field field) {
    ArrowType t = field.getType();
    if (t instanceof ArrowType.Int i) {
      return i.getIsSigned();
    }
    if (t instanceof ArrowType.FloatingPoint f) {
      return f.getPrecision() != FloatingPointPrecision.HALF;
    }
    if (t instanceof ArrowType.Date || t instanceof ArrowType.Interval) {
      return true; // date32 and year-month intervals, nulls for NaT
    }
    return t instanceof ArrowType.Bool
        || t instanceof ArrowType.Utf8
        || t instanceof ArrowType.Binary
        || t instanceof ArrowType.LargeUtf8
        || t instanceof ArrowType.LargeBinary;
  }

  /** A Spark view of {@code vector} (no copy); closing the view does not close the vector. */
  static ColumnVector view(FieldVector vector) {
    Field field = vector.getField();
    return direct(field)
        ? new BorrowedArrowColumnVector(vector)
        : new WideningColumnVector(vector, type(field));
  }

  /** Spark's ArrowColumnVector, except that the reader that owns the vector closes it. */
  private static final class BorrowedArrowColumnVector extends ArrowColumnVector {
    BorrowedArrowColumnVector(FieldVector vector) {
      super(vector);
    }

    @Override
    public void close() {
      // the TableReader's root owns the vector
    }
  }
}
