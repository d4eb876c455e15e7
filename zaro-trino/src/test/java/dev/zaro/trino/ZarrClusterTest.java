package dev.zaro.trino;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.inject.Key;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.s3.MotoServer;
import dev.zaro.sql.SqlEngine;
import dev.zaro.sql.SqlQuery;
import dev.zaro.trino.server.LocalCluster;
import io.trino.connector.CatalogHandle;
import io.trino.connector.ConnectorServicesProvider;
import io.trino.execution.QueryInfo;
import io.trino.execution.StageInfo;
import io.trino.execution.StagesInfo;
import io.trino.execution.TaskInfo;
import io.trino.metadata.CatalogManager;
import io.trino.operator.OperatorStats;
import io.trino.server.testing.TestingTrinoServer;
import io.trino.spi.catalog.CatalogName;
import io.trino.spi.catalog.CatalogProperties;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedResult;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryFailedException;
import io.trino.testing.QueryRunner;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The connector on a real multi-node Trino (a coordinator that schedules no splits and two workers,
 * talking HTTP on loopback), one cluster for the whole class: answers equal {@code zaro sql}'s
 * (DuckDB over the same store, in this JVM) and DuckDB's over Parquet files pyarrow wrote from
 * numpy (testdata/sql); predicates on dimensions prune splits, which run on the workers; bad input
 * fails with a message naming what is wrong; worker memory returns to zero.
 */
class ZarrClusterTest {
  private static DistributedQueryRunner cluster;
  private static Path copies;

  /** Catalog -> store, each fixture its own catalog over the one cluster. */
  static final Map<String, String> CATALOGS =
      Map.of(
          "sample", "sample/climate.zarr",
          "grid", "sql/grid.zarr",
          "cf", "xarray_client/cf.zarr",
          "stations", "xarray/stations.zarr",
          "calendars", "xarray/calendars.zarr",
          "sharded", "sharding/stores/end_zstd.zarr",
          "v2", "v2/stores/delta_order_f_3d.zarr",
          "u64", "v2/stores/dtype_uint64.zarr");

