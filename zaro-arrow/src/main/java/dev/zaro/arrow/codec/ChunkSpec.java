package dev.zaro.arrow.codec;

import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import java.util.Arrays;

/** The shape and element type of one chunk as a codec sees it. */
@SuppressWarnings("ArrayRecordComponent") // equals, hashCode and toString below use the contents
public record ChunkSpec(int[] shape, DataType dataType, FillValue fillValue) {
  public ChunkSpec {
    shape = shape.clone();
  }

  @Override
  public int[] shape() {
    return shape.clone();
  }

  public int rank() {
    return shape.length;
  }

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
