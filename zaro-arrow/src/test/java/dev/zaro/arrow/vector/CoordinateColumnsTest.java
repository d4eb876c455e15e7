package dev.zaro.arrow.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Npz;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.ReadStats;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.store.MemoryStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Non-dimension coordinates in the table layout, against {@code
 * xr.open_zarr(era5.zarr)[var].to_dataframe().reset_index()} as Debian's xarray wrote it
 * (testdata/xarray_client/expected/era5.VAR.table.npz, generate_era5.py): every column, the
 * coordinate columns ({@code expver(time)}, {@code land(latitude, longitude)}, {@code
 * station(sector)}) included. Slices compare with the rows of xarray's full table they select.
 */
class CoordinateColumnsTest extends AllocatorTest {
  private static final Path DIR = Fixtures.testdata().resolve("xarray_client");
  private static final Path STORE = DIR.resolve("era5.zarr");

  /** The table's shape (time, latitude, longitude) or (time, sector) in the fixture. */
  private static long[] shape(String var) {
    return var.equals("band") ? new long[] {48, 4} : new long[] {48, 10, 12};
  }

  @ParameterizedTest(name = "{0} [{1}] batches of {2}")
  @CsvSource(
      delimiter = ';',
      value = {
        "t2m;;1048576",
        "msl;;1048576",
        "band;;1048576",
        "t2m;5:30:2, 1:9, ::3;7",
        "msl;40:48, 3:6, 5:12:2;11",
        "band;1:40:3, 1:;5",
        "t2m;7, :, :;13",
        "msl;:, 4, :;100",
        "band;:, 2;3",
      })
  void tableEqualsXarray(String var, String slice, long batchRows) throws Exception {
    Map<String, Object> expected = Npz.read(DIR.resolve("expected/era5." + var + ".table.npz"));
    List<String> order = new ArrayList<>();
    Json.readTree(DIR.resolve("expected/era5." + var + ".table.json").toFile())
        .forEach(n -> order.add(n.asText()));
    String selection = slice == null ? "" : slice;
    long[] shape = shape(var);
    Selection parsed = Selection.parse(selection, shape);
    // the rows of xarray's full table the selection keeps, in C order
    List<Integer> rows = new ArrayList<>();
    selectedRows(parsed, shape, 0, 0, rows);
    // xarray's columns but those of dimensions the selection drops (zaro gives no column for them)
    List<String> columns = new ArrayList<>(order);
    for (int d = 0; d < shape.length; d++) {
      if (parsed.dims().get(d).dropped()) {
        columns.remove(
            d == 0 ? "time" : var.equals("band") ? "sector" : d == 1 ? "latitude" : "longitude");
      }
    }
    try (Zaro zaro = Zaro.open(STORE.toString());
        TableReader reader =
            zaro.readTable(
                var,
                parsed,
                allocator,
                TableOptions.DEFAULT.withBatchRows(batchRows),
                ReadOptions.DEFAULT)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      assertEquals(columns, root.getSchema().getFields().stream().map(f -> f.getName()).toList());
      assertEquals(zaro.tableSchema(var, parsed, TableOptions.DEFAULT), root.getSchema());
      int row = 0;
      while (reader.loadNextBatch()) {
        for (int r = 0; r < root.getRowCount(); r++, row++) {
          for (String c : columns) {
            assertCell(var, c, expected.get(c), rows.get(row), root.getVector(c), r);
          }
        }
      }
      assertEquals(rows.size(), row);
    }
  }

  private static void selectedRows(Selection s, long[] shape, int d, long flat, List<Integer> out) {
    if (d == shape.length) {
      out.add(Math.toIntExact(flat));
      return;
    }
    Selection.Dim dim = s.dims().get(d);
    for (long k = 0; k < dim.count(); k++) {
      selectedRows(s, shape, d + 1, flat * shape[d] + dim.start() + k * dim.step(), out);
    }
  }