  @BeforeAll
  static void start(@TempDir Path dir) throws Exception {
    copies = dir;
    // one chunk of grid's v (4 x 6 x 5 float32) per split: the pruning test counts them
    cluster =
        LocalCluster.start(Map.of("zarr.store", store("grid"), "zarr.split-size", "480b"), 2, 0);
    for (Map.Entry<String, String> c : CATALOGS.entrySet()) {
      cluster.createCatalog(c.getKey(), "zarr", Map.of("zarr.store", store(c.getKey())));
    }
    String repo = Fixtures.testdata().resolve("icechunk/test-repo-v2").toString();
    cluster.createCatalog("ice_main", "zarr", Map.of("zarr.store", "icechunk://" + repo));
    cluster.createCatalog(
        "ice_tag",
        "zarr",
        Map.of("zarr.store", "icechunk://" + repo, "zarr.icechunk.tag", "it works!"));
    cluster.createCatalog(
        "ice_snapshot",
        "zarr",
        Map.of(
            "zarr.store", "icechunk://" + repo, "zarr.icechunk.snapshot", "7T7DSS71H2JNBBZQ9M8G"));
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  static String store(String catalog) {
    return Fixtures.testdata().resolve(CATALOGS.get(catalog)).toString();
  }

  /**
   * Queries over each fixture: {@code {path}} names a table, as {@code zaro sql} names it (the
   * array's path) and as Trino does ({@code catalog."schema"."table"}).
   */
  static Stream<Arguments> queries() {
    return Stream.of(
        // v3, CF times, pushdown on times and coordinates
        Arguments.of(
            "sample",
            "select time, avg(cast(t2m as double)) from {t2m} where lat between 30 and 60 group by time"),
        Arguments.of(
            "sample",
            "select count(*), sum(cast(t2m as double)) from {t2m} where time < TIMESTAMP '2020-01-02 06:00:00' and lat between 0 and 30"),
        Arguments.of(
            "sample",
            "select time, lat, lon, precip from {precip} where time = TIMESTAMP '2020-01-05 18:00:00' and lat > 80 and lon < 10"),
        Arguments.of("sample", "select count(*), count(lat), min(time), max(time) from {precip}"),
        // float32 increasing and int32 decreasing coordinates, an index dimension
        Arguments.of(
            "grid",
            "select count(*), sum(cast(v as double)), min(z), max(y) from {v} where y > 70"),
        Arguments.of(
            "grid", "select z, y, x, v from {v} where y between 60 and 80 and x in (2, 7)"),
        Arguments.of("grid", "select z, y, x, v from {v} where x >= 8 and y < 50"),
        Arguments.of("grid", "select s, sum(w), count(*) from {w} where s < 2.5 group by s"),
        // xarray-written: packed int16 with _FillValue, NaN fill, CF days, auxiliary coordinate,
        // a subgroup (a schema of its own)
        Arguments.of(
            "cf",
            "select time, lat, lon, t.area, temp, precip is null from {temp} t join {precip} p using (time, lat, lon)"),
        Arguments.of(
            "cf",
            "select count(*), count(temp), sum(temp) from {temp} where time >= TIMESTAMP '2000-01-02 00:00:00'"),
        Arguments.of("cf", "select * from {forecast/wind}"),
        Arguments.of("cf", "select flag, count(*) from {flag} group by flag"),
        // string labels
        Arguments.of(
            "stations",
            "select station, time, temperature from {temperature} where station in ('KJFK', 'RJTT')"),
        Arguments.of(
            "stations",
            "select count(*), sum(temperature) from {temperature} where station = 'EGLL'"),
        // noleap times as timestamps, 360_day times as labels
        Arguments.of("calendars", "select time_noleap, tas_noleap from {tas_noleap}"),
        Arguments.of(
            "calendars",
            "select time_360_day, tas_360_day from {tas_360_day} where time_360_day = '2000-02-30 00:00:00'"),
        // sharded (v3 sharding_indexed), a root array: table data
        Arguments.of("sharded", "select * from {data} where dim_0 between 7 and 12 and dim_1 > 30"),
        Arguments.of("sharded", "select count(*), sum(data), min(data), max(data) from {data}"),
        // v2 (order F, delta filter)
        Arguments.of("v2", "select * from {data} where dim_0 = 1"),
        // uint64: DuckDB's UBIGINT, Trino's decimal(20, 0)
        Arguments.of("u64", "select * from {data}"));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("queries")
  void answersEqualZaroSql(String catalog, String query) throws Exception {
    List<String> expected = zaroSql(catalog, query);
    List<String> actual = trino(catalog, query);
    assertTrue(!expected.isEmpty(), query);
    assertRowsEqual(expected, actual, query);
  }

  /** The grid's queries also equal DuckDB's over the Parquet files pyarrow wrote (numpy values). */
  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("queries")
  void gridAnswersEqualDuckDbOverParquet(String catalog, String query) throws Exception {
    if (!catalog.equals("grid")) {
      return;
    }
    List<String> expected;
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      for (String t : new String[] {"v", "w"}) {
        s.execute(
            "CREATE VIEW "
                + t
                + " AS SELECT * FROM read_parquet('"
                + Fixtures.testdata().resolve("sql/" + t + ".parquet")
                + "')");
      }
      try (ResultSet rs = s.executeQuery(tables(query, p -> p))) {
        expected = rows(rs);
      }
    }
    assertRowsEqual(expected, trino(catalog, query), query);
  }

  /**
   * Predicates on dimension columns prune splits: one chunk of v per split (zarr.split-size), 16
   * for the whole array; z < 0.35 keeps z's first chunk (4 of 16 z values), y > 70 y's first (6 of
   * 12, decreasing). Every split runs on a worker, none on the coordinator.
   */
  @Test
  void predicatesOnDimensionsPruneSplitsThatRunOnWorkers() throws Exception {
    assertEquals(16, scan("select sum(v) from zarr.\"default\".v").drivers());
    assertEquals(4, scan("select sum(v) from zarr.\"default\".v where z < 0.35").drivers());
    Scan both = scan("select count(*) from zarr.\"default\".v where z < 0.35 and y > 70");
    assertEquals(2, both.drivers());
    assertEquals(0, both.onCoordinator());
    assertTrue(both.onWorkers() > 0);
    // narrowed exactly: the filter on z and y left the plan (enforced by the read), so the scan's
    // rows are the answer's: 4 z x 6 y x 10 x
    assertEquals(240L, both.rows());
    assertEquals(240L, cluster.execute(both.sql()).getOnlyValue());
  }

  /** Icechunk refs: a catalog per branch, tag and snapshot (expected: icechunk/expected.json). */
  @Test
  void icechunkRefsAsCatalogProperties() {
    assertEquals(
        "[84, 84, 84, 84, 84]", values("select small_chunks from ice_main.group1.small_chunks"));
    assertEquals(
        "[84, 84, 84, 84, 8]", values("select small_chunks from ice_tag.group1.small_chunks"));
    assertEquals(
        "[8, 8, 8, 8, 8]", values("select small_chunks from ice_snapshot.group1.small_chunks"));
  }

  @Test
  void schemasAreGroupsAndTablesAreArrays() {
    assertEquals("[default, forecast, information_schema]", values("show schemas from cf"));
    assertEquals("[lat, valid_time, wind]", values("show tables from cf.forecast"));
    assertEquals(
        "[area, flag, lat, lon, precip, temp, time]", values("show tables from cf.\"default\""));
    MaterializedResult columns = cluster.execute("describe cf.\"default\".temp");
    List<String> described = new ArrayList<>();
    for (MaterializedRow row : columns.getMaterializedRows()) {
      described.add(row.getField(0) + " " + row.getField(1));
    }
    assertEquals(
        List.of("time timestamp(6)", "lat double", "lon double", "area real", "temp double"),
        described);
  }

  @Test
  void unknownTablesAndColumnsAreTrinoErrors() {
    RuntimeException table =
        assertThrows(
            RuntimeException.class, () -> cluster.execute("select * from sample.\"default\".t2n"));
    assertTrue(
        table.getMessage().contains("'sample.default.t2n' does not exist"), table.getMessage());
    RuntimeException column =
        assertThrows(
            RuntimeException.class,
            () -> cluster.execute("select t3m from sample.\"default\".t2m"));
    assertTrue(column.getMessage().contains("'t3m' cannot be resolved"), column.getMessage());
    RuntimeException property =
        assertThrows(
            RuntimeException.class,
            () ->
                cluster.createCatalog("bad", "zarr", Map.of("zarr.store", "x", "zarr.sotre", "y")));
    assertTrue(
        property.getMessage().contains("unknown catalog property 'zarr.sotre'"),
        property.getMessage());
    RuntimeException value =
        assertThrows(
            RuntimeException.class,
            () ->
                cluster.createCatalog(
                    "bad", "zarr", Map.of("zarr.store", "x", "zarr.missing-chunks", "skip")));
    assertTrue(
        value.getMessage().contains("zarr.missing-chunks is 'fill' or 'error', not 'skip'"),
        value.getMessage());
  }

  /**
   * An S3 store (moto_server, a real local S3): the grid uploaded as it is on disk answers as the
   * local catalog does, with the same pruning; once the endpoint goes away, a query fails with a
   * read error naming the array (no hang: no retries, a 10 s limit) and worker memory returns to
   * zero.
   */
  @Test
  @SuppressWarnings("try") // MotoServer.close() waits for moto_server to exit: interruptible
  void s3StoreThroughMotoThenTheStoreVanishes() throws Exception {
    String query = "select count(*), sum(cast(v as double)), min(z), max(y) from {v} where y > 70";
    // the admin client on the SDK's Apache 4 client: Trino's Hive jars (the benchmark's, on this
    // test class path) bring an Apache 5 one that needs a newer httpclient5 than zaro's
    System.setProperty(
        "software.amazon.awssdk.http.service.impl",
        "software.amazon.awssdk.http.apache.ApacheSdkHttpService");
    try (MotoServer moto = MotoServer.start();
        S3Client admin = moto.admin()) {
      admin.createBucket(b -> b.bucket("grid"));
      Path grid = Fixtures.testdata().resolve("sql/grid.zarr");
      try (Stream<Path> files = Files.walk(grid)) {
        for (Path f : files.filter(Files::isRegularFile).toList()) {
          String key = "data/grid.zarr/" + grid.relativize(f).toString().replace('\\', '/');
          admin.putObject(b -> b.bucket("grid").key(key), RequestBody.fromFile(f));
        }
      }
      cluster.createCatalog(
          "s3grid",
          "zarr",
          Map.of(
              "zarr.store", "s3://grid/data/grid.zarr",
              "zarr.s3.endpoint", moto.endpoint().toString(),
              "zarr.s3.region", "us-east-1",
              "zarr.split-size", "480b",
              "zarr.retries", "0",
              "zarr.timeout", "10"));
      assertRowsEqual(trino("grid", query), trino("s3grid", query), query);
      assertEquals(4, scan("select sum(v) from s3grid.\"default\".v where z < 0.35").drivers());
    }
    // moto_server stopped: metadata is cached, the chunks are not
    RuntimeException e =
        assertThrows(
            RuntimeException.class,
            () -> cluster.execute("select sum(v) from s3grid.\"default\".v where x = 9"));
    assertTrue(e.getMessage().contains("zarr: reading array 'v'"), e.getMessage());
    assertWorkerMemoryReturnsToZero();
  }

  /** A chunk whose bytes are not zstd: the query fails naming the array and the chunk. */
  @Test
  void corruptChunkFailsNamingArrayAndChunk() throws Exception {
    Path copy =
        Fixtures.copyTree(
            Fixtures.testdata().resolve("sql/grid.zarr"), copies.resolve("grid.zarr"));
    Path chunk = copy.resolve("v/c/1/0/1");
    assertTrue(Files.exists(chunk), chunk.toString());
    Files.write(chunk, "not a zstd frame".getBytes(StandardCharsets.UTF_8));
    cluster.createCatalog("corrupt", "zarr", Map.of("zarr.store", copy.toString()));
    RuntimeException e =
        assertThrows(
            RuntimeException.class,
            () -> cluster.execute("select sum(v) from corrupt.\"default\".v"));
    String message = e.getMessage();
    assertTrue(message.contains("'v'") && message.contains("c/1/0/1"), message);
    // the undamaged part still reads
    assertEquals(
        cluster.execute("select count(*) from grid.\"default\".v where z < 0.35").getOnlyValue(),
        cluster
            .execute(
                "select count(v) + count(*) - count(v) from corrupt.\"default\".v where z < 0.35")
            .getOnlyValue());
    assertWorkerMemoryReturnsToZero();
  }

  /**
   * A store that vanishes in the middle of a query, at a fixed point: the catalog's splits are
   * planned and every node has opened the store and read v's metadata and coordinates; then the
   * fifth of the 16 chunk reads of v (one chunk per split) removes the store's directory, or every
   * chunk file of v ({@link VanishingStore}). A removed directory is a read error whatever
   * zarr.missing-chunks says (zaro's file store tells it from an absent chunk); removed chunk files
   * are absent chunks, which are fill values unless zarr.missing-chunks=error, under which they are
   * errors too. The query fails with the connector's read error naming the array and the chunk's
   * key, and worker memory returns to zero.
   */
  @ParameterizedTest(name = "remove {0}, missing chunks {1}")
  @CsvSource({"store, fill", "chunks, error"})
  void aStoreThatVanishesMidQueryFailsNamingArrayAndChunk(String remove, String missing)
      throws Exception {
    Path copy =
        Fixtures.copyTree(
            Fixtures.testdata().resolve("sql/grid.zarr"),
            copies.resolve("vanish-" + remove).resolve("grid.zarr"));
    String catalog = "vanish_" + remove;
    cluster.createCatalog(
        catalog,
        "zarr",
        Map.of(
            "zarr.store",
            "vanishing://" + copy + "?array=v&after=5&remove=" + remove,
            "zarr.split-size",
            "480b",
            "zarr.missing-chunks",
            missing));
    // every node opens the store and reads v's metadata and coordinates now (a worker loads the
    // catalog as it does for its first task): the query then reads nothing of the store but v's
    // chunks
    CatalogManager catalogs = cluster.getCoordinator().getInstance(Key.get(CatalogManager.class));
    CatalogHandle handle =
        catalogs.getCatalog(new CatalogName(catalog)).orElseThrow().getCatalogHandle();
    CatalogProperties properties = catalogs.getCatalogProperties(handle).orElseThrow();
    for (TestingTrinoServer server : cluster.getServers()) {
      ConnectorServicesProvider services =
          server.getInstance(Key.get(ConnectorServicesProvider.class));
      services.ensureCatalogsLoaded(List.of(properties));
      ZarrConnector node = (ZarrConnector) services.getConnectorServices(handle).getConnector();
      node.zaro().array("v");
      node.dimensions("v");
    }
    assertEquals(0, VanishingStore.reads(copy), "no chunk of v read before the query");
    QueryFailedException e =
        assertThrows(
            QueryFailedException.class,
            () -> cluster.execute("select sum(v) from " + catalog + ".\"default\".v"));
    assertTrue(VanishingStore.reads(copy) >= 5, "the store vanished during the query");
    assertEquals(remove.equals("chunks"), Files.exists(copy), "only the chunks removed");
    String message = e.getMessage();
    assertTrue(message.contains("zarr: reading array 'v' ["), message);
    assertTrue(Pattern.compile("key 'v/c/[0-9]+/[0-9]+/[0-9]+'").matcher(message).find(), message);
    assertTrue(
        message.contains(
            remove.equals("store")
                ? "the store's directory " + copy.toAbsolutePath() + " no longer exists"
                : "the chunk is absent from the store"),
        message);
    QueryInfo info = cluster.getCoordinator().getQueryManager().getFullQueryInfo(e.getQueryId());
    assertEquals(ZarrErrorCode.ZARR_READ_ERROR.toErrorCode(), info.getErrorCode());
    assertWorkerMemoryReturnsToZero();
  }

  static void assertWorkerMemoryReturnsToZero() throws InterruptedException {
    // tasks release their memory as they finish, just after the query's result is complete
    for (TestingTrinoServer server : cluster.getServers()) {
      long reserved = server.getLocalMemoryManager().getMemoryPool().getReservedBytes();
      for (int i = 0; i < 200 && reserved != 0; i++) {
        Thread.sleep(50);
        reserved = server.getLocalMemoryManager().getMemoryPool().getReservedBytes();
      }
      assertEquals(0, reserved, "memory still reserved on " + server.getBaseUrl());
    }
  }

  // ---- helpers

  private record Scan(String sql, long drivers, long rows, int onCoordinator, int onWorkers) {}

  /** Runs {@code sql} and sums up its table scan: splits (drivers), rows, where its tasks ran. */
  private static Scan scan(String sql) throws InterruptedException {
    QueryRunner.MaterializedResultWithPlan run =
        cluster.executeWithPlan(cluster.getDefaultSession(), sql);
    QueryInfo info = cluster.getCoordinator().getQueryManager().getFullQueryInfo(run.queryId());
    long drivers = 0;
    long rows = 0;
    for (OperatorStats op : info.getQueryStats().getOperatorSummaries()) {
      if (op.getOperatorType().contains("Scan")) {
        drivers += op.getTotalDrivers();
        rows += op.getPhysicalInputPositions();
      }
    }
    int coordinatorPort = cluster.getCoordinator().getBaseUrl().getPort();
    int onCoordinator = 0;
    int onWorkers = 0;
    for (StageInfo stage : StagesInfo.getAllStages(info.getStages())) {
      // a stage that reads splits: its fragment has partitioned sources (table scans)
      boolean scans = !stage.plan().getPartitionedSources().isEmpty();
      for (TaskInfo task : stage.tasks()) {
        if (scans) {
          if (task.taskStatus().self().getPort() == coordinatorPort) {
            onCoordinator++;
          } else {
            onWorkers++;
          }
        }
      }
    }
    assertWorkerMemoryReturnsToZero();
    return new Scan(sql, drivers, rows, onCoordinator, onWorkers);
  }

  private static String values(String sql) {
    List<Object> out = new ArrayList<>();
    for (MaterializedRow row : cluster.execute(sql).getMaterializedRows()) {
      out.add(row.getField(0));
    }
    return out.toString();
  }

  private static final Pattern TABLE = Pattern.compile("\\{([^}]*)}");

  /** The query with each {@code {path}} replaced by {@code name.apply(path)}. */
  static String tables(String query, UnaryOperator<String> name) {
    Matcher m = TABLE.matcher(query);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(name.apply(m.group(1))));
    }
    m.appendTail(out);
    return out.toString();
  }

  static List<String> trino(String catalog, String query) {
    String sql =
        tables(
            query,
            path -> {
              int slash = path.lastIndexOf('/');
              String schema = slash < 0 ? "default" : path.substring(0, slash);
              return catalog + ".\"" + schema + "\".\"" + path.substring(slash + 1) + "\"";
            });
    List<String> out = new ArrayList<>();
    for (MaterializedRow row : cluster.execute(sql).getMaterializedRows()) {
      List<Object> values = new ArrayList<>();
      for (Object v : row.getFields()) {
        values.add(normal(v));
      }
      out.add(join(values));
    }
    return out;
  }

  static List<String> zaroSql(String catalog, String query) throws Exception {
    return zaroSql(store(catalog), tables(query, path -> "\"" + path + "\""), true);
  }

  /** The rows {@code zaro sql} gives for {@code sql} over {@code store}. */
  static List<String> zaroSql(String store, String sql, boolean pushdown) throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        Zaro zaro = Zaro.open(store, ZaroOptions.defaults());
        SqlEngine engine =
            new SqlEngine(zaro, SqlEngine.Options.DEFAULT.withThreads(1).withPushdown(pushdown));
        SqlQuery q = engine.query(sql, allocator)) {
      return rows(q.execute());
    }
  }

  static List<String> rows(ResultSet rs) throws SQLException {
    List<String> out = new ArrayList<>();
    int n = rs.getMetaData().getColumnCount();
    while (rs.next()) {
      List<Object> values = new ArrayList<>();
      for (int c = 1; c <= n; c++) {
        values.add(normal(rs.getObject(c)));
      }
      out.add(join(values));
    }
    return out;
  }

  /**
   * One engine's value as the other's: integers as longs (uint64 as its digits), times as local
   * date-times.
   */
  static Object normal(Object v) {
    if (v instanceof Byte || v instanceof Short || v instanceof Integer) {
      return ((Number) v).longValue();
    }
    if (v instanceof Timestamp t) {
      return t.toLocalDateTime();
    }
    if (v instanceof OffsetDateTime t) {
      return t.toLocalDateTime();
    }
    if (v instanceof BigInteger b) {
      return b.toString(); // uint64 (DuckDB's UBIGINT), as its decimal digits
    }
    if (v instanceof BigDecimal b && b.scale() == 0) {
      return b.toBigInteger().toString(); // uint64 (Trino's decimal(20, 0))
    }
    return v;
  }

  private static String join(List<Object> values) {
    StringBuilder row = new StringBuilder();
    for (Object v : values) {
      if (row.length() > 0) {
        row.append(" | ");
      }
      row.append(
          v instanceof Double d ? "D" + Double.doubleToLongBits(d) + "~" + d : String.valueOf(v));
    }
    return row.toString();
  }

  /**
   * Rows equal, in any order (Trino's order is its own without ORDER BY); doubles may differ in
   * their last bits where an aggregate summed in another order.
   */
  static void assertRowsEqual(List<String> expected, List<String> actual, String query) {
    List<String> e = new ArrayList<>(expected);
    List<String> a = new ArrayList<>(actual);
    Comparator<String> order = Comparator.comparing(ZarrClusterTest::rounded);
    e.sort(order);
    a.sort(order);
    assertEquals(e.size(), a.size(), query + "\nexpected " + e + "\nactual   " + a);
    for (int i = 0; i < e.size(); i++) {
      if (!rounded(e.get(i)).equals(rounded(a.get(i)))) {
        fail(query + ": row " + i + "\nexpected " + e.get(i) + "\nactual   " + a.get(i));
      }
    }
  }

  /** A row with every double at 12 significant digits. */
  private static String rounded(String row) {
    StringBuilder out = new StringBuilder();
    for (String v : row.split(" \\| ", -1)) {
      if (out.length() > 0) {
        out.append(" | ");
      }
      if (v.startsWith("D")) {
        double d = Double.longBitsToDouble(Long.parseLong(v.substring(1, v.indexOf('~'))));
        out.append(
            Double.isNaN(d) || Double.isInfinite(d)
                ? Double.toString(d)
                : String.format("%.12g", d));
      } else {
        out.append(v);
      }
    }
    return out.toString();
  }
}
