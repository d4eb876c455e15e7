package dev.zaro.arrow.read;

import dev.zaro.arrow.codec.VarHeap;
import dev.zaro.arrow.metadata.DataType;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.memory.ArrowBuf;

/**
 * The result of a read: the selected elements in one C-order, little-endian buffer (see {@link
 * DataType} for the element layout), with the result shape. The slab owns its buffer and releases
 * it on {@link #close()}; vectors built from it (see {@code dev.zaro.arrow.vector.SlabVectors})
 * hold their own reference, so they stay valid after the slab is closed.
 *
 * <p>Variable-length types (string, bytes) hold one 16-byte reference per element in {@code data}
 * (address and length, see {@link VarHeap}); the bytes live in {@code heap}.
 *
 * @param name the array's node name ({@code data} for a root array)
 * @param dimensionNames one name per result dimension
 * @param heap the element bytes of variable-length types, else null
 */
@SuppressWarnings("ArrayRecordComponent") // equals, hashCode and toString below use the contents
public record Slab(
    String name,
    DataType dataType,
    long[] shape,
    List<String> dimensionNames,
    ArrowBuf data,
    VarHeap heap)
    implements AutoCloseable {

  /** A slab of fixed-size values (no variable-length heap); it owns {@code data}. */
  public Slab(
      String name, DataType dataType, long[] shape, List<String> dimensionNames, ArrowBuf data) {
    this(name, dataType, shape, dimensionNames, data, null);
  }

  /** Copies the shape and dimension names. */
  public Slab {
    shape = shape.clone();
    dimensionNames = List.copyOf(dimensionNames);
  }

  @Override
  public long[] shape() {
    return shape.clone();
  }

  /** The number of dimensions. */
  public int rank() {
    return shape.length;
  }

  /** The number of values: the product of the shape. */
  public long elementCount() {
    long n = 1;
    for (long s : shape) {
      n *= s;
    }
    return n;
  }

  /** Size of the data in bytes. */
  public long byteSize() {
    return elementCount() * dataType.byteSize();
  }

  @Override
  public void close() {
    data.close();
    if (heap != null) {
      heap.close();
    }
  }

  /** Slabs are equal when they are the same result over the same buffers. */
  @Override
  public boolean equals(Object o) {
    return o instanceof Slab s
        && Objects.equals(name, s.name)
        && Objects.equals(dataType, s.dataType)
        && Arrays.equals(shape, s.shape)
        && dimensionNames.equals(s.dimensionNames)
        && Objects.equals(data, s.data)
        && Objects.equals(heap, s.heap);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, dataType, Arrays.hashCode(shape), dimensionNames, data, heap);
  }

  @Override
  public String toString() {
    return "Slab[" + name + " " + dataType + " " + Arrays.toString(shape) + "]";
  }
}
