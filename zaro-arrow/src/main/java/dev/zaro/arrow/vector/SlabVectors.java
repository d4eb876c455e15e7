package dev.zaro.arrow.vector;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.codec.VarHeap;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.internal.Utf32;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.vector.internal.ArrowTypes;
import dev.zaro.arrow.vector.internal.TimeValues;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Builds Arrow vectors on a slab's buffer without copying values (bool, which Arrow packs into
 * bits, is the one exception). The tensor layout (docs/formats.md, "Arrow shapes"): one row per
 * index of the first dimension; 2+ dimensions (counting complex's trailing 2) make an {@code
 * arrow.fixed_shape_tensor} column; 1-D is a plain column; 0-d is one row.
 */
public final class SlabVectors {
  private SlabVectors() {}

  /** The dimensions of the Arrow values: the slab shape, plus a trailing 2 for complex. */
  public static long[] valueShape(Slab slab) {
    return valueShape(slab.dataType(), slab.shape());
  }

  private static long[] valueShape(DataType type, long[] shape) {
    if (ArrowTypes.valuesPerElement(type) == 2) {
      long[] out = Arrays.copyOf(shape, shape.length + 1);
      out[shape.length] = 2;
      return out;
    }
    return shape.clone();
  }

  /** Rows of the tensor layout. */
  public static long rows(Slab slab) {
    return rows(slab.shape());
  }

  /** Rows of the tensor layout of a slab of {@code shape}: its first dimension, 1 for 0-d. */
  public static long rows(long[] shape) {
    return shape.length == 0 ? 1 : shape[0];
  }

  /** The column's field in the tensor layout. */
  public static Field tensorField(Slab slab) {
    return tensorField(slab.name(), slab.dataType(), slab.shape(), slab.dimensionNames());
  }

  /** The tensor-layout field of a slab of {@code shape} (result shape) and element type. */
  public static Field tensorField(
      String name, DataType type, long[] slabShape, List<String> dimensionNames) {
    long[] shape = valueShape(type, slabShape);
    long[] rest = slabShape.length == 0 ? shape : Arrays.copyOfRange(shape, 1, shape.length);
    if (rest.length == 0) {
      return type.kind() == DataType.Kind.STRUCT
          ? StructVectors.field(name, type)
          : new Field(name, fieldType(ArrowTypes.valueType(type), type), null);
    }
    Field value =
        type.kind() == DataType.Kind.STRUCT
            ? StructVectors.field("item", type)
            : new Field(
                "item",
                new FieldType(ArrowTypes.nullable(type), ArrowTypes.valueType(type), null),
                null);
    List<String> names = new ArrayList<>(dimensionNames);
    if (ArrowTypes.valuesPerElement(type) == 2) {
      names.add("complex");
    }
    List<String> restNames = slabShape.length == 0 ? names : names.subList(1, names.size());
    if (!isTensorValue(type)) {
      // arrow.fixed_shape_tensor is for numeric values (pyarrow's to_numpy_ndarray needs them):
      // strings, bytes, raw bits, times and structs get a plain FixedSizeList
      long size = 1;
      for (long r : rest) {
        size *= r;
      }
      return new Field(
          name,
          fieldType(new ArrowType.FixedSizeList(Math.toIntExact(size)), type),
          List.of(value));
    }
    return new Field(
        name, fieldType(new FixedShapeTensorType(rest, restNames), type), List.of(value));
  }

  /**
   * Field metadata key naming the stored Zarr data type of a column of an ML float type: {@code
   * "bfloat16"} on a float32 column of its values, or on a uint16 column of its bit patterns.
   */
  public static final String DATA_TYPE_METADATA = "zarr.data_type";

  /**
   * The field metadata of a column of {@code type}: the stored type's name for the ML float types
   * (widened to float32 or as bit patterns), else none (null). A struct names its bit-pattern types
   * on their own child fields.
   */
  public static Map<String, String> fieldMetadata(DataType type) {
    boolean mlFloat =
        type.widenedFrom().isPresent()
            || (type.fallbackFormat().isPresent() && type.kind() != DataType.Kind.STRUCT);
    return mlFloat ? Map.of(DATA_TYPE_METADATA, type.name()) : null;
  }

  /**
   * Field metadata key of a tensor-layout column holding the array's Zarr attributes as JSON (the
   * tensor layout carries stored values: a consumer applies CF conventions from these itself).
   */
  public static final String ATTRIBUTES_METADATA = "zarr.attributes";

  /**
   * {@code field} with the array's {@code attributes} (a JSON object) under {@link
   * #ATTRIBUTES_METADATA} in its metadata, beside what it has; the field itself when there are
   * none.
   */
  public static Field withAttributes(Field field, JsonNode attributes) {
    if (attributes == null || !attributes.isObject() || attributes.isEmpty()) {
      return field;
    }
    Map<String, String> metadata = new LinkedHashMap<>();
    if (field.getMetadata() != null) {
      metadata.putAll(field.getMetadata());
    }
    metadata.put(ATTRIBUTES_METADATA, attributes.toString());
    FieldType type = field.getFieldType();
    return new Field(
        field.getName(),
        new FieldType(type.isNullable(), type.getType(), type.getDictionary(), metadata),
        field.getChildren());
  }

