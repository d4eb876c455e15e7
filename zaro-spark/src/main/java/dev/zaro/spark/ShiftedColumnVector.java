package dev.zaro.spark;

import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Rows {@code [offset, offset + rows)} of another column vector, read in place: when the arrays of
 * a multi-array table come in batches of different lengths, each Spark batch is the part all of
 * them still have. Does not own the vector it views.
 */
final class ShiftedColumnVector extends ColumnVector {
  private final ColumnVector base;
  private final int offset;
  private final int rows;

  ShiftedColumnVector(ColumnVector base, int offset, int rows) {
    super(base.dataType());
    this.base = base;
    this.offset = offset;
    this.rows = rows;
  }

  @Override
  public void close() {
    // the viewed vector belongs to its reader
  }

  @Override
  public boolean hasNull() {
    return base.hasNull() && numNulls() > 0;
  }

  @Override
  public int numNulls() {
    int n = 0;
    for (int i = 0; i < rows; i++) {
      if (base.isNullAt(offset + i)) {
        n++;
      }
    }
    return n;
  }

  @Override
  public boolean isNullAt(int rowId) {
    return base.isNullAt(offset + rowId);
  }

  @Override
  public boolean getBoolean(int rowId) {
    return base.getBoolean(offset + rowId);
  }

  @Override
  public byte getByte(int rowId) {
    return base.getByte(offset + rowId);
  }

  @Override
  public short getShort(int rowId) {
    return base.getShort(offset + rowId);
  }

  @Override
  public int getInt(int rowId) {
    return base.getInt(offset + rowId);
  }

  @Override
  public long getLong(int rowId) {
    return base.getLong(offset + rowId);
  }

  @Override
  public float getFloat(int rowId) {
    return base.getFloat(offset + rowId);
  }

  @Override
  public double getDouble(int rowId) {
    return base.getDouble(offset + rowId);
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    return base.getDecimal(offset + rowId, precision, scale);
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    return base.getUTF8String(offset + rowId);
  }

  @Override
  public byte[] getBinary(int rowId) {
    return base.getBinary(offset + rowId);
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    return base.getArray(offset + rowId);
  }

  @Override
  public ColumnarMap getMap(int ordinal) {
    return base.getMap(offset + ordinal);
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    throw new UnsupportedOperationException("zarr: table columns have no children");
  }
}
