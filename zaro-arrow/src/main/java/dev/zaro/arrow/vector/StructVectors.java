package dev.zaro.arrow.vector;

import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.vector.internal.ArrowTypes;
import dev.zaro.arrow.vector.internal.TimeValues;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongConsumer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Struct values (v3 {@code struct}, v2 structured dtypes) as Arrow vectors. A struct is an Arrow
 * Struct whose children are its fields: a field of a scalar type maps as the type itself would (see
 * {@link ArrowTypes}); complex is a FixedSizeList of 2 (real, imaginary); a numpy subarray field is
 * a FixedSizeList per dimension; a nested struct is a Struct. Zarr keeps a struct element's fields
 * side by side and Arrow keeps each field apart, so these vectors are copies (field by field),
 * unlike the rest of the tensor layout.
 */
final class StructVectors {
  private StructVectors() {}

  /** The Arrow field of values of {@code type} (a struct, or any field type) named {@code name}. */
  public static Field field(String name, DataType type) {
    if (type.kind() == DataType.Kind.STRUCT) {
      List<Field> children = new ArrayList<>();
      for (DataType.StructField f : type.fields()) {
        children.add(field(f.name(), f));
      }
      return new Field(name, FieldType.notNullable(ArrowType.Struct.INSTANCE), children);
    }
    if (type.kind() == DataType.Kind.COMPLEX) {
      Field part = new Field("item", FieldType.notNullable(ArrowTypes.valueType(type)), null);
      return new Field(name, FieldType.notNullable(new ArrowType.FixedSizeList(2)), List.of(part));
    }
    return new Field(
        name,
        new FieldType(
            ArrowTypes.nullable(type),
            ArrowTypes.valueType(type),
            null,
            SlabVectors.fieldMetadata(type)),
        null);
  }

  /**
   * The Arrow field of struct field {@code f}, named {@code name}: its type, in a list per subarray
   * dimension.
   */
  public static Field field(String name, DataType.StructField f) {
    List<Integer> shape = f.shape();
    Field out = field(shape.isEmpty() ? name : "item", f.type());
    for (int d = shape.size() - 1; d >= 0; d--) {
      out =
          new Field(
              d == 0 ? name : "item",
              FieldType.notNullable(new ArrowType.FixedSizeList(shape.get(d))),
              List.of(out));
    }
    return out;
  }

  /**
   * Fills a vector created from {@link #field(String, DataType)} with {@code count} elements of
   * {@code type}, element {@code i} at {@code address + i * stride}.
   */
  public static void fill(
      FieldVector vector, DataType type, long address, long count, long stride) {
    fill(vector, type, new Positions(address, new long[] {count}, new long[] {stride}));
  }

  /**
   * Fills a vector created from {@link #field(String, DataType.StructField)} with field {@code f}
   * of {@code count} struct elements, element {@code i} at {@code address + i * stride} (the
   * field's values at its offset within the element).
   */
  public static void fill(
      FieldVector vector, DataType.StructField f, long address, long count, long stride) {
    fillField(
        vector, f, new Positions(address + f.offset(), new long[] {count}, new long[] {stride}));
  }

  /**
   * Where values are: entry {@code (i0, i1, ...)} (C order) at {@code base + sum(i_k * steps[k])}.
   */
  @SuppressWarnings("ArrayRecordComponent") // a private carrier of one fill, never compared
  private record Positions(long base, long[] counts, long[] steps) {
    long total() {
      long n = 1;
      for (long c : counts) {
        n = Math.multiplyExact(n, c);
      }
      return n;
    }

    Positions plus(long offset) {
      return new Positions(base + offset, counts, steps);
    }

    Positions then(long count, long step) {
      long[] c = Arrays.copyOf(counts, counts.length + 1);
      long[] s = Arrays.copyOf(steps, steps.length + 1);
      c[counts.length] = count;
      s[steps.length] = step;
      return new Positions(base, c, s);
    }

    /** Calls {@code visit} with each entry's address, in C order. */
    void forEach(LongConsumer visit) {
      long total = total();
      long[] index = new long[counts.length];
      long address = base;
      for (long n = 0; n < total; n++) {
        visit.accept(address);
        for (int d = counts.length - 1; d >= 0; d--) {
          address += steps[d];
          if (++index[d] < counts[d]) {
            break;
          }
          address -= steps[d] * counts[d];
          index[d] = 0;
        }
      }
    }
  }