  private static FieldType fieldType(ArrowType arrowType, DataType type) {
    boolean list =
        arrowType instanceof ArrowType.FixedSizeList || arrowType instanceof FixedShapeTensorType;
    return new FieldType(!list && ArrowTypes.nullable(type), arrowType, null, fieldMetadata(type));
  }

  /**
   * The whole slab as one tensor-layout column. The vector holds its own reference to the slab's
   * buffer: the caller closes the vector; the slab may be closed before or after.
   */
  public static FieldVector tensor(Slab slab) {
    return tensor(slab, 0, rows(slab));
  }

  /**
   * Rows {@code [firstRow, firstRow + rowCount)} of the tensor layout, sharing the slab's buffer.
   */
  public static FieldVector tensor(Slab slab, long firstRow, long rowCount) {
    long rows = rows(slab);
    if (firstRow < 0 || rowCount < 0 || firstRow + rowCount > rows) {
      throw new IndexOutOfBoundsException("rows " + firstRow + "+" + rowCount + " of " + rows);
    }
    Field field = tensorField(slab);
    ArrowBuf data = slab.data();
    BufferAllocator allocator = data.getReferenceManager().getAllocator();
    long valuesPerRow =
        rows == 0
            ? 0
            : Math.multiplyExact(slab.elementCount(), ArrowTypes.valuesPerElement(slab.dataType()))
                / rows;
    long valueCount = rowCount * valuesPerRow;
    int valueBytes = slab.dataType().byteSize() / ArrowTypes.valuesPerElement(slab.dataType());
    FieldVector vector = field.createVector(allocator);
    try {
      FixedSizeListVector list =
          vector instanceof FixedShapeTensorVector t
              ? t.getUnderlyingVector()
              : vector instanceof FixedSizeListVector l ? l : null;
      FieldVector values = list != null ? list.getDataVector() : vector;
      if (list != null) {
        list.loadFieldBuffers(new ArrowFieldNode(rowCount, 0), List.of(allocator.getEmpty()));
      }
      long offset = firstRow * valuesPerRow * valueBytes;
      if (slab.dataType().kind() == DataType.Kind.STRUCT) {
        StructVectors.fill(
            values, slab.dataType(), data.memoryAddress() + offset, valueCount, valueBytes);
      } else if (TimeValues.isTime(slab.dataType())) {
        TimeValues.load(
            values, slab.dataType(), data, offset, valueCount, "array '" + slab.name() + "'");
      } else if (isVariableWidth(slab.dataType())) {
        fillVariableWidth(
            slab.dataType(),
            (BaseVariableWidthVector) values,
            data,
            firstRow * valuesPerRow,
            valueCount);
        if (list != null) {
          list.setValueCount((int) rowCount);
        }
      } else if (slab.dataType().kind() == DataType.Kind.BOOL) {
        try (ArrowBuf bits = packBits(data, offset, valueCount, allocator)) {
          values.loadFieldBuffers(
              new ArrowFieldNode(valueCount, 0), List.of(allocator.getEmpty(), bits));
        }
      } else {
        ArrowBuf slice = data.slice(offset, valueCount * valueBytes);
        values.loadFieldBuffers(
            new ArrowFieldNode(valueCount, 0), List.of(allocator.getEmpty(), slice));
      }
      return vector;
    } catch (RuntimeException e) {
      vector.close();
      throw e;
    }
  }

  /** Whether values of {@code type} form arrow.fixed_shape_tensor columns (numbers and bool). */
  public static boolean isTensorValue(DataType type) {
    return switch (type.kind()) {
      case BOOL, INT, UINT, FLOAT, COMPLEX -> true;
      default -> false;
    };
  }

  /** A one-column root of the whole slab in the tensor layout; the caller closes it. */
  public static VectorSchemaRoot tensorRoot(Slab slab) {
    FieldVector v = tensor(slab);
    return new VectorSchemaRoot(List.of(v.getField()), List.of(v), v.getValueCount());
  }