  private static void assertCell(
      String var, String column, Object want, int row, FieldVector got, int r) {
    String where = var + "." + column + " row " + row;
    if (want instanceof String[] text) {
      assertEquals(text[row], ((VarCharVector) got).getObject(r).toString(), where);
    } else if (want instanceof long[] times) {
      // datetime64[ns]; zaro's timestamps are microseconds
      assertEquals(times[row], ((TimeStampMicroVector) got).get(r) * 1000, where);
    } else if (want instanceof int[] small) {
      assertEquals(small[row], ((UInt1Vector) got).getObjectNoOverflow(r).intValue(), where);
    } else if (want instanceof float[] f) {
      // xarray 2023.01 unpacks int16 to float32, zaro (as xarray >= 2024.03) to float64
      if (Float.isNaN(f[row])) {
        assertTrue(got.isNull(r) || Double.isNaN(((Number) got.getObject(r)).doubleValue()), where);
      } else {
        assertEquals(f[row], ((Number) got.getObject(r)).floatValue(), where);
      }
    } else {
      double[] doubles = (double[]) want;
      if (Double.isNaN(doubles[row])) {
        assertTrue(got.isNull(r) || Double.isNaN(((Number) got.getObject(r)).doubleValue()), where);
      } else {
        assertEquals(doubles[row], ((Number) got.getObject(r)).doubleValue(), where);
      }
    }
  }

  /**
   * Coordinates of the shapes era5.zarr lacks (coords.zarr, generate_coords.py): one transposed
   * against the variable, a packed one with a missing value, a scalar, CF times with a NaT.
   */
  @Test
  void transposedPackedScalarAndTimeCoordinatesEqualXarray() throws Exception {
    Map<String, Object> want = Npz.read(DIR.resolve("expected/coords.v.table.npz"));
    List<String> order = new ArrayList<>();
    Json.readTree(DIR.resolve("expected/coords.v.table.json").toFile())
        .forEach(n -> order.add(n.asText()));
    try (Zaro zaro = Zaro.open(DIR.resolve("coords.zarr").toString());
        TableReader reader =
            zaro.readTable(
                "v",
                "1:5:2",
                allocator,
                TableOptions.DEFAULT.withBatchRows(5),
                ReadOptions.DEFAULT)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      assertEquals(order, root.getSchema().getFields().stream().map(f -> f.getName()).toList());
      int row = 0;
      while (reader.loadNextBatch()) {
        for (int r = 0; r < root.getRowCount(); r++, row++) {
          String at = "row " + row;
          assertEquals(((long[]) want.get("t"))[row], get(root, "t", r), at);
          assertEquals(((long[]) want.get("sc"))[row], get(root, "sc", r), at);
          assertEquals(((short[]) want.get("tr"))[row], get(root, "tr", r), at);
          long when = ((long[]) want.get("when"))[row];
          FieldVector w = root.getVector("when");
          if (when == Long.MIN_VALUE) { // NaT
            assertTrue(w.isNull(r), at);
          } else {
            assertEquals(when, ((TimeStampMicroVector) w).get(r) * 1000, at);
          }
          for (String c : List.of("y", "x", "ty", "v")) {
            Object column = want.get(c);
            assertCell("v", c, column, row, root.getVector(c), r);
          }
        }
      }
      assertEquals(((long[]) want.get("t")).length, row);
    }
  }