  private static void fillField(FieldVector vector, DataType.StructField f, Positions at) {
    fillLists(vector, f.type(), f.shape(), 0, at);
  }

  /** A subarray field's dimensions {@code d..}: a FixedSizeList per dimension, then the values. */
  private static void fillLists(
      FieldVector vector, DataType type, List<Integer> shape, int d, Positions at) {
    if (d == shape.size()) {
      fill(vector, type, at);
      return;
    }
    long inner = type.byteSize();
    for (int e = d + 1; e < shape.size(); e++) {
      inner *= shape.get(e);
    }
    FixedSizeListVector list = (FixedSizeListVector) vector;
    loadAllValid(list, at.total());
    fillLists(list.getDataVector(), type, shape, d + 1, at.then(shape.get(d), inner));
  }

  private static void fill(FieldVector vector, DataType type, Positions at) {
    long count = at.total();
    switch (type.kind()) {
      case STRUCT -> {
        StructVector struct = (StructVector) vector;
        loadAllValid(struct, count);
        for (DataType.StructField f : type.fields()) {
          fillField(struct.getChild(f.name()), f, at.plus(f.offset()));
        }
      }
      case COMPLEX -> {
        FixedSizeListVector list = (FixedSizeListVector) vector;
        loadAllValid(list, count);
        int half = type.byteSize() / 2;
        fillFixedWidth(list.getDataVector(), half, at.then(2, half));
      }
      case BOOL -> {
        BufferAllocator allocator = vector.getAllocator();
        try (ArrowBuf valid = allValid(allocator, count);
            ArrowBuf bits = allValid(allocator, count)) {
          bits.setZero(0, bits.capacity());
          long[] i = {0};
          at.forEach(
              a -> {
                if (MemoryUtil.getByte(a) != 0) {
                  bits.setByte(i[0] >>> 3, bits.getByte(i[0] >>> 3) | 1 << (i[0] & 7));
                }
                i[0]++;
              });
          vector.loadFieldBuffers(new ArrowFieldNode(count, 0), List.of(valid, bits));
        }
      }
      case FIXED_UTF32 -> {
        BaseVariableWidthVector text = (BaseVariableWidthVector) vector;
        int width = type.byteSize();
        text.allocateNew(Math.max(1, count * width / 4), Math.toIntExact(Math.max(1, count)));
        byte[] element = new byte[width];
        int[] i = {0};
        at.forEach(
            a -> {
              MemoryUtil.copyFromMemory(a, element, 0, width);
              ((VarCharVector) text)
                  .setSafe(
                      i[0]++,
                      SlabVectors.utf32(element, 0, width).getBytes(StandardCharsets.UTF_8));
            });
        text.setValueCount(Math.toIntExact(count));
      }
      case NULL_TERMINATED_BYTES ->
          SlabVectors.fillNullTerminated(
              (BaseVariableWidthVector) vector, count, type.byteSize(), at::forEach);
      case DATETIME, TIMEDELTA -> TimeValues.load(vector, type, count, at::forEach, "struct field");
      default -> fillFixedWidth(vector, type.byteSize(), at);
    }
  }

  private static void fillFixedWidth(FieldVector vector, int width, Positions at) {
    long count = at.total();
    BufferAllocator allocator = vector.getAllocator();
    try (ArrowBuf valid = allValid(allocator, count);
        ArrowBuf data = allocator.buffer(Math.max(1, Math.multiplyExact(count, width)))) {
      long[] to = {data.memoryAddress()};
      at.forEach(
          a -> {
            MemoryUtil.copyMemory(a, to[0], width);
            to[0] += width;
          });
      vector.loadFieldBuffers(new ArrowFieldNode(count, 0), List.of(valid, data));
    }
  }

  private static void loadAllValid(FieldVector vector, long count) {
    try (ArrowBuf valid = allValid(vector.getAllocator(), count)) {
      vector.loadFieldBuffers(new ArrowFieldNode(count, 0), List.of(valid));
    }
  }

  /** A validity bitmap of {@code count} set bits; the caller closes it. */
  private static ArrowBuf allValid(BufferAllocator allocator, long count) {
    ArrowBuf valid = allocator.buffer(Math.max(1, (count + 7) / 8));
    valid.setOne(0, valid.capacity());
    return valid;
  }
}
