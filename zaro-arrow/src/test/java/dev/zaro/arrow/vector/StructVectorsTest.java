package dev.zaro.arrow.vector;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.read.TableOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Struct arrays as Arrow vectors, value by value: every leaf of the tensor layout's Struct column
 * and of the table layout's per-field columns equals the value in the slab's bytes (which
 * FixtureReadTest checks byte for byte against numpy's). Stores: testdata/dtypes (v3 struct, numpy)
 * and testdata/v2structured (zarr-python 2).
 */
class StructVectorsTest extends AllocatorTest {

  @ParameterizedTest(name = "{0} [{1}]")
  @CsvSource(
      delimiter = '|',
      value = {
        "dtypes/stores/struct.zarr              | ''",
        "dtypes/stores/struct.zarr              | 1:6:2, 1:4",
        "dtypes/stores/struct_big_endian.zarr   | 2:6, 4",
        "dtypes/stores/structured_legacy.zarr   | 3:",
        "v2structured/stores/basic.zarr         | :, 2:5",
        "v2structured/stores/rich.zarr          | ''",
        "v2structured/stores/rich.zarr          | 5",
        "v2structured/stores/aligned_order_f.zarr | 1:4, ::2",
        "v2structured/stores/big_endian.zarr    | ''"
      })
  void tensorAndTableLayoutsHoldTheSlabValues(String store, String selection) throws Exception {
    try (Zaro zaro = Zaro.open(Fixtures.testdata().resolve(store).toString());
        Slab slab = zaro.read("/", selection, allocator);
        FieldVector column = SlabVectors.tensor(slab)) {
      DataType type = slab.dataType();
      ByteBuffer bytes = bytes(slab);
      long[] shape = slab.shape();
      assertEquals(SlabVectors.rows(slab), column.getValueCount());
      StructVector values;
      if (shape.length >= 2) {
        FixedSizeListVector list =
            assertInstanceOf(FixedSizeListVector.class, column, "a FixedSizeList of Struct");
        assertEquals(
            slab.elementCount() / shape[0],
            ((ArrowType.FixedSizeList) list.getField().getType()).getListSize());
        values = (StructVector) list.getDataVector();
      } else {
        values = assertInstanceOf(StructVector.class, column, "a Struct column");
      }
      assertEquals(
          type.fields().stream().map(DataType.StructField::name).toList(),
          values.getField().getChildren().stream().map(f -> f.getName()).toList());
      for (int i = 0; i < slab.elementCount(); i++) {
        check(values, i, type, bytes, i * type.byteSize(), "element " + i);
      }

      try (TableReader table =
          zaro.readTable("/", selection, allocator, TableOptions.DEFAULT, ReadOptions.DEFAULT)) {
        VectorSchemaRoot root = table.getVectorSchemaRoot();
        List<String> names = root.getSchema().getFields().stream().map(f -> f.getName()).toList();
        List<String> want = new ArrayList<>(names.subList(0, shape.length));
        type.fields().forEach(f -> want.add("data." + f.name()));
        assertEquals(want, names);
        long row = 0;
        while (table.loadNextBatch()) {
          for (int r = 0; r < root.getRowCount(); r++, row++) {
            for (DataType.StructField f : type.fields()) {
              checkField(
                  root.getVector("data." + f.name()),
                  r,
                  f,
                  bytes,
                  (int) (row * type.byteSize() + f.offset()),
                  "row " + row);
            }
          }
        }
        assertEquals(slab.elementCount(), row);
      }
      // projected to the last field alone: the same values, no other value column
      DataType.StructField last = type.fields().get(type.fields().size() - 1);
      try (TableReader table =
          zaro.readTable(
              "/",
              selection,
              allocator,
              TableOptions.DEFAULT.withColumns(List.of("data." + last.name())),
              ReadOptions.DEFAULT)) {
        VectorSchemaRoot root = table.getVectorSchemaRoot();
        assertEquals(
            List.of("data." + last.name()),
            root.getSchema().getFields().stream().map(f -> f.getName()).toList());
        long row = 0;
        while (table.loadNextBatch()) {
          for (int r = 0; r < root.getRowCount(); r++, row++) {
            checkField(
                root.getVector(0),
                r,
                last,
                bytes,
                (int) (row * type.byteSize() + last.offset()),
                "row " + row);
          }
        }
        assertEquals(slab.elementCount(), row);
      }
    }
  }

  private static ByteBuffer bytes(Slab slab) {
    byte[] b = new byte[(int) slab.byteSize()];
    slab.data().getBytes(0, b);
    return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
  }

  private static void checkField(
      FieldVector v, int index, DataType.StructField f, ByteBuffer bytes, int at, String where) {
    checkList(v, index, f.type(), f.shape(), 0, bytes, at, where + "." + f.name());
  }

  /** A subarray field: one FixedSizeList per dimension, values in C order. */
  private static void checkList(
      FieldVector v,
      int index,
      DataType type,
      List<Integer> shape,
      int d,
      ByteBuffer bytes,
      int at,
      String where) {
    if (d == shape.size()) {
      check(v, index, type, bytes, at, where);
      return;
    }
    int k = shape.get(d);
    int inner = type.byteSize();
    for (int e = d + 1; e < shape.size(); e++) {
      inner *= shape.get(e);
    }
    FixedSizeListVector list = assertInstanceOf(FixedSizeListVector.class, v, where);
    assertEquals(k, ((ArrowType.FixedSizeList) list.getField().getType()).getListSize(), where);
    for (int m = 0; m < k; m++) {
      checkList(
          list.getDataVector(),
          index * k + m,
          type,
          shape,
          d + 1,
          bytes,
          at + m * inner,
          where + "[" + m + "]");
    }
  }

  private static void check(
      FieldVector v, int index, DataType type, ByteBuffer bytes, int at, String where) {
    assertTrue(index < v.getValueCount(), where);
    switch (type.kind()) {
      case STRUCT -> {
        StructVector s = assertInstanceOf(StructVector.class, v, where);
        for (DataType.StructField f : type.fields()) {
          checkField(s.getChild(f.name()), index, f, bytes, at + f.offset(), where);
        }
      }
      case BOOL -> assertEquals(bytes.get(at) != 0, ((BitVector) v).get(index) == 1, where);
      case COMPLEX -> {
        FixedSizeListVector list = assertInstanceOf(FixedSizeListVector.class, v, where);
        int half = type.byteSize() / 2;
        rawEquals(list.getDataVector(), 2 * index, half, bytes, at, where + ".real");
        rawEquals(list.getDataVector(), 2 * index + 1, half, bytes, at + half, where + ".imag");
      }
      case FIXED_UTF32 -> {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < type.byteSize() && bytes.getInt(at + i) != 0; i += 4) {
          text.appendCodePoint(bytes.getInt(at + i));
        }
        assertEquals(text.toString(), ((VarCharVector) v).getObject(index).toString(), where);
      }
      case NULL_TERMINATED_BYTES -> {
        // numpy's S<n>: the bytes without their trailing NULs
        int length = type.byteSize();
        while (length > 0 && bytes.get(at + length - 1) == 0) {
          length--;
        }
        byte[] want = new byte[length];
        bytes.get(at, want);
        assertArrayEquals(want, ((VarBinaryVector) v).getObject(index), where);
      }
      default -> {
        assertEquals(
            SlabVectors.fieldMetadata(type),
            v.getField().getMetadata().isEmpty() ? null : v.getField().getMetadata(),
            where);
        rawEquals(v, index, type.byteSize(), bytes, at, where);
      }
    }
  }

  /** A fixed-width value: its bytes in the vector's data buffer equal the slab's. */
  private static void rawEquals(
      FieldVector v, int index, int width, ByteBuffer bytes, int at, String where) {
    byte[] got = new byte[width];
    v.getDataBuffer().getBytes((long) index * width, got);
    byte[] want = new byte[width];
    bytes.get(at, want);
    assertArrayEquals(want, got, where);
  }
}
