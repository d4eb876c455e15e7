package dev.zaro.arrow.codec;

import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import java.util.Arrays;

/** The shape and element type of one chunk as a codec sees it. */
@SuppressWarnings("ArrayRecordComponent") // equals, hashCode and toString below use the contents
public record ChunkSpec(int[] shape, DataType dataType, FillValue fillValue) {
  /** Copies the shape (the record keeps its own). */
  public ChunkSpec {
    shape = shape.clone();
  }

  @Override
  public int[] shape() {
    return shape.clone();
  }

  /** The number of dimensions. */
  public int rank() {
    return shape.length;
  }

  /** The number of elements: the product of the shape. */
  public long elementCount() {
    long n = 1;
    for (int s : shape) {
      n = Math.multiplyExact(n, s);
    }
    return n;
  }

  /** Decoded size in bytes. */
  public long byteSize() {
    return Math.multiplyExact(elementCount(), dataType.byteSize());
  }

  /** This spec with another shape (same type and fill value). */
  public ChunkSpec withShape(int[] newShape) {
    return new ChunkSpec(newShape, dataType, fillValue);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ChunkSpec c
        && Arrays.equals(shape, c.shape)
        && dataType.equals(c.dataType)
        && fillValue.equals(c.fillValue);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(shape) * 31 + dataType.hashCode();
  }

  @Override
  public String toString() {
    return dataType + Arrays.toString(shape);
  }
}
