package dev.zaro.arrow.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.plan.DimensionFilter;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.store.MemoryStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.vector.DurationVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Stores xarray 2023.01 wrote (testdata/xarray, generate.py): the table layout of every data
 * variable equals {@code xr.open_zarr(store)[var].to_dataframe().reset_index()} as that same xarray
 * read it (the expected.json files beside the stores), row by row.
 */
class XarrayTableTest extends AllocatorTest {
  private static final Path DIR = Fixtures.testdata().resolve("xarray");

  /** Variables whose table is refused: a julian/all_leap label that no Gregorian date carries. */
  private static final List<String> REFUSED = List.of("tas_all_leap");

  static Stream<Arguments> variables() throws Exception {
    List<Arguments> out = new ArrayList<>();
    for (String store : List.of("era5", "calendars", "stations")) {
      JsonNode expected = Json.readTree(DIR.resolve(store + ".expected.json").toFile());
      for (Map.Entry<String, JsonNode> e : expected.properties()) {
        if (!REFUSED.contains(e.getKey())) {
          out.add(Arguments.of(store, e.getKey(), e.getValue()));
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("variables")
  void tableEqualsXarray(String store, String variable, JsonNode expected) throws Exception {
    List<List<Object>> rows = new ArrayList<>();
    List<String> names = new ArrayList<>();
    try (Zaro zaro = Zaro.open(DIR.resolve(store + ".zarr").toString());
        TableReader reader =
            zaro.readTable(variable, "", allocator, TableOptions.DEFAULT, ReadOptions.DEFAULT)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      root.getSchema().getFields().forEach(f -> names.add(f.getName()));
      // the schema from metadata alone is the schema of the read
      assertEquals(
          zaro.tableSchema(
              variable, Selection.parse("", zaro.meta(variable).shape()), TableOptions.DEFAULT),
          root.getSchema());
      boolean float32Reference = packedNarrowInteger(zaro, variable);
      while (reader.loadNextBatch()) {
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            row.add(cell(v, r, float32Reference));
          }
          rows.add(row);
        }
      }
    }
    List<String> columns = new ArrayList<>();
    expected.get("columns").forEach(c -> columns.add(c.textValue()));
    assertEquals(columns, names);
    JsonNode want = expected.get("rows");
    assertEquals(want.size(), rows.size(), "rows");
    for (int r = 0; r < rows.size(); r++) {
      for (int c = 0; c < columns.size(); c++) {
        assertEquals(
            expectedCell(want.get(r).get(c), rows.get(r).get(c)),
            rows.get(r).get(c),
            variable + " row " + r + " column " + columns.get(c));
      }
    }
  }

  /**
   * xarray 2023.01 unpacks int8/int16 to float32 (its _choose_float_dtype; xarray 2024 and zaro use
   * float64 for float64 scale_factor/add_offset): such values compare after rounding to float32.
   */
  private static boolean packedNarrowInteger(Zaro zaro, String variable) {
    var meta = zaro.meta(variable);
    return meta.attributes().has("scale_factor") && meta.dataType().byteSize() <= 2;
  }

  private static Object cell(FieldVector v, int r, boolean float32Reference) {
    if (v.isNull(r)) {
      return null;
    }
    if (v instanceof TimeStampMicroVector t) {
      long us = t.get(r);
      long micros = Math.floorMod(us, 1_000_000);
      String text =
          LocalDateTime.ofEpochSecond(Math.floorDiv(us, 1_000_000), 0, ZoneOffset.UTC)
              .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss"));
      return micros == 0 ? text : text + String.format(".%06d", micros);
    }
    if (v instanceof DurationVector d) {
      assertEquals(TimeUnit.MICROSECOND, ((ArrowType.Duration) v.getField().getType()).getUnit());
      return DurationVector.get(d.getDataBuffer(), r);
    }
    Object o = v.getObject(r);
    if (o instanceof Text text) {
      return text.toString();
    }
    if (o instanceof Float f) {
      return (double) f;
    }
    if (o instanceof Double d && float32Reference) {
      return (double) (float) (double) d;
    }
    return o;
  }

  private static Object expectedCell(JsonNode want, Object actual) {
    if (want.isNull()) {
      return null;
    }
    if (want.isBoolean()) {
      return want.booleanValue();
    }
    if (want.isTextual()) {
      return want.textValue();
    }
    if (want.isIntegralNumber() && actual instanceof Long) {
      return want.longValue();
    }
    return want.doubleValue();
  }

  @Test
  void coordinatesAndCalendarsInTheSchema() throws Exception {
    try (Zaro zaro = Zaro.open(DIR.resolve("calendars.zarr").toString())) {
      Schema noleap =
          zaro.tableSchema(
              "tas_noleap",
              Selection.parse("", zaro.meta("tas_noleap").shape()),
              TableOptions.DEFAULT);
      assertTrue(noleap.getFields().get(0).getType() instanceof ArrowType.Timestamp);
      assertEquals("noleap", noleap.getFields().get(0).getMetadata().get("cf.calendar"));
      Schema day360 =
          zaro.tableSchema(
              "tas_360_day",
              Selection.parse("", zaro.meta("tas_360_day").shape()),
              TableOptions.DEFAULT);
      assertEquals(ArrowType.Utf8.INSTANCE, day360.getFields().get(0).getType());
      assertEquals("360_day", day360.getFields().get(0).getMetadata().get("cf.calendar"));
      // raw: the stored numbers
      Schema raw =
          zaro.tableSchema(
              "tas_360_day",
              Selection.parse("", zaro.meta("tas_360_day").shape()),
              TableOptions.DEFAULT.withCf(false));
      assertEquals(new ArrowType.Int(64, true), raw.getFields().get(0).getType());
    }
  }

  /** all_leap 2001-02-29 is no Gregorian date: the table is refused, naming the label. */
  @Test
  void labelWithoutGregorianDateIsRefused() throws Exception {
    try (Zaro zaro = Zaro.open(DIR.resolve("calendars.zarr").toString())) {
      ZaroException e =
          assertThrows(
              ZaroException.class,
              () ->
                  zaro.readTable(
                          "tas_all_leap", "", allocator, TableOptions.DEFAULT, ReadOptions.DEFAULT)
                      .close());
      assertTrue(e.getMessage().contains("2001-02-29 00:00:00"), e.getMessage());
      assertTrue(e.getMessage().contains("all_leap"), e.getMessage());
      // raw, it reads
      try (TableReader reader =
          zaro.readTable(
              "tas_all_leap",
              "",
              allocator,
              TableOptions.DEFAULT.withCf(false),
              ReadOptions.DEFAULT)) {
        assertTrue(reader.loadNextBatch());
      }
    }
  }

  /** Equality and IN on string labels narrow the station dimension, whatever the labels' order. */
  @Test
  void labelPredicatesNarrow() throws Exception {
    try (Zaro zaro = Zaro.open(DIR.resolve("stations.zarr").toString())) {
      DimensionFilter egll =
          zaro.dimensionFilter("temperature", TableOptions.DEFAULT)
              .restrict("station", DimensionFilter.Op.EQ, "LFPG");
      assertEquals(List.of(2L, 3L), List.of(egll.range(0)[0], egll.range(0)[1]));
      DimensionFilter in =
          zaro.dimensionFilter("temperature", TableOptions.DEFAULT)
              .restrictIn("station", List.of("RJTT", "KJFK"));
      assertEquals(List.of(1L, 4L), List.of(in.range(0)[0], in.range(0)[1]));
      DimensionFilter none =
          zaro.dimensionFilter("temperature", TableOptions.DEFAULT)
              .restrict("station", DimensionFilter.Op.EQ, "ZZZZ");
      assertTrue(none.isEmpty());
      // a comparison other than equality, or a number, narrows nothing
      DimensionFilter lt =
          zaro.dimensionFilter("temperature", TableOptions.DEFAULT)
              .restrict("station", DimensionFilter.Op.LT, "KJFK")
              .restrict("station", DimensionFilter.Op.EQ, 3);
      assertEquals(List.of(0L, 4L), List.of(lt.range(0)[0], lt.range(0)[1]));
    }
  }

  /**
   * The v2 fill value is the CF _FillValue only for arrays written for xarray (carrying
   * _ARRAY_DIMENSIONS): the same array without that attribute keeps its sentinel values.
   */
  @Test
  void fillValueCountsOnlyForXarrayArrays() throws Exception {
    MemoryStore store = new MemoryStore();
    Path msl = DIR.resolve("era5.zarr/msl");
    try (Stream<Path> files = Files.list(msl)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        byte[] bytes = Files.readAllBytes(f);
        if (f.getFileName().toString().equals(".zattrs")) {
          bytes =
              new String(bytes, StandardCharsets.UTF_8)
                  .replaceAll("\"_ARRAY_DIMENSIONS\": \\[[^]]*\\],?", "")
                  .getBytes(StandardCharsets.UTF_8);
        }
        store.put(f.getFileName().toString(), bytes);
      }
    }
    long xarrayNulls = nulls(Zaro.open(DIR.resolve("era5.zarr").toString()), "msl");
    long plainNulls = nulls(Zaro.open(store, ZaroOptions.defaults()), "");
    assertEquals(2, xarrayNulls);
    assertEquals(0, plainNulls);
  }

  private long nulls(Zaro zaro, String path) throws Exception {
    long nulls = 0;
    try (zaro;
        TableReader reader =
            zaro.readTable(path, "", allocator, TableOptions.DEFAULT, ReadOptions.DEFAULT)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      while (reader.loadNextBatch()) {
        nulls += root.getVector(root.getFieldVectors().size() - 1).getNullCount();
      }
    }
    return nulls;
  }
}