  /**
   * Copies {@code count} variable-length elements, starting at element {@code first} of a slab's
   * 16-byte references, into a VarChar/VarBinary vector.
   */
  public static void fillVariableWidth(
      BaseVariableWidthVector vector, ArrowBuf refs, long first, long count) {
    long total = 0;
    long base = refs.memoryAddress() + first * VarHeap.ELEMENT_BYTES;
    for (long i = 0; i < count; i++) {
      total += MemoryUtil.getLong(base + i * 16 + 8);
    }
    if (total > Integer.MAX_VALUE || count > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          count + " values of " + total + " bytes do not fit one Arrow batch; read less at once");
    }
    int n = (int) count;
    vector.allocateNew(Math.max(1, total), Math.max(1, n));
    long offsets = vector.getOffsetBuffer().memoryAddress();
    long dataAddress = vector.getDataBuffer().memoryAddress();
    int at = 0;
    MemoryUtil.putInt(offsets, 0);
    for (int i = 0; i < n; i++) {
      long address = MemoryUtil.getLong(base + i * 16L);
      int length = (int) MemoryUtil.getLong(base + i * 16L + 8);
      MemoryUtil.copyMemory(address, dataAddress + at, length);
      at += length;
      MemoryUtil.putInt(offsets + 4L * (i + 1), at);
    }
    if (n > 0) {
      vector.getValidityBuffer().setOne(0L, (n + 7) / 8L);
    }
    vector.setLastSet(n - 1);
    vector.setValueCount(n);
  }

  /**
   * Decodes NUL-padded little-endian UTF-32 ({@code length} bytes at {@code offset}) to a string.
   */
  public static String utf32(byte[] bytes, int offset, int length) {
    return Utf32.decode(bytes, offset, length);
  }

  /** Whether {@code type} loads into a variable-width Arrow vector (Utf8 or Binary). */
  private static boolean isVariableWidth(DataType type) {
    return type.kind() == DataType.Kind.FIXED_UTF32
        || type.kind() == DataType.Kind.NULL_TERMINATED_BYTES
        || type.isVariableLength();
  }

  /** Fills {@code vector} with elements {@code first..first+count} of {@code data}, by kind. */
  private static void fillVariableWidth(
      DataType type, BaseVariableWidthVector vector, ArrowBuf data, long first, long count) {
    switch (type.kind()) {
      case FIXED_UTF32 -> fillFromUtf32(vector, data, first, count, type.byteSize());
      case NULL_TERMINATED_BYTES -> fillNullTerminated(vector, data, first, count, type.byteSize());
      default -> fillVariableWidth(vector, data, first, count);
    }
  }

  /**
   * Converts {@code count} fixed-length UTF-32 elements of {@code width} bytes to a VarChar vector.
   */
  public static void fillFromUtf32(
      BaseVariableWidthVector vector, ArrowBuf data, long first, long count, int width) {
    int n = Math.toIntExact(count);
    vector.allocateNew(Math.max(1, (long) n * width / 4), Math.max(1, n));
    byte[] element = new byte[width];
    for (int i = 0; i < n; i++) {
      data.getBytes((first + i) * width, element);
      ((VarCharVector) vector)
          .setSafe(i, utf32(element, 0, width).getBytes(StandardCharsets.UTF_8));
    }
    vector.setValueCount(n);
  }

  /**
   * Copies {@code count} fixed-length elements of {@code width} bytes, starting at element {@code
   * first} of {@code data}, into a VarBinary vector without their trailing NULs (numpy's {@code
   * S<n>} values).
   */
  public static void fillNullTerminated(
      BaseVariableWidthVector vector, ArrowBuf data, long first, long count, int width) {
    long base = data.memoryAddress() + first * width;
    fillNullTerminated(
        vector,
        count,
        width,
        visit -> {
          for (long i = 0; i < count; i++) {
            visit.accept(base + i * width);
          }
        });
  }

  /**
   * Copies {@code count} elements of {@code width} bytes, at the addresses {@code addresses} visits
   * in order, into a VarBinary vector without their trailing NULs.
   */
  public static void fillNullTerminated(
      BaseVariableWidthVector vector, long count, int width, Consumer<LongConsumer> addresses) {
    int n = Math.toIntExact(count);
    vector.allocateNew(Math.max(1, (long) n * width), Math.max(1, n));
    byte[] element = new byte[width];
    int[] i = {0};
    addresses.accept(
        a -> {
          MemoryUtil.copyFromMemory(a, element, 0, width);
          int length = width;
          while (length > 0 && element[length - 1] == 0) {
            length--;
          }
          ((VarBinaryVector) vector).setSafe(i[0]++, element, 0, length);
        });
    vector.setValueCount(n);
  }

  private static ArrowBuf packBits(
      ArrowBuf bytes, long offset, long count, BufferAllocator allocator) {
    long n = (count + 7) / 8;
    ArrowBuf bits = allocator.buffer(Math.max(n, 1));
    bits.setZero(0, bits.capacity());
    long src = bytes.memoryAddress() + offset;
    long dst = bits.memoryAddress();
    for (long i = 0; i < count; i++) {
      if (MemoryUtil.getByte(src + i) != 0) {
        long a = dst + (i >>> 3);
        MemoryUtil.putByte(a, (byte) (MemoryUtil.getByte(a) | (1 << (i & 7))));
      }
    }
    return bits;
  }
}
