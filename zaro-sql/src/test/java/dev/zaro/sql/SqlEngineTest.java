package dev.zaro.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.store.CountingStore;
import dev.zaro.arrow.store.Stores;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Pushdown never changes an answer: every query gives the same rows with pushdown, without it, and
 * in plain DuckDB over Parquet files that pyarrow wrote from numpy (testdata/sql); and a restricted
 * query reads only the chunks that can match.
 */
class SqlEngineTest extends AllocatorTest {
  static Path sql() {
    return Fixtures.testdata().resolve("sql");
  }

  /** The rows of a result as text, in order (doubles that are floats print as floats). */
  static List<String> rows(ResultSet rs) throws SQLException {
    List<String> out = new ArrayList<>();
    int n = rs.getMetaData().getColumnCount();
    while (rs.next()) {
      StringBuilder row = new StringBuilder();
      for (int c = 1; c <= n; c++) {
        Object v = rs.getObject(c);
        if (v instanceof Double d && (double) (float) (double) d == d) {
          v = (float) (double) d; // JDBC drivers differ in handing REAL out as Float or Double
        }
        row.append(c > 1 ? " | " : "").append(v);
      }
      out.add(row.toString());
    }
    return out;
  }

  /** The rows DuckDB gives over the Parquet tables (expected values: numpy, pyarrow, DuckDB). */
  static List<String> parquet(String query) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute("SET threads = 1");
      for (String t : new String[] {"v", "w"}) {
        s.execute(
            "CREATE VIEW "
                + t
                + " AS SELECT * FROM read_parquet('"
                + sql().resolve(t + ".parquet")
                + "')");
      }
      try (ResultSet rs = s.executeQuery(query)) {
        return rows(rs);
      }
    }
  }

  List<String> engine(Zaro zaro, boolean pushdown, String query, List<QueryStats> stats)
      throws SQLException {
    try (SqlEngine engine =
            new SqlEngine(zaro, SqlEngine.Options.DEFAULT.withPushdown(pushdown).withThreads(1));
        SqlQuery q = engine.query(query, allocator)) {
      List<String> rows = rows(q.execute());
      stats.add(q.stats());
      return rows;
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "select count(*), sum(v), min(z), max(y) from v where z < 0.3",
        "select count(*), sum(v) from v where z <= 0.3",
        "select count(*), sum(v) from v where z = 0.3",
        "select count(*), sum(v) from v where z >= 0.7 and z < 1.1",
        "select count(*), sum(v) from v where 0.5 < z and 1.2 >= z",
        "select count(*), sum(v) from v where z between 0.2 and 0.5",
        "select count(*), sum(v) from v where z in (0.1, 0.5, 1.4)",
        "select count(*), sum(v) from v where z < 0.3::float",
        "select count(*), sum(v) from v where z > 0.30000001 and z < 1e0",
        "select count(*), sum(v) from v where y > 70",
        "select count(*), sum(v) from v where y between 60 and 80 and x in (2, 7)",
        "select count(*), sum(v) from v where x < 3 and x >= 1",
        "select count(*), sum(v) from v where x < 7.5 and x > -1",
        "select count(*), sum(v) from v where x < 2::float * 3 and y >= 90::real",
        "select count(*), sum(v) from v where y < 0",
        "select count(*), sum(v) from v where z < -1 and y = 95",
        "select z, y, x, v from v where z = 0.4 and y = 90 order by x",
        "select * from v where x = 3 and z > 1.2 order by z, y",
        "select count(*), sum(a.v) from v a join v b on a.z = b.z and a.y = b.y and a.x = b.x where a.z < 0.2 and b.x > 4",
        "select count(*) from v where z < 0.3 or x = 2",
        "select count(*), sum(v) from v where not (z < 0.3)",
        "select count(*) from (select z + 1 as z, v from v) t where z < 1.3",
        "with c as (select * from v where y >= 80) select count(*), sum(v) from c where z < 0.5",
        "select s, sum(w) from w where s < 2.5 group by s order by s",
        "select count(*), sum(w) from v, w where v.z = w.z and w.s = 4 and v.x = 1 and v.y = 100",
        "select count(*) from v where v is not null and z < 0.5",
        "select x, count(*) from v where z in (0.2, 0.9) group by all order by all",
        "select count(*) from v where z < 0.3 union all select count(*) from v where z > 1.2",
        "select (select max(y) from v where z < 0.2), count(*) from v where x = 9",
        "pivot v on x in (1, 2) using sum(v) order by all",
        "select count(*), sum(\"1\") from v pivot (sum(v) for x in (1, 2))",
        "select y, count(*) from (unpivot (select * from v where z = 0.5) on x, v into name k value val) group by y"
            + " order by y",
      })
  void pushdownAnswersEqualDuckDbOverParquetAndWithoutPushdown(String query) throws Exception {
    try (Zaro zaro = Zaro.open(sql().resolve("grid.zarr").toString(), ZaroOptions.defaults())) {
      List<QueryStats> stats = new ArrayList<>();
      List<String> expected = parquet(query);
      assertEquals(expected, engine(zaro, false, query, stats), "without pushdown: " + query);
      assertEquals(expected, engine(zaro, true, query, stats), "with pushdown: " + query);
      assertTrue(stats.get(1).chunks() <= stats.get(0).chunks(), stats.toString());
    }
  }

  /**
   * A table's coordinate arrays are read when a statement first needs them, not when the engine
   * opens the table: a statement naming no dimension reads none, one naming {@code z} reads {@code
   * z}'s, and each is read once for the engine's life.
   */
  @Test
  void coordinatesAreReadOnlyWhenAStatementNeedsThem() throws Exception {
    CountingStore store = new CountingStore(Stores.open(sql().resolve("grid.zarr").toString()));
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults());
        SqlEngine engine = new SqlEngine(zaro, SqlEngine.Options.DEFAULT.withThreads(1))) {
      String[][] steps = {
        {"select count(*), sum(v) from v", ""},
        {"select max(z), count(*) from v", "z"},
        {"select count(*), sum(v) from v where y > 70", "y"},
        {"select min(z), max(y) from v where z < 0.3 and y > 70", ""},
      };
      for (String[] step : steps) {
        store.reset();
        try (SqlQuery q = engine.query(step[0], allocator)) {
          assertEquals(parquet(step[0]), rows(q.execute()), step[0]);
        }
        Set<String> coordinates = new TreeSet<>();
        for (String key : store.keys) {
          if (key.startsWith("z/c") || key.startsWith("y/c")) {
            coordinates.add(key.substring(0, 1));
          }
        }
        assertEquals(String.join(",", coordinates), step[1], step[0]);
      }
    }
  }

  /** Predicates on dimension columns shrink the read to the chunks that can match. */
  @Test
  void restrictedQueriesReadOnlyMatchingChunks() throws Exception {
    try (Zaro zaro = Zaro.open(sql().resolve("grid.zarr").toString(), ZaroOptions.defaults())) {
      List<QueryStats> stats = new ArrayList<>();
      engine(zaro, true, "select count(*), sum(v) from v where z < 0.3", stats);
      engine(zaro, true, "select avg(v), count(*), max(z) from v", stats);
      engine(zaro, true, "select count(*) from v where y between 85 and 90 and x in (6, 7)", stats);
      engine(zaro, true, "select count(*) from v where y < 0", stats);
      engine(zaro, false, "select count(*) from v where z < 0.3", stats);
      // z < 0.3: indices 0..2 of z (0.3f is above 0.3 in double and equal to itself in float): one
      // z chunk
      QueryStats.TableRead first = stats.get(0).tables().get(0);
      assertEquals("0:3:1, 0:12:1, 0:10:1", first.selection());
      assertEquals(List.of("z", "v"), first.columns());
      assertEquals(4, first.plannedChunks());
      assertEquals(3 * 12 * 10 * 4, first.bytes());
      // projection: y and x are not produced
      assertEquals(List.of("z", "v"), stats.get(1).tables().get(0).columns());
      assertEquals(16 * 12 * 10 * 4, stats.get(1).bytes());
      // y is decreasing (100, 95, ...): 90 and 85 are indices 2 and 3; x is the index
      assertEquals("0:16:1, 2:4:1, 6:8:1", stats.get(2).tables().get(0).selection());
      assertEquals(List.of("y", "x"), stats.get(2).tables().get(0).columns());
      assertEquals(0, stats.get(2).chunks());
      assertEquals(0, stats.get(3).tables().get(0).plannedChunks());
      // without pushdown: every column, every chunk
      assertEquals(16, stats.get(4).tables().get(0).plannedChunks());
      assertEquals(List.of("z", "y", "x", "v"), stats.get(4).tables().get(0).columns());
    }
  }

  /**
   * Stores xarray wrote (testdata/xarray): string labels compare with string literals, with
   * pushdown narrowing the station dimension, and the answers are xarray's (the expected.json of
   * {@code xr.open_zarr(...).to_dataframe()}).
   */
  @ParameterizedTest
  @ValueSource(strings = {"EGLL", "LFPG", "KJFK,RJTT", "EGLL,ZZZZ", "ZZZZ"})
  void stringLabelsAsXarrayReadsThem(String stations) throws Exception {
    Path dir = Fixtures.testdata().resolve("xarray");
    JsonNode expected =
        new ObjectMapper()
            .readTree(dir.resolve("stations.expected.json").toFile())
            .get("temperature")
            .get("rows");
    List<String> wanted = List.of(stations.split(","));
    long count = 0;
    double sum = 0;
    for (JsonNode row : expected) {
      if (wanted.contains(row.get(0).textValue()) && !row.get(2).isNull()) {
        count++;
        sum += row.get(2).doubleValue();
      }
    }
    String where =
        wanted.size() == 1
            ? "station = '" + wanted.get(0) + "'"
            : "station in ('" + String.join("', '", wanted) + "')";
    String query =
        "select count(temperature), coalesce(sum(temperature), 0) from temperature where " + where;
    try (Zaro zaro = Zaro.open(dir.resolve("stations.zarr").toString(), ZaroOptions.defaults())) {
      List<QueryStats> stats = new ArrayList<>();
      List<String> want = List.of(count + " | " + (float) sum);
      assertEquals(want, engine(zaro, true, query, stats), query);
      assertEquals(want, engine(zaro, false, query, stats), query);
      // narrowed to the stations' hull (none matching: nothing read)
      String selection = stats.get(0).tables().get(0).selection();
      String hull =
          switch (stations) {
            case "EGLL", "EGLL,ZZZZ" -> "0:1:1, 0:5:1";
            case "LFPG" -> "2:3:1, 0:5:1";
            case "KJFK,RJTT" -> "1:4:1, 0:5:1";
            default -> "0:0:1, 0:5:1";
          };
      assertEquals(hull, selection, query);
    }
  }

  /** 360_day times are labels: a string literal selects Feb 30. */
  @Test
  void day360LabelsCompareAsText() throws Exception {
    Path dir = Fixtures.testdata().resolve("xarray");
    try (Zaro zaro = Zaro.open(dir.resolve("calendars.zarr").toString(), ZaroOptions.defaults())) {
      List<QueryStats> stats = new ArrayList<>();
      String query =
          "select time_360_day, tas_360_day from tas_360_day where time_360_day = '2000-02-30 00:00:00'";
      assertEquals(List.of("2000-02-30 00:00:00 | 275.0"), engine(zaro, true, query, stats));
      assertEquals("5:6:1", stats.get(0).tables().get(0).selection());
    }
  }

  /**
   * CF times of the bundled sample: timestamps compare with TIMESTAMP, DATE and string literals.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "select count(*), sum(t2m) from t2m where time < TIMESTAMP '2020-01-02 06:00:00' and lat between 0 and 30",
        "select count(*), sum(precip) from precip where time >= DATE '2020-01-10' and lon in (0, 2.5, 357.5)",
        "select count(*), max(time) from t2m where time between '2020-01-03' and '2020-01-04 12:00' and lat = 90",
        "select t.time, t.lat, t.lon, t.t2m, p.precip from t2m t join precip p using (time, lat, lon)"
            + " where t.time = '2020-01-05 18:00' and t.lat > 80 and p.lon < 10 order by all",
      })
  void pushdownOnTimesEqualsNoPushdown(String query) throws Exception {
    try (Zaro zaro =
        Zaro.open(
            Fixtures.testdata().resolve("sample/climate.zarr").toString(),
            ZaroOptions.defaults())) {
      List<QueryStats> stats = new ArrayList<>();
      List<String> all = engine(zaro, false, query, stats);
      assertEquals(all, engine(zaro, true, query, stats), query);
      assertTrue(stats.get(1).bytes() < stats.get(0).bytes(), stats.toString());
    }
  }

  @Test
  void readOnlyRefusesAnythingButQueries() {
    try (Zaro zaro = Zaro.open(sql().resolve("grid.zarr").toString(), ZaroOptions.defaults());
        SqlEngine engine = new SqlEngine(zaro, SqlEngine.Options.DEFAULT.withReadOnly(true))) {
      for (String statement :
          new String[] {
            "create table t as select 1",
            "set threads = 1",
            "copy (select 1) to '/tmp/x.csv'",
            "select 1; select 2"
          }) {
        ZaroException e =
            assertThrows(
                ZaroException.class, () -> engine.query(statement, allocator).close(), statement);
        assertTrue(
            e.getMessage().contains("read-only") || e.getMessage().contains("one statement"),
            e.getMessage());
      }
      try (SqlQuery q =
          engine.query(
              "select * from read_csv('" + sql().resolve("generate_sql.py") + "')", allocator)) {
        ZaroException e = assertThrows(ZaroException.class, q::execute);
        assertTrue(e.getMessage().contains("disabled"), e.getMessage());
      }
      ZaroException e =
          assertThrows(ZaroException.class, () -> engine.query("selec 1", allocator).close());
      assertTrue(
          e.getMessage().startsWith("sql: ") && e.getMessage().contains("syntax error"),
          e.getMessage());
    }
  }

  @Test
  void scriptsSplitIntoStatements() {
    try (Zaro zaro = Zaro.open(sql().resolve("grid.zarr").toString(), ZaroOptions.defaults());
        SqlEngine engine = new SqlEngine(zaro, SqlEngine.Options.DEFAULT)) {
      assertEquals(3, engine.statements("select 1; select count(*) from v;\nselect 'a;b'").size());
      assertEquals(1, engine.statements("create table t as select 1; select 2").size());
      assertEquals(List.of("s", "v", "w", "y", "z"), engine.tables());
    }
  }

  /**
   * A database opened ahead goes to the next engine only: a second engine, over another store,
   * opens its own, and each catalog names only its own store's tables.
   */
  @Test
  void aDatabaseOpenedAheadGoesToOneEngine() throws Exception {
    SqlEngine.openAhead();
    try (Zaro grid = Zaro.open(sql().resolve("grid.zarr").toString(), ZaroOptions.defaults());
        Zaro sample =
            Zaro.open(
                Fixtures.testdata().resolve("sample/climate.zarr").toString(),
                ZaroOptions.defaults());
        SqlEngine first = new SqlEngine(grid, SqlEngine.Options.DEFAULT.withThreads(1));
        SqlEngine second = new SqlEngine(sample, SqlEngine.Options.DEFAULT.withThreads(1))) {
      assertNotEquals(first.tables(), second.tables());
      for (SqlEngine engine : List.of(first, second)) {
        try (SqlQuery q = engine.query("show tables", allocator)) {
          assertEquals(engine.tables(), rows(q.execute()));
        }
      }
    }
  }

  /**
   * Each table is a view in DuckDB's catalog (SHOW TABLES, information_schema, the hint for a
   * misspelled name), while a query still reads it with pushdown.
   */
  @Test
  void tablesAreNamedInDuckDbsCatalog() throws Exception {
    try (Zaro zaro = Zaro.open(sql().resolve("grid.zarr").toString(), ZaroOptions.defaults());
        SqlEngine engine = new SqlEngine(zaro, SqlEngine.Options.DEFAULT.withThreads(1))) {
      List<String> shown;
      try (SqlQuery q = engine.query("show tables", allocator)) {
        shown = rows(q.execute());
      }
      assertEquals(engine.tables(), shown);
      try (SqlQuery q =
          engine.query(
              "select table_name from information_schema.tables order by table_name", allocator)) {
        assertEquals(engine.tables(), rows(q.execute()));
      }
      try (SqlQuery q =
          engine.query(
              "select column_name, data_type from information_schema.columns"
                  + " where table_name = 'v' order by ordinal_position",
              allocator)) {
        List<String> columns = rows(q.execute());
        assertEquals(
            engine.schema("v").getFields().stream().map(f -> f.getName()).toList(),
            columns.stream().map(r -> r.substring(0, r.indexOf(" | "))).toList());
      }
      ZaroException e =
          assertThrows(
              ZaroException.class,
              () -> {
                try (SqlQuery q = engine.query("select count(*) from vv", allocator)) {
                  q.execute();
                }
              });
      assertTrue(e.getMessage().contains("\"v\""), e.getMessage());
      try (SqlQuery q = engine.query("select count(*) from v where y < 0", allocator)) {
        assertEquals(List.of("0"), rows(q.execute()));
        assertEquals(0, q.stats().tables().get(0).plannedChunks());
      }
    }
  }

  /**
   * A misspelled column gets DuckDB's hint against every column of the table, though the stream the
   * query registered has only the pushed-down ones (here: none of the value columns).
   */
  @Test
  void misspelledColumnHintNamesEveryColumn() {
    try (Zaro zaro = Zaro.open(sql().resolve("grid.zarr").toString(), ZaroOptions.defaults());
        SqlEngine engine = new SqlEngine(zaro, SqlEngine.Options.DEFAULT.withThreads(1))) {
      List<String> columns = engine.schema("v").getFields().stream().map(f -> f.getName()).toList();
      for (String query : new String[] {"select avg(vv) from v", "select avg(vv), max(x) from v"}) {
        ZaroException e =
            assertThrows(
                ZaroException.class,
                () -> {
                  try (SqlQuery q = engine.query(query, allocator)) {
                    q.execute();
                  }
                });
        assertTrue(e.getMessage().contains("Binder Error"), e.getMessage());
        assertTrue(e.getMessage().contains("\"vv\""), e.getMessage());
        assertTrue(e.getMessage().contains("\"v\""), query + ": " + e.getMessage());
        for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
          assertFalse(String.valueOf(c.getMessage()).contains("Candidate"), c.getMessage());
        }
        assertTrue(columns.contains("v"), columns.toString());
      }
    }
  }
}
