package dev.zaro.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Npz;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.store.RemoteLimits;
import dev.zaro.arrow.store.TestHttpServer;
import dev.zaro.arrow.vector.TableReader;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The zarr source on a local[2] session: values against tensorstore/numpy fixtures for every dtype
 * class and against zarr-python's v3 draft stores, CF decoding against zaro's table layout,
 * multi-array tables, pushdown pruning (seen in the plan and the metrics), bad options.
 */
class ZarrSourceTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkSessions.local("local[2]");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static DataFrameReader zarr() {
    return spark.read().format("zarr");
  }

  private static String sample() {
    return Fixtures.sample().toString();
  }

  /** One read per dtype class: {set, case name, read index}. */
  static Stream<Arguments> dtypeReads() {
    List<Arguments> out = new ArrayList<>();
    for (String name :
        List.of(
            "dtype_bool",
            "dtype_int8",
            "dtype_int16",
            "dtype_int32",
            "dtype_int64",
            "dtype_uint8",
            "dtype_uint16",
            "dtype_uint32",
            "dtype_uint64",
            "dtype_float16",
            "dtype_float32",
            "dtype_float64",
            "big_endian_int16")) {
      out.add(Arguments.of("core", name, 1));
    }
    for (String name :
        List.of(
            "datetime64_ns",
            "datetime64_s_big",
            "timedelta64_ms",
            "raw_r8",
            "raw_r24",
            "string_vlen_zstd",
            "bytes_vlen",
            "fixed_utf32_le")) {
      out.add(Arguments.of("extensions", name, 1));
    }
    out.add(Arguments.of("dtypes", "int4", 1));
    out.add(Arguments.of("dtypes", "uint2", 1));
    out.add(Arguments.of("fallback", "bfloat16", 1));
    out.add(Arguments.of("fallback", "float8_e4m3fn", 1));
    for (String name :
        List.of(
            "bfloat16", "bfloat16_sharded", "float8_e4m3fnuz", "float8_e8m0fnu", "float6_e2m3fn")) {
      out.add(Arguments.of("mlfloats", name, 0)); // float32 values by default
    }
    // Zarr v3 draft stores (meta/ + data/root/), values written by zarr-python and zarrita
    out.add(Arguments.of("v3draft", "grp_blosc_lz4_bitshuffle", 1));
    out.add(Arguments.of("v3draft", "grp_sub_int16_F", 3));
    out.add(Arguments.of("v3draft", "big_int64", 2));
    out.add(Arguments.of("v3draft", "sparse_uint8_fill", 0));
    out.add(Arguments.of("v3draft", "consolidated_obs_temp", 1));
    out.add(Arguments.of("v3draft", "may2022_obs_temp", 1));
    out.add(Arguments.of("v3draft", "zarrita_gzip", 1));
    return out.stream();
  }

  @ParameterizedTest(name = "{0}/{1}")
  @MethodSource("dtypeReads")
  void valuesEqualTheFixtures(String set, String name, int read) throws Exception {
    Path dir = Fixtures.testdata().resolve(set);
    JsonNode c = null;
    for (JsonNode n : JSON.readTree(dir.resolve("cases.json").toFile()).get("cases")) {
      if (n.get("name").asText().equals(name)) {
        c = n;
      }
    }
    JsonNode r = c.get("reads").get(read);
    String slice = r.get("slice").asText();
    List<Row> rows =
        zarr()
            .option("array", c.path("path").asText("").isEmpty() ? "/" : c.get("path").asText())
            .option("slice", slice)
            .option("fallbackTypes", String.valueOf(set.equals("fallback")))
            .option("partitionBytes", "256") // several partitions even for these small arrays
            .load(dir.resolve(c.get("store").asText()).toString())
            .collectAsList();
    long[][] indices = indices(slice, c.get("shape"));
    rows = sortedByDimensions(rows, indices.length == 0 ? 0 : indices[0].length);
    assertEquals(indices.length, rows.size());
    for (int i = 0; i < rows.size(); i++) {
      for (int d = 0; d < indices[i].length; d++) {
        assertEquals(indices[i][d], rows.get(i).getLong(d), name + " row " + i + " dim_" + d);
      }
    }
    int v = indices.length == 0 ? 0 : indices[0].length;
    String expected = r.get("expected").asText();
    if (expected.endsWith(".json")) {
      JsonNode want = JSON.readTree(dir.resolve(expected).toFile());
      for (int i = 0; i < rows.size(); i++) {
        Object got = rows.get(i).get(v);
        String text =
            got instanceof byte[] b ? new String(b, StandardCharsets.ISO_8859_1) : (String) got;
        assertEquals(want.get(i).asText(), text, name + " row " + i);
      }
      return;
    }
    ByteBuffer want =
        ByteBuffer.wrap(Files.readAllBytes(dir.resolve(expected))).order(ByteOrder.LITTLE_ENDIAN);
    String type = c.get("data_type").asText();
    for (int i = 0; i < rows.size(); i++) {
      Row row = rows.get(i);
      String what = name + " row " + i;
      if (set.equals("mlfloats")) {
        assertEquals(want.getFloat(i * 4), row.getFloat(v), what);
        continue;
      }
      switch (type) {
        case "bool" -> assertEquals(want.get(i) != 0, row.getBoolean(v), what);
        case "int8", "int4", "int2" -> assertEquals(want.get(i), row.getByte(v), what);
        case "int16" -> assertEquals(want.getShort(i * 2), row.getShort(v), what);
        case "int32" -> assertEquals(want.getInt(i * 4), row.getInt(v), what);
        case "int64" -> assertEquals(want.getLong(i * 8), row.getLong(v), what);
        case "uint8", "uint4", "uint2", "float8_e4m3fn" ->
            assertEquals((short) (want.get(i) & 0xff), row.getShort(v), what);
        case "uint16", "bfloat16" ->
            assertEquals(want.getShort(i * 2) & 0xffff, row.getInt(v), what);
        case "uint32" -> assertEquals(want.getInt(i * 4) & 0xffffffffL, row.getLong(v), what);
        case "uint64" ->
            assertEquals(
                new BigDecimal(Long.toUnsignedString(want.getLong(i * 8))),
                row.getDecimal(v),
                what);
        case "float16" -> assertEquals(half(want.getShort(i * 2)), row.getFloat(v), what);
        case "float32" -> assertEquals(want.getFloat(i * 4), row.getFloat(v), what);
        case "float64" -> assertEquals(want.getDouble(i * 8), row.getDouble(v), what);
        case "numpy.datetime64" -> {
          long raw = want.getLong(i * 8);
          if (raw == Long.MIN_VALUE) {
            assertNull(row.get(v), what + " (NaT)");
          } else {
            long micros =
                c.get("unit").asText().equals("ns") ? Math.floorDiv(raw, 1000) : raw * 1_000_000;
            LocalDateTime t = (LocalDateTime) row.get(v);
            assertEquals(micros, epochMicros(t), what);
          }
        }
        case "numpy.timedelta64" -> {
          long raw = want.getLong(i * 8);
          if (raw == Long.MIN_VALUE) {
            assertNull(row.get(v), what + " (NaT)");
          } else {
            assertEquals(Duration.ofMillis(raw), row.get(v), what);
          }
        }
        case "r8", "r24" -> {
          int w = type.equals("r8") ? 1 : 3;
          byte[] b = new byte[w];
          want.get(i * w, b);
          assertArrayEquals(b, (byte[]) row.get(v), what);
        }
        default -> throw new AssertionError("no check for " + type);
      }
    }
  }

  /**
   * Rows in C order of their dimension columns (the first {@code dims}): partitions cut inside a
   * row of chunks, so Spark's row order is partition order, not C order.
   */
  /**
   * The slice option takes index lists (numpy's outer meaning): the rows are those of numpy's
   * {@code a[np.ix_]} (testdata/outer), each once (partitions, cut on chunk boundaries and by
   * positions of the lists, come in no promised order, as for ranges); a pushed-down filter on a
   * list dimension keeps the listed indices inside it.
   */
  @Test
  void sliceOptionTakesIndexLists() throws Exception {
    long[] rowsOf = {12, 11, 10, 19, 0};
    long[] columnsOf = {33, 31, 15};
    ByteBuffer want =
        ByteBuffer.wrap(
                Files.readAllBytes(
                    Fixtures.testdata().resolve("outer/expected/sharding_end_zstd.3.bin")))
            .order(ByteOrder.LITTLE_ENDIAN);
    List<String> all = new ArrayList<>();
    List<String> above = new ArrayList<>();
    for (int i = 0; i < 15; i++) {
      String row = rowsOf[i / 3] + "," + columnsOf[i % 3] + "," + want.getInt(i * 4);
      all.add(row);
      if (rowsOf[i / 3] >= 11) {
        above.add(row);
      }
    }
    Dataset<Row> frame =
        zarr()
            .option("array", "/")
            .option("slice", "[12,11,10,19,0], [33,31,15]")
            .option("partitionBytes", "16")
            .load(Fixtures.testdata().resolve("sharding/stores/end_zstd.zarr").toString());
    assertEquals(all.stream().sorted().toList(), texts(frame.collectAsList()));
    assertEquals(
        above.stream().sorted().toList(), texts(frame.where("dim_0 >= 11").collectAsList()));
  }

  private static List<String> texts(List<Row> rows) {
    return rows.stream()
        .map(r -> r.getLong(0) + "," + r.getLong(1) + "," + r.getInt(2))
        .sorted()
        .toList();
  }

  private static List<Row> sortedByDimensions(List<Row> rows, int dims) {
    List<Row> sorted = new ArrayList<>(rows);
    sorted.sort(
        (a, b) -> {
          for (int d = 0; d < dims; d++) {
            int c = Long.compare(a.getLong(d), b.getLong(d));
            if (c != 0) {
              return c;
            }
          }
          return 0;
        });
    return sorted;
  }

  /** float16 bits to float, by the IEEE 754 binary16 definition (not zaro's converter). */
  private static float half(short bits) {
    int sign = (bits >> 15) & 1;
    int exp = (bits >> 10) & 0x1f;
    int mant = bits & 0x3ff;
    double v =
        exp == 0
            ? Math.scalb((double) mant, -24)
            : exp == 31
                ? (mant == 0 ? Double.POSITIVE_INFINITY : Double.NaN)
                : Math.scalb(1024.0 + mant, exp - 25);
    return (float) (sign == 1 ? -v : v);
  }

  /**
   * The selected index tuples of a numpy slice "a:b[:c], ..." (integers drop their dimension), C
   * order.
   */
  private static long[][] indices(String slice, JsonNode shape) {
    String[] entries = slice.isBlank() ? new String[0] : slice.split(",");
    List<long[]> ranges = new ArrayList<>();
    for (int d = 0; d < shape.size(); d++) {
      long size = shape.get(d).asLong();
      String e = d < entries.length ? entries[d].trim() : ":";
      if (!e.contains(":")) {
        continue;
      }
      String[] p = e.split(":", -1);
      long start = p[0].isBlank() ? 0 : Long.parseLong(p[0]);
      long stop = p[1].isBlank() ? size : Long.parseLong(p[1]);
      long step = p.length > 2 && !p[2].isBlank() ? Long.parseLong(p[2]) : 1;
      start = start < 0 ? start + size : start;
      stop = stop < 0 ? stop + size : stop;
      List<Long> values = new ArrayList<>();
      for (long i = start; i < stop; i += step) {
        values.add(i);
      }
      ranges.add(values.stream().mapToLong(Long::longValue).toArray());
    }
    List<long[]> out = new ArrayList<>();
    out.add(new long[0]);
    for (long[] range : ranges) {
      List<long[]> next = new ArrayList<>();
      for (long[] prefix : out) {
        for (long i : range) {
          long[] t = Arrays.copyOf(prefix, prefix.length + 1);
          t[prefix.length] = i;
          next.add(t);
        }
      }
      out = next;
    }
    return out.toArray(long[][]::new);
  }

  /**
   * Spark's rows of the sample equal zaro's table layout (CF decoded, or raw), column by column.
   */
  @Test
  void cfDecodingEqualsTheTableLayout() throws Exception {
    for (boolean raw : new boolean[] {false, true}) {
      Dataset<Row> df =
          zarr()
              .option("array", "precip")
              .option("slice", "20:35, 55:65, :")
              .option("raw", String.valueOf(raw))
              .option("partitionBytes", "16k")
              .load(sample());
      List<Row> rows = df.collectAsList();
      assertEquals(
          raw ? DataTypes.ShortType : DataTypes.DoubleType, df.schema().apply("precip").dataType());
      assertEquals(
          raw ? DataTypes.DoubleType : DataTypes.TimestampNTZType,
          df.schema().apply("time").dataType());
      Map<List<Object>, List<Object>> want =
          byDimensions(tableLayout("precip", "20:35, 55:65, :", raw), 3);
      assertEquals(want.size(), rows.size());
      int nulls = 0;
      for (Row row : rows) {
        List<Object> got = values(row);
        assertEquals(want.get(got.subList(0, 3)), got, raw ? "raw" : "CF");
        nulls += got.get(3) == null ? 1 : 0;
      }
      assertTrue(raw || nulls > 0, "the sample's precip has _FillValue cells in this slice");
    }
  }

  /** Rows of zaro's table layout as Java values (timestamps as epoch micros). */
  private static List<List<Object>> tableLayout(String array, String slice, boolean raw)
      throws Exception {
    List<List<Object>> out = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator();
        Zaro zaro = Zaro.open(sample());
        TableReader reader =
            zaro.readTable(
                array, slice, allocator, TableOptions.DEFAULT.withCf(!raw), ReadOptions.DEFAULT)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      while (reader.loadNextBatch()) {
        for (int i = 0; i < root.getRowCount(); i++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            Object o = v.getObject(i);
            row.add(o instanceof LocalDateTime t ? epochMicros(t) : o);
          }
          out.add(row);
        }
      }
    }
    return out;
  }

  /**
   * Two arrays of one shape (sharded differently) as one table, as xarray's Dataset.to_dataframe.
   */
  @Test
  void multiArrayTable() throws Exception {
    Dataset<Row> df =
        zarr()
            .option("arrays", "t2m, precip")
            .option("slice", "5:40")
            .option("partitionBytes", "200k")
            .load(sample());
    assertEquals(List.of("time", "lat", "lon", "t2m", "precip"), List.of(df.schema().fieldNames()));
    List<Row> rows = df.collectAsList();
    Map<List<Object>, List<Object>> t2m = byDimensions(tableLayout("t2m", "5:40", false), 3);
    Map<List<Object>, List<Object>> precip = byDimensions(tableLayout("precip", "5:40", false), 3);
    assertEquals(t2m.size(), rows.size());
    for (Row row : rows) {
      List<Object> got = values(row);
      List<Object> key = got.subList(0, 3);
      assertEquals(t2m.get(key).get(3), got.get(3), "t2m at " + key);
      assertEquals(precip.get(key).get(3), got.get(4), "precip at " + key);
    }
    // pruned to one value column: the other array is not read
    Dataset<Row> one = zarr().option("arrays", "t2m,precip").load(sample()).select("lon", "precip");
    assertEquals(List.of("lon", "precip"), List.of(one.schema().fieldNames()));
    assertEquals(48L * 73 * 144, one.count());
    double sum =
        precip.values().stream().mapToDouble(r -> r.get(3) == null ? 0 : (Double) r.get(3)).sum();
    assertEquals(
        sum,
        one.filter("time >= timestamp_ntz'2020-01-02 06:00' and time < timestamp_ntz'2020-01-11'")
            .selectExpr("coalesce(sum(precip), 0)")
            .first()
            .getDouble(0),
        Math.abs(sum) * 1e-9);
  }

  /**
   * Non-dimension coordinates are columns, as in the table layout: era5.zarr's t2m and msl against
   * xarray's {@code to_dataframe().reset_index()} (testdata/xarray_client/expected, numpy's npz).
   */
  @Test
  void coordinateColumnsEqualXarray() throws Exception {
    Path dir = Fixtures.testdata().resolve("xarray_client");
    Map<String, Object> t2m = Npz.read(dir.resolve("expected/era5.t2m.table.npz"));
    Map<String, Object> msl = Npz.read(dir.resolve("expected/era5.msl.table.npz"));
    long[] time = (long[]) t2m.get("time");
    double[] lat = (double[]) t2m.get("latitude");
    double[] lon = (double[]) t2m.get("longitude");
    Map<List<Object>, Integer> at = new HashMap<>();
    for (int i = 0; i < time.length; i++) {
      at.put(List.of(time[i] / 1000, lat[i], lon[i]), i);
    }
    Dataset<Row> df =
        zarr()
            .option("arrays", "t2m, msl")
            .option("partitionBytes", "8k")
            .load(dir.resolve("era5.zarr").toString());
    assertEquals(
        List.of("time", "latitude", "longitude", "expver", "land", "t2m", "msl"),
        List.of(df.schema().fieldNames()));
    assertTrue(df.rdd().getNumPartitions() > 1, df.rdd().getNumPartitions() + " partitions");
    List<Row> rows = df.collectAsList();
    assertEquals(time.length, rows.size());
    for (Row row : rows) {
      List<Object> got = values(row);
      int i = at.get(got.subList(0, 3));
      assertEquals(((String[]) t2m.get("expver"))[i], got.get(3), "expver row " + i);
      assertEquals(((int[]) t2m.get("land"))[i], ((Number) got.get(4)).intValue(), "land row " + i);
      float t = ((float[]) t2m.get("t2m"))[i];
      assertEquals(Float.isNaN(t) ? null : t, got.get(5), "t2m row " + i);
      float m = ((float[]) msl.get("msl"))[i];
      // xarray 2023.01 unpacks int16 to float32, zaro (as xarray >= 2024.03) to float64
      assertEquals(
          Float.isNaN(m) ? null : m,
          got.get(6) == null ? null : (float) (double) (Double) got.get(6),
          "msl row " + i);
    }
    // a coordinate column alone, and filtered on
    assertEquals(600L, df.filter("expver = '0005'").select("expver").count());
  }

  /**
   * Only filters on dimension columns are reported as pushed (they narrow index ranges); one on a
   * non-dimension coordinate column is Spark's alone, and every filter stays with Spark.
   */
  @Test
  void onlyDimensionFiltersArePushed() {
    ZarrOptions options =
        ZarrOptions.parse(
            Map.of(
                "path",
                Fixtures.testdata().resolve("xarray_client/era5.zarr").toString(),
                "array",
                "t2m"));
    ZarrScanBuilder builder = new ZarrScanBuilder(options, ZarrDataSource.schema(options));
    Filter time = new GreaterThanOrEqual("time", Timestamp.valueOf("2020-01-02 00:00:00"));
    Filter expver = new EqualTo("expver", "0005");
    Filter land = new EqualTo("land", 1);
    Filter[] all = {time, expver, land};
    assertArrayEquals(all, builder.pushFilters(all));
    assertArrayEquals(new Filter[] {time}, builder.pushedFilters());
  }

  /** Rows keyed by their first {@code dims} values (the dimension columns). */
  private static Map<List<Object>, List<Object>> byDimensions(List<List<Object>> rows, int dims) {
    Map<List<Object>, List<Object>> out = new HashMap<>();
    rows.forEach(r -> out.put(List.copyOf(r.subList(0, dims)), r));
    return out;
  }

  /** A timestamp without a zone as microseconds since the epoch, read as UTC. */
  private static long epochMicros(LocalDateTime t) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, t.toInstant(ZoneOffset.UTC));
  }

  /**
   * A Spark row as Java values, timestamps as epoch micros (as {@link #tableLayout} gives them).
   */
  private static List<Object> values(Row row) {
    List<Object> out = new ArrayList<>();
    for (int i = 0; i < row.size(); i++) {
      Object o = row.get(i);
      out.add(o instanceof LocalDateTime t ? epochMicros(t) : o);
    }
    return out;
  }

  /**
   * Filters on dimension columns prune partitions (plan) and reads (metrics); Spark's answer stays
   * exact.
   */
  @Test
  void pushdownPrunesPartitions() throws Exception {
    Dataset<Row> all =
        zarr().option("array", "t2m").option("partitionBytes", "100k").load(sample());
    int allPartitions = all.rdd().getNumPartitions();
    assertTrue(allPartitions >= 4, allPartitions + " partitions");
    LocalDateTime from = LocalDateTime.of(2020, 1, 3, 0, 0);
    Dataset<Row> some =
        all.filter(
            all.col("time")
                .geq(from)
                .and(all.col("time").lt(from.plusHours(24)))
                .and(all.col("lat").between(-30.0, 30.0)));
    int somePartitions = some.rdd().getNumPartitions();
    assertTrue(
        somePartitions < allPartitions, somePartitions + " of " + allPartitions + " partitions");
    List<Row> rows = some.collectAsList();
    long want =
        tableLayout("t2m", "", false).stream()
            .filter(
                r -> {
                  long t = (Long) r.get(0);
                  long micros = from.toEpochSecond(ZoneOffset.UTC) * 1_000_000;
                  double lat = (Double) r.get(1);
                  return t >= micros
                      && t < micros + 24 * 3600 * 1_000_000L
                      && lat >= -30
                      && lat <= 30;
                })
            .count();
    assertEquals(want, rows.size());
    assertTrue(want > 0);
    Map<String, Long> metrics = scanMetrics(some);
    long fullBytes = 48L * 73 * 144 * 4;
    assertTrue(
        metrics.get("bytesDecoded") > 0 && metrics.get("bytesDecoded") <= fullBytes / 4,
        "decoded " + metrics.get("bytesDecoded") + " of " + fullBytes);
    assertTrue(metrics.get("chunksRead") > 0, "chunks read " + metrics);
    assertTrue(metrics.get("bytesFetched") > 0, "bytes fetched " + metrics);
    // an IN list narrows to the hull of its values; a filter that matches nothing plans no
    // partition
    Dataset<Row> in = all.filter(all.col("lon").isin(10.0, 12.5));
    assertTrue(in.rdd().getNumPartitions() <= allPartitions);
    assertEquals(2L * 48 * 73, in.count());
    Dataset<Row> none = all.filter(all.col("lat").gt(1000.0));
    assertEquals(0, none.rdd().getNumPartitions());
    assertEquals(0L, none.count());
  }

  /**
   * STORE is any zaro location: over HTTP (a loopback server, consolidated metadata) the executors
   * reopen the URL and read the same table as from disk, fetching what they decode.
   */
  @Test
  void readsOverHttp() throws Exception {
    try (TestHttpServer server = new TestHttpServer(Fixtures.sample())) {
      Dataset<Row> http =
          zarr()
              .option("array", "precip")
              .option("slice", "20:30")
              .option("partitionBytes", "100k")
              .load(server.url("").toString());
      assertTrue(http.rdd().getNumPartitions() >= 2, http.rdd().getNumPartitions() + " partitions");
      String[] aggregates = {"count(*)", "count(precip)", "sum(precip)", "min(time)", "max(lon)"};
      Row got = http.selectExpr(aggregates).first();
      Row want =
          zarr()
              .option("array", "precip")
              .option("slice", "20:30")
              .load(sample())
              .selectExpr(aggregates)
              .first();
      for (int i = 0; i < aggregates.length; i++) {
        if (i == 2) { // sums of doubles: partitions add in any order
          assertEquals(
              want.getDouble(i),
              got.getDouble(i),
              Math.abs(want.getDouble(i)) * 1e-12,
              aggregates[i]);
        } else {
          assertEquals(want.get(i), got.get(i), aggregates[i]);
        }
      }
      assertTrue(scanMetrics(http).get("bytesFetched") > 0);
    }
  }

  /** Runs {@code df} and returns the custom metrics of its zarr scan. */
  private static Map<String, Long> scanMetrics(Dataset<Row> df) {
    df.collectAsList();
    SparkPlan plan = df.queryExecution().executedPlan();
    List<SparkPlan> scans = new ArrayList<>();
    collect(plan, scans);
    assertEquals(1, scans.size(), plan.toString());
    Map<String, Long> out = new HashMap<>();
    CollectionConverters.asJava(scans.get(0).metrics()).forEach((k, v) -> out.put(k, v.value()));
    return out;
  }

  private static void collect(SparkPlan plan, List<SparkPlan> scans) {
    if (plan instanceof BatchScanExec) {
      scans.add(plan);
    }
    CollectionConverters.asJava(plan.children()).forEach(c -> collect(c, scans));
  }

  static Stream<Arguments> badOptions() {
    return Stream.of(
        Arguments.of(Map.of("array", "nope"), "'array'"),
        Arguments.of(Map.of("arrays", "t2m,lat"), "'arrays'"),
        Arguments.of(Map.of("array", "t2m", "slice", "0:99"), "'slice'"),
        Arguments.of(Map.of("array", "t2m", "slice", "1:2:0"), "'slice'"),
        Arguments.of(Map.of("array", "t2m", "raw", "yes"), "'raw'"),
        Arguments.of(Map.of("array", "t2m", "partitionBytes", "-5"), "'partitionBytes'"),
        Arguments.of(Map.of("array", "t2m", "threads", "many"), "'threads'"),
        Arguments.of(Map.of("array", "t2m", "partitonBytes", "5"), "'partitonBytes'"),
        Arguments.of(Map.of("array", "t2m", "timeout", "0"), "'timeout'"),
        Arguments.of(Map.of("array", "t2m", "requestTimeout", "soon"), "'requestTimeout'"),
        Arguments.of(Map.of("array", "t2m", "retries", "-1"), "'retries'"),
        Arguments.of(Map.of("array", "t2m", "maxMetadataSize", "0"), "'maxMetadataSize'"),
        Arguments.of(Map.of(), "'array'"));
  }

  /** The remote options reach the read's ZaroOptions, named as the CLI names them. */
  @Test
  void remoteOptionsSetTheReadsLimits() {
    RemoteLimits limits =
        ZarrOptions.parse(
                Map.of(
                    "path", "http://example.invalid/z",
                    "array", "t2m",
                    "timeout", "2.5",
                    "requestTimeout", "1",
                    "retries", "0",
                    "maxObjectSize", "1g",
                    "maxMetadataSize", "64m"))
            .zaroOptions()
            .remote();
    assertEquals(
        new RemoteLimits(Duration.ofMillis(2500), Duration.ofSeconds(1), 0, 1L << 30, 64L << 20),
        limits);
  }

  @ParameterizedTest
  @MethodSource("badOptions")
  void badOptionsFailAtAnalysisNamingTheOption(Map<String, String> options, String named) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> zarr().options(options).load(sample()));
    assertTrue(e.getMessage().contains(named), e.getMessage());
  }

  @Test
  void refusedArraysFailAtAnalysis() {
    String complex = Fixtures.testdata().resolve("core/stores/dtype_complex64.zarr").toString();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> zarr().option("array", "/").load(complex));
    assertTrue(
        e.getMessage().contains("'array'") && e.getMessage().contains("complex"), e.getMessage());
    String struct = Fixtures.testdata().resolve("dtypes/stores/struct.zarr").toString();
    e =
        assertThrows(
            IllegalArgumentException.class, () -> zarr().option("array", "/").load(struct));
    assertTrue(
        e.getMessage().contains("'array'") && e.getMessage().contains("Struct"), e.getMessage());
    String bf16 = Fixtures.testdata().resolve("fallback/stores/bfloat16.zarr").toString();
    assertEquals(
        DataTypes.FloatType,
        zarr().option("array", "/").load(bf16).schema().apply("data").dataType());
    assertEquals(
        DataTypes.IntegerType,
        zarr()
            .option("array", "/")
            .option("rawBits", "true")
            .load(bf16)
            .schema()
            .apply("data")
            .dataType());
    assertEquals(
        DecimalType.apply(20, 0),
        zarr()
            .option("array", "/")
            .load(Fixtures.testdata().resolve("core/stores/dtype_uint64.zarr").toString())
            .schema()
            .apply("data")
            .dataType());
  }
}
