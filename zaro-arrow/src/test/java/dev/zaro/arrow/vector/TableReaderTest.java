package dev.zaro.arrow.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.ReadStats;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.store.FileStore;
import dev.zaro.arrow.store.MemoryStore;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TableReaderTest extends AllocatorTest {

  /** The schema from metadata alone equals the one the table layout streams, CF on and off. */
  @ParameterizedTest
  @CsvSource({
    "sample/climate.zarr, t2m, ''",
    "sample/climate.zarr, precip, '0, :, 3:9'",
    "sample/climate.zarr, time, ''",
    "sharding/stores/end_zstd.zarr, '', '3:27:4, 5'",
    "rectilinear/stores/spec_example.zarr, '', ''"
  })
  void tableSchemaFromMetadataEqualsTheStreamedOne(String store, String path, String slice)
      throws Exception {
    FileStore files = new FileStore(Fixtures.testdata().resolve(store));
    // the same hierarchy with every chunk removed: only metadata documents are left to read
    MemoryStore metadataOnly = new MemoryStore();
    files
        .list("")
        .filter(k -> k.endsWith("zarr.json") || k.matches("(.*/)?\\.z(array|attrs|group|metadata)"))
        .forEach(k -> metadataOnly.put(k, files.getBytes(k).orElseThrow()));
    for (boolean cf : new boolean[] {true, false}) {
      TableOptions options = TableOptions.DEFAULT.withCf(cf);
      Schema schema;
      try (Zaro zaro = Zaro.open(metadataOnly, ZaroOptions.defaults())) {
        schema = zaro.tableSchema(path, Selection.parse(slice, zaro.meta(path).shape()), options);
      }
      try (Zaro zaro = Zaro.open(Fixtures.testdata().resolve(store).toString());
          TableReader reader =
              zaro.readTable(path, slice, allocator, options, ReadOptions.DEFAULT)) {
        assertEquals(
            reader.getVectorSchemaRoot().getSchema(), schema, store + " " + path + " cf " + cf);
      }
    }
    files.close();
  }

  /**
   * Batches follow the plan's chunk-aligned blocks: however small the batches, the table layout
   * decodes exactly the chunks the tensor read of the same selection decodes, each once.
   */
  @ParameterizedTest
  @CsvSource({
    "sharding/stores/end_zstd.zarr, '', '3:27:4, 5:40', 16",
    "sharding/stores/end_zstd.zarr, '', '', 7",
    "sample/climate.zarr, t2m, '0:30, 10:50, :', 1000",
    "core/stores/transpose_3d.zarr, '', '', 5",
    "rectilinear/stores/explicit_int.zarr, '', '1:9, 2:6', 3"
  })
  void noChunkIsDecodedTwice(String store, String path, String slice, long batchRows)
      throws Exception {
    ReadStats table = new ReadStats();
    ReadStats tensor = new ReadStats();
    try (Zaro zaro = Zaro.open(Fixtures.testdata().resolve(store).toString())) {
      long rows = 0;
      try (TableReader reader =
          zaro.readTable(
              path,
              slice,
              allocator,
              TableOptions.DEFAULT.withBatchRows(batchRows),
              ReadOptions.DEFAULT.withStats(table))) {
        while (reader.loadNextBatch()) {
          assertTrue(reader.getVectorSchemaRoot().getRowCount() <= batchRows);
          rows += reader.getVectorSchemaRoot().getRowCount();
        }
      }
      try (Slab slab = zaro.read(path, slice, allocator, ReadOptions.DEFAULT.withStats(tensor))) {
        assertEquals(slab.elementCount(), rows);
      }
    }
    assertTrue(tensor.chunksDecoded() > 0);
    assertEquals(
        tensor.chunksDecoded(),
        table.chunksDecoded(),
        "chunks decoded: " + table + " vs " + tensor);
    assertEquals(tensor.bytesDecoded(), table.bytesDecoded());
  }

  /** Small batches: every batch is bounded, rows come in C order, values equal tensorstore's. */
  @Test
  void streamsBoundedBatchesInCOrder() throws Exception {
    ByteBuffer want =
        ByteBuffer.wrap(
                Files.readAllBytes(Fixtures.testdata().resolve("sharding/expected/end_zstd.1.bin")))
            .order(ByteOrder.LITTLE_ENDIAN);
    try (Zaro zaro =
            Zaro.open(Fixtures.testdata().resolve("sharding/stores/end_zstd.zarr").toString());
        TableReader reader =
            zaro.readTable(
                "",
                "3:27:4, 5:40",
                allocator,
                TableOptions.DEFAULT.withBatchRows(16),
                ReadOptions.DEFAULT)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      assertEquals(
          List.of("dim_0", "dim_1", "data"),
          root.getSchema().getFields().stream().map(f -> f.getName()).toList());
      long row = 0;
      int batches = 0;
      while (reader.loadNextBatch()) {
        batches++;
        assertTrue(root.getRowCount() <= 16, "batch of " + root.getRowCount());
        BigIntVector d0 = (BigIntVector) root.getVector(0);
        BigIntVector d1 = (BigIntVector) root.getVector(1);
        IntVector v = (IntVector) root.getVector(2);
        for (int i = 0; i < root.getRowCount(); i++, row++) {
          assertEquals(3 + (row / 35) * 4, d0.get(i), "dim_0 of row " + row);
          assertEquals(5 + row % 35, d1.get(i), "dim_1 of row " + row);
          assertEquals(want.getInt((int) row * 4), v.get(i), "value of row " + row);
        }
      }
      assertEquals(6 * 35, row);
      assertTrue(batches >= 6 * 35 / 16, batches + " batches");
    }
  }

  /**
   * A projection produces only the named columns, with the same values as the full table; without
   * the value column no chunk is read. Unknown names are refused, naming the table's columns.
   */
  @Test
  void projectionProducesOnlyTheNamedColumns() throws Exception {
    ByteBuffer want =
        ByteBuffer.wrap(
                Files.readAllBytes(Fixtures.testdata().resolve("sharding/expected/end_zstd.1.bin")))
            .order(ByteOrder.LITTLE_ENDIAN);
    try (Zaro zaro =
        Zaro.open(Fixtures.testdata().resolve("sharding/stores/end_zstd.zarr").toString())) {
      ReadStats stats = new ReadStats();
      try (TableReader reader =
          zaro.readTable(
              "",
              "3:27:4, 5:40",
              allocator,
              TableOptions.DEFAULT.withBatchRows(16).withColumns(List.of("data", "dim_1")),
              ReadOptions.DEFAULT.withStats(stats))) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        assertEquals(
            List.of("dim_1", "data"),
            root.getSchema().getFields().stream().map(f -> f.getName()).toList());
        long row = 0;
        while (reader.loadNextBatch()) {
          for (int i = 0; i < root.getRowCount(); i++, row++) {
            assertEquals(
                5 + row % 35, ((BigIntVector) root.getVector(0)).get(i), "dim_1 of row " + row);
            assertEquals(
                want.getInt((int) row * 4),
                ((IntVector) root.getVector(1)).get(i),
                "value of row " + row);
          }
        }
        assertEquals(6 * 35, row);
        ReadStats all = new ReadStats();
        try (TableReader full =
            zaro.readTable(
                "",
                "3:27:4, 5:40",
                allocator,
                TableOptions.DEFAULT.withBatchRows(16),
                ReadOptions.DEFAULT.withStats(all))) {
          while (full.loadNextBatch()) {
            assertEquals(3, full.getVectorSchemaRoot().getFieldVectors().size());
          }
        }
        assertTrue(stats.chunksDecoded() > 0);
        assertEquals(all.chunksDecoded(), stats.chunksDecoded());
        assertEquals(all.bytesDecoded(), stats.bytesDecoded());
      }
      ReadStats none = new ReadStats();
      try (TableReader reader =
          zaro.readTable(
              "",
              "3:27:4, 5:40",
              allocator,
              TableOptions.DEFAULT.withColumns(List.of("dim_0")),
              ReadOptions.DEFAULT.withStats(none))) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        long row = 0;
        while (reader.loadNextBatch()) {
          assertEquals(1, root.getFieldVectors().size());
          for (int i = 0; i < root.getRowCount(); i++, row++) {
            assertEquals(
                3 + (row / 35) * 4,
                ((BigIntVector) root.getVector(0)).get(i),
                "dim_0 of row " + row);
          }
        }
        assertEquals(6 * 35, row);
        assertEquals(0, none.chunksDecoded());
        assertEquals(0, none.requests());
      }
      ZaroException e =
          Assertions.assertThrows(
              ZaroException.class,
              () ->
                  zaro.readTable(
                      "",
                      "",
                      allocator,
                      TableOptions.DEFAULT.withColumns(List.of("dim_9")),
                      ReadOptions.DEFAULT));
      assertTrue(
          e.getMessage().contains("dim_9") && e.getMessage().contains("dim_0, dim_1, data"),
          e.getMessage());
    }
  }

  /**
   * Coordinate columns in batches cut inside a dimension: testdata/sql/grid.zarr's w (z=16, s=6), s
   * = [3, 1, 4, 1.5, 9, 2] and z = 0.1 k as float32 (the generator's numpy values).
   */
  @Test
  void coordinateColumnsAcrossBatchBoundaries() throws Exception {
    double[] s = {3, 1, 4, 1.5, 9, 2};
    try (Zaro zaro = Zaro.open(Fixtures.testdata().resolve("sql/grid.zarr").toString());
        TableReader reader =
            zaro.readTable(
                "w",
                "1:15:2, 1:6",
                allocator,
                TableOptions.DEFAULT.withBatchRows(4),
                ReadOptions.DEFAULT)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      long row = 0;
      while (reader.loadNextBatch()) {
        assertTrue(root.getRowCount() <= 4);
        for (int i = 0; i < root.getRowCount(); i++, row++) {
          long z = 1 + (row / 5) * 2;
          assertEquals(
              (float) (z * 0.1), ((Float4Vector) root.getVector("z")).get(i), "z of " + row);
          assertEquals(
              s[(int) (1 + row % 5)], ((Float8Vector) root.getVector("s")).get(i), "s of " + row);
        }
      }
      assertEquals(7 * 5, row);
    }
  }

  static byte[] le16(int... v) {
    ByteBuffer b = ByteBuffer.allocate(v.length * 2).order(ByteOrder.LITTLE_ENDIAN);
    for (int x : v) {
      b.putShort((short) x);
    }
    return b.array();
  }

  static byte[] le64(double... v) {
    ByteBuffer b = ByteBuffer.allocate(v.length * 8).order(ByteOrder.LITTLE_ENDIAN);
    for (double x : v) {
      b.putDouble(x);
    }
    return b.array();
  }

  static String array(String type, int n, String dim, String attrs) {
    return "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":["
        + n
        + "],\"data_type\":\""
        + type
        + "\","
        + "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":["
        + n
        + "]}},"
        + "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":0,"
        + "\"codecs\":[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}],"
        + "\"dimension_names\":[\""
        + dim
        + "\"],\"attributes\":"
        + attrs
        + "}";
  }

  /**
   * CF decoding, values worked out by hand: packed int16 p -> p * 0.5 + 10, -1 (_FillValue) and 999
   * (missing_value) -> null; time "days since 2000-01-02" -> 2000-01-02 = 946771200 s.
   */
  @Test
  void cfConventionsUnpackMaskAndMakeTimestamps() throws Exception {
    MemoryStore store =
        new MemoryStore()
            .put("zarr.json", "{\"zarr_format\":3,\"node_type\":\"group\"}")
            .put(
                "t/zarr.json",
                array(
                    "int16",
                    4,
                    "time",
                    "{\"scale_factor\":0.5,\"add_offset\":10,\"_FillValue\":-1,\"missing_value\":999}"))
            .put("t/c/0", le16(4, -1, 999, 7))
            .put(
                "time/zarr.json",
                array(
                    "float64",
                    4,
                    "time",
                    "{\"units\":\"days since 2000-01-02\",\"calendar\":\"standard\"}"))
            .put("time/c/0", le64(0, 1, 1.5, 31));
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults());
        TableReader reader = zaro.readTable("t", "", allocator)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      assertTrue(reader.loadNextBatch());
      assertTrue(root.getSchema().findField("time").getType() instanceof ArrowType.Timestamp);
      TimeStampMicroVector time = (TimeStampMicroVector) root.getVector("time");
      Float8Vector t = (Float8Vector) root.getVector("t");
      long day = 86_400_000_000L;
      long epoch = 946_771_200L * 1_000_000L;
      assertEquals(
          List.of(epoch, epoch + day, epoch + day + day / 2, epoch + 31 * day),
          List.of(time.get(0), time.get(1), time.get(2), time.get(3)));
      List<Double> values = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        values.add(t.isNull(i) ? null : t.get(i));
      }
      assertEquals(Arrays.asList(12.0, null, null, 13.5), values);
    }
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults());
        TableReader reader =
            zaro.readTable(
                "t", "", allocator, TableOptions.DEFAULT.withCf(false), ReadOptions.DEFAULT)) {
      assertTrue(reader.loadNextBatch());
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      assertEquals(
          new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE),
          root.getSchema().findField("time").getType());
      assertEquals(999, ((SmallIntVector) root.getVector("t")).get(2));
    }
  }
}