  @Test
  void projectionReadsOnlyTheColumnsKept() throws Exception {
    try (Zaro zaro = Zaro.open(STORE.toString())) {
      ReadStats stats = new ReadStats();
      try (TableReader reader =
          zaro.readTable(
              "t2m",
              "0:2, 0, 0",
              allocator,
              TableOptions.DEFAULT.withColumns(List.of("land")),
              ReadOptions.DEFAULT.withStats(stats))) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        assertEquals(
            List.of("land"), root.getSchema().getFields().stream().map(f -> f.getName()).toList());
        assertTrue(reader.loadNextBatch());
        assertEquals(2, root.getRowCount());
        assertFalse(reader.loadNextBatch());
        // one chunk: land's; no chunk of t2m, expver or time
        assertEquals(1, stats.chunksDecoded());
      }
      ZaroException e =
          assertThrows(
              ZaroException.class,
              () ->
                  zaro.readTable(
                      "band",
                      "",
                      allocator,
                      TableOptions.DEFAULT.withColumns(List.of("stations")),
                      ReadOptions.DEFAULT));
      assertTrue(e.getMessage().contains("time, sector, expver, station, band"), e.getMessage());
    }
  }

  @Test
  void rawKeepsStoredCoordinateValues() throws Exception {
    try (Zaro zaro = Zaro.open(STORE.toString());
        TableReader reader =
            zaro.readTable(
                "band",
                "3:5",
                allocator,
                TableOptions.DEFAULT.withCf(false),
                ReadOptions.DEFAULT)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      assertTrue(reader.loadNextBatch());
      assertEquals("Tromsø", root.getVector("station").getObject(0).toString());
      assertEquals("0001", root.getVector("expver").getObject(7).toString());
    }
  }

  /**
   * Only arrays of the group named in {@code coordinates} over the variable's dimensions (same
   * lengths) are columns; a coordinate too large to hold is refused at the read, naming it.
   */
  @Test
  void whichArraysAreCoordinatesAndTheBound() throws Exception {
    MemoryStore store = new MemoryStore();
    long big = CoordinateColumns.MAX_BYTES / 8 + 1;
    store.put(".zgroup", bytes("{\"zarr_format\": 2}"));
    store.put("v/.zarray", bytes(zarray(big, "|u1")));
    store.put(
        "v/.zattrs",
        bytes(
            "{\"_ARRAY_DIMENSIONS\": [\"x\"], \"coordinates\": \"short x v lab nothere other\"}"));
    store.put("lab/.zarray", bytes(zarray(big, "<i8")));
    store.put("lab/.zattrs", bytes("{\"_ARRAY_DIMENSIONS\": [\"x\"]}"));
    store.put("short/.zarray", bytes(zarray(5, "<i8")));
    store.put("short/.zattrs", bytes("{\"_ARRAY_DIMENSIONS\": [\"x\"]}"));
    store.put("other/.zarray", bytes(zarray(big, "<i8")));
    store.put("other/.zattrs", bytes("{\"_ARRAY_DIMENSIONS\": [\"y\"]}"));
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults())) {
      assertEquals(List.of("lab"), zaro.coordinateColumns("v").names());
      try (TableReader reader =
          zaro.readTable("v", "5:8", allocator, TableOptions.DEFAULT, ReadOptions.DEFAULT)) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        assertTrue(reader.loadNextBatch());
        assertEquals(
            List.of(5L, 6L, 7L), List.of(get(root, "x", 0), get(root, "x", 1), get(root, "x", 2)));
        assertEquals(3, root.getRowCount());
        assertTrue(root.getVector("lab").isNull(0) || get(root, "lab", 0) == 0L);
      }
      // the reader opens (a schema costs nothing); its first batch refuses the coordinate
      try (TableReader reader =
          zaro.readTable("v", "", allocator, TableOptions.DEFAULT, ReadOptions.DEFAULT)) {
        ZaroException e = assertThrows(ZaroException.class, reader::loadNextBatch);
        assertEquals(ErrorKind.INVALID_ARGUMENT, e.kind());
        assertTrue(e.getMessage().contains("coordinate '/lab'"), e.getMessage());
      }
      // projected away, it is not read
      try (TableReader reader =
          zaro.readTable(
              "v",
              "",
              allocator,
              TableOptions.DEFAULT.withColumns(List.of("x")).withBatchRows(1 << 20),
              ReadOptions.DEFAULT)) {
        assertTrue(reader.loadNextBatch());
      }
    }
  }

  private static long get(VectorSchemaRoot root, String column, int row) {
    return ((Number) root.getVector(column).getObject(row)).longValue();
  }

  private static String zarray(long n, String dtype) {
    return "{\"zarr_format\": 2, \"shape\": ["
        + n
        + "], \"chunks\": [1048576], \"dtype\": \""
        + dtype
        + "\", \"compressor\": null, \"fill_value\": 0, \"filters\": null, \"order\": \"C\"}";
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
