package dev.zaro.arrow.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.MetadataException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.store.MemoryStore;
import dev.zaro.arrow.vector.SlabVectors;
import dev.zaro.arrow.vector.TableReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ML float types (bfloat16, float8_*, float6_*, float4_e2m1fn; written by tensorstore in
 * testdata/fallback and testdata/mlfloats): float32 values by default, their bit patterns when
 * asked, either way with the stored type in the field metadata. Their values are checked by
 * FixtureReadTest (every bit pattern of every format against ml_dtypes).
 */
class FallbackTypeTest extends AllocatorTest {
  private static final Path BFLOAT16 = Fixtures.testdata().resolve("fallback/stores/bfloat16.zarr");

  @Test
  void float32ValuesByDefault() throws Exception {
    try (Zaro zaro = Zaro.open(BFLOAT16.toString())) {
      assertEquals("bfloat16", zaro.meta("/").dataType().name());
      assertEquals(
          DataType.Kind.UINT, zaro.meta("/").dataType().kind(), "metadata: the stored type");
      try (Slab slab = zaro.read("/", "2:5, 1:3", allocator);
          FieldVector column = SlabVectors.tensor(slab)) {
        assertEquals(DataType.Kind.FLOAT, slab.dataType().kind());
        assertEquals(32, slab.dataType().bits());
        Field field = column.getField();
        assertEquals("bfloat16", field.getMetadata().get(SlabVectors.DATA_TYPE_METADATA));
        assertEquals(
            new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE),
            field.getChildren().get(0).getType());
      }
      try (TableReader reader = zaro.readTable("/", "0:2, :", allocator)) {
        Field value = reader.getVectorSchemaRoot().getSchema().findField("data");
        assertEquals(Map.of(SlabVectors.DATA_TYPE_METADATA, "bfloat16"), value.getMetadata());
        assertEquals(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), value.getType());
        assertTrue(reader.loadNextBatch());
        // the unwritten chunks of columns 10.. read as the fill value, NaN
        assertTrue(
            Float.isNaN(((Float4Vector) reader.getVectorSchemaRoot().getVector("data")).get(13)));
      }
    }
  }

  /**
   * cast_value with an ML float stored type (a float32 array kept as float8_e4m3fn): values widen
   * exactly, as OCP's E4M3 defines them (0x38 is 1, 0xc0 is -2, 0x01 the smallest subnormal 2^-9,
   * 0x7f NaN, 0x7e the largest, 448), and a missing chunk reads as the array's fill value.
   */
  @Test
  void castValueStoredAsAnMlFloat() {
    String meta =
        """
        {"zarr_format": 3, "node_type": "array", "shape": [2, 3], "data_type": "float32",
         "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1, 3]}},
         "chunk_key_encoding": {"name": "default"}, "fill_value": -0.5,
         "codecs": [{"name": "cast_value", "configuration": {"data_type": "float8_e4m3fn"}},
                    {"name": "bytes"}]}""";
    MemoryStore store =
        new MemoryStore()
            .put("a/zarr.json", meta)
            .put("a/c/0/0", new byte[] {0x38, (byte) 0xc0, 0x01});
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults());
        Slab slab = zaro.read("a", "", allocator)) {
      float[] want = {1f, -2f, 0x1p-9f, -0.5f, -0.5f, -0.5f};
      for (int i = 0; i < want.length; i++) {
        assertEquals(want[i], slab.data().getFloat(4L * i), "element " + i);
      }
    }
    store.put("a/c/1/0", new byte[] {0x7f, 0x7e, (byte) 0x80});
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults());
        Slab slab = zaro.read("a", "1, :", allocator)) {
      assertTrue(Float.isNaN(slab.data().getFloat(0)));
      assertEquals(448f, slab.data().getFloat(4));
      assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(slab.data().getFloat(8)));
    }
  }

  /** A copy of the bfloat16 store with the CF attribute scale_factor 0.5. */
  private static Path withScaleFactor(Path dir) throws IOException {
    Path copy = Fixtures.copyTree(BFLOAT16, dir.resolve("bf.zarr"));
    Path meta = copy.resolve("zarr.json");
    Files.writeString(
        meta,
        Files.readString(meta)
            .replace("\"attributes\":{", "\"attributes\":{\"scale_factor\":0.5,"));
    return copy;
  }

  /** The widened values are floats, so CF attributes apply to them. */
  @Test
  void cfAttributesApplyToTheValues(@TempDir Path dir) throws Exception {
    Path copy = withScaleFactor(dir);
    try (Zaro zaro = Zaro.open(copy.toString());
        Slab slab = zaro.read("/", "0, :", allocator);
        TableReader table = zaro.readTable("/", "0, :", allocator)) {
      assertTrue(table.loadNextBatch());
      Float8Vector values = (Float8Vector) table.getVectorSchemaRoot().getVector("data");
      for (int i = 0; i < 9; i++) {
        assertEquals(slab.data().getFloat(4L * i) * 0.5, values.get(i), "column " + i);
      }
    }
  }

  @Test
  void bitPatternsWithTheTypeInTheFieldMetadata() {
    try (Zaro zaro =
            Zaro.open(BFLOAT16.toString(), ZaroOptions.defaults().withFallbackTypes(true));
        Slab slab = zaro.read("/", "2:5, 1:3", allocator);
        FieldVector column = SlabVectors.tensor(slab)) {
      assertEquals(DataType.Kind.UINT, slab.dataType().kind());
      assertEquals(16, slab.dataType().bits());
      Field field = column.getField();
      assertEquals(
          "bfloat16", field.getMetadata().get(SlabVectors.DATA_TYPE_METADATA), field.toString());
      assertEquals(new ArrowType.Int(16, false), field.getChildren().get(0).getType());
    }
  }

  @Test
  void tableLayoutNamesTheTypeToo() throws Exception {
    try (Zaro zaro =
            Zaro.open(BFLOAT16.toString(), ZaroOptions.defaults().withFallbackTypes(true));
        TableReader reader = zaro.readTable("/", "0:2, :", allocator)) {
      Field value = reader.getVectorSchemaRoot().getSchema().findField("data");
      assertEquals(Map.of(SlabVectors.DATA_TYPE_METADATA, "bfloat16"), value.getMetadata());
      assertEquals(new ArrowType.Int(16, false), value.getType());
    }
  }

  /** A struct with a bit-pattern field needs the same consent; the field then names its type. */
  @Test
  void structFieldsOfBitPatternTypes() {
    String meta =
        """
        {"zarr_format": 3, "node_type": "array", "shape": [2], "data_type": {"name": "struct", "configuration":
          {"fields": [{"name": "w", "data_type": "bfloat16"}, {"name": "s", "data_type": "float4_e2m1fn"}]}},
         "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
         "chunk_key_encoding": {"name": "default"}, "fill_value": {"w": 1.0, "s": -0.5},
         "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}""";
    // bfloat16 1.0 = 0x3f80, float4_e2m1fn 3.0 = 0b0101 (junk upper bits 0xa0, which the bytes
    // codec ignores)
    MemoryStore store =
        new MemoryStore()
            .put("a/zarr.json", meta)
            .put("a/c/0", new byte[] {(byte) 0x80, 0x3f, (byte) 0xa5, 0x00, 0x00, 0x01});
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults())) {
      MetadataException e =
          assertThrows(MetadataException.class, () -> zaro.read("a", "", allocator));
      assertTrue(
          e.getMessage().contains("has a struct field of data type 'bfloat16'"), e.getMessage());
    }
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults().withFallbackTypes(true));
        Slab slab = zaro.read("a", "", allocator);
        FieldVector column = SlabVectors.tensor(slab)) {
      StructVector struct = (StructVector) column;
      assertEquals(
          Map.of(SlabVectors.DATA_TYPE_METADATA, "bfloat16"),
          struct.getChild("w").getField().getMetadata());
      assertEquals(
          Map.of(SlabVectors.DATA_TYPE_METADATA, "float4_e2m1fn"),
          struct.getChild("s").getField().getMetadata());
      assertEquals(0x3f80, ((UInt2Vector) struct.getChild("w")).get(0));
      assertEquals(0x05, ((UInt1Vector) struct.getChild("s")).get(0));
      assertEquals(0x0000, ((UInt2Vector) struct.getChild("w")).get(1));
      assertEquals(0x01, ((UInt1Vector) struct.getChild("s")).get(1));
    }
  }

  /** scale_factor or _FillValue cannot apply to bit patterns: the table layout says so. */
  @Test
  void cfAttributesOnBitPatternsAreAnError(@TempDir Path dir) throws IOException {
    Path copy = withScaleFactor(dir);
    try (Zaro zaro = Zaro.open(copy.toString(), ZaroOptions.defaults().withFallbackTypes(true))) {
      ZaroException e = assertThrows(ZaroException.class, () -> zaro.readTable("/", "", allocator));
      assertTrue(
          e.getMessage().contains("bit patterns") && e.getMessage().contains("--raw"),
          e.getMessage());
      try (TableReader raw =
          zaro.readTable(
              "/", "", allocator, TableOptions.DEFAULT.withCf(false), ReadOptions.DEFAULT)) {
        assertTrue(raw.loadNextBatch());
      }
    }
  }
}
