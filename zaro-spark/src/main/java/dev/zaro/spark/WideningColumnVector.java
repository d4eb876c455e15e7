package dev.zaro.spark;

import dev.zaro.arrow.metadata.MiniFloat;
import java.math.BigInteger;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Reads a fixed-width Arrow column Spark's ArrowColumnVector does not know (unsigned ints, float16,
 * fixed-size binary, non-microsecond timestamps, durations) straight from its buffers, widening
 * each value as it is asked for; see {@link SparkColumns}. A timestamp or duration that does not
 * fit Spark's microseconds fails with an ArithmeticException rather than wrap. Does not own the
 * vector.
 */
final class WideningColumnVector extends ColumnVector {
  private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

  private final BaseFixedWidthVector vector;
  private final ArrowBuf data;
  private final ArrowType arrowType;
  private final int width;

  /**
   * Timestamps and durations: numpy's NaT (the smallest int64) reads as null, as pandas and pyarrow
   * read it.
   */
  private final boolean time;

  /** Microseconds per stored unit (timestamps, durations), or a divisor when negative (ns). */
  private final long micros;

  WideningColumnVector(FieldVector vector, DataType sparkType) {
    super(sparkType);
    if (!(vector instanceof BaseFixedWidthVector fixed)) {
      throw new IllegalArgumentException(
          "zarr: column '"
              + vector.getName()
              + "' ("
              + vector.getField().getType()
              + ") is not fixed width");
    }
    this.vector = fixed;
    this.data = fixed.getDataBuffer();
    this.arrowType = vector.getField().getType();
    this.width = fixed.getTypeWidth();
    this.time = arrowType instanceof ArrowType.Timestamp || arrowType instanceof ArrowType.Duration;
    TimeUnit unit =
        arrowType instanceof ArrowType.Timestamp ts
            ? ts.getUnit()
            : arrowType instanceof ArrowType.Duration d ? d.getUnit() : TimeUnit.MICROSECOND;
    this.micros =
        switch (unit) {
          case SECOND -> 1_000_000L;
          case MILLISECOND -> 1_000L;
          case MICROSECOND -> 1L;
          case NANOSECOND -> -1_000L;
        };
  }

  @Override
  public void close() {
    // the TableReader's root owns the vector
  }

  @Override
  public boolean hasNull() {
    return vector.getNullCount() > 0 || (time && numNulls() > 0);
  }

  @Override
  public int numNulls() {
    if (!time) {
      return vector.getNullCount();
    }
    int n = 0;
    for (int i = 0; i < vector.getValueCount(); i++) {
      n += isNullAt(i) ? 1 : 0;
    }
    return n;
  }

  @Override
  public boolean isNullAt(int rowId) {
    return vector.isNull(rowId) || (time && data.getLong((long) rowId * 8) == Long.MIN_VALUE);
  }

  @Override
  public boolean getBoolean(int rowId) {
    throw unsupported("boolean");
  }

  @Override
  public byte getByte(int rowId) {
    throw unsupported("byte");
  }

  /** uint8. */
  @Override
  public short getShort(int rowId) {
    return (short) (data.getByte(rowId) & 0xff);
  }

  /** uint16. */
  @Override
  public int getInt(int rowId) {
    return data.getShort((long) rowId * 2) & 0xffff;
  }

  /** uint32, or a timestamp/duration in microseconds. */
  @Override
  public long getLong(int rowId) {
    if (width == 4) {
      return data.getInt((long) rowId * 4) & 0xffffffffL;
    }
    long v = data.getLong((long) rowId * 8);
    if (v == Long.MIN_VALUE) {
      return 0; // NaT: a null slot
    }
    return micros > 0 ? Math.multiplyExact(v, micros) : Math.floorDiv(v, -micros);
  }

  /** float16. */
  @Override
  public float getFloat(int rowId) {
    return MiniFloat.BINARY16.toFloat(data.getShort((long) rowId * 2));
  }

  @Override
  public double getDouble(int rowId) {
    throw unsupported("double");
  }

  /** uint64, as decimal(20, 0). */
  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    long v = data.getLong((long) rowId * 8);
    if (v >= 0) {
      return Decimal.apply(v, precision, scale);
    }
    return Decimal.apply(
        new scala.math.BigDecimal(new java.math.BigDecimal(BigInteger.valueOf(v).add(TWO_64))),
        precision,
        scale);
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    throw unsupported("string");
  }

  /** Fixed-size binary. */
  @Override
  public byte[] getBinary(int rowId) {
    if (isNullAt(rowId)) {
      return null;
    }
    byte[] out = new byte[width];
    data.getBytes((long) rowId * width, out);
    return out;
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    throw unsupported("array");
  }

  @Override
  public ColumnarMap getMap(int ordinal) {
    throw unsupported("map");
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    throw unsupported("struct");
  }

  private UnsupportedOperationException unsupported(String what) {
    return new UnsupportedOperationException(
        "zarr: column '"
            + vector.getName()
            + "' ("
            + arrowType
            + " as "
            + dataType()
            + ") has no "
            + what
            + " values");
  }
}
