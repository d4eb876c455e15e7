package dev.zaro.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.flight.ServerOptions;
import dev.zaro.flight.ZaroFlightServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every SQL error keeps DuckDB's own message, as DuckDB itself gives it without streaming, though
 * zaro streams results (where DuckDB's JDBC driver loses it: {@link DuckDbErrors}): through the
 * engine and through the Flight SQL service as the JDBC driver sees it.
 */
class SqlErrorsTest extends AllocatorTest {
  /** One of each error class: bad literal, failed casts (constant and per row), error(). */
  static final String[] FAILING = {
    "select timestamp '2020-13-45' as t, count(*) from v",
    "select cast('abc' as integer) from v",
    "select cast(cast(v as varchar) || 'x' as integer) from v where z < 0.3",
    "select error('boom')",
    "select z, error('boom ' || x) from v where y = 90",
  };

  static Stream<String> failing() {
    return Stream.of(FAILING);
  }

  /** DuckDB's message for {@code query}, run without streaming over the Parquet twins. */
  static String duckDbMessage(String query) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute("SET threads = 1");
      s.execute(
          "CREATE VIEW v AS SELECT * FROM read_parquet('"
              + SqlEngineTest.sql().resolve("v.parquet")
              + "')");
      SQLException e =
          assertThrows(
              SQLException.class,
              () -> {
                try (ResultSet rs = s.executeQuery(query)) {
                  while (rs.next()) {
                    rs.getObject(1);
                  }
                }
              },
              query);
      assertFalse(DuckDbErrors.lost(e), "DuckDB without streaming: " + e.getMessage());
      return e.getMessage();
    }
  }

  private static Zaro grid() {
    return Zaro.open(SqlEngineTest.sql().resolve("grid.zarr").toString(), ZaroOptions.defaults());
  }

  @ParameterizedTest
  @MethodSource("failing")
  void theEngineReportsDuckDbsMessage(String query) throws Exception {
    String want = "sql: " + duckDbMessage(query);
    try (Zaro zaro = grid();
        SqlEngine engine = new SqlEngine(zaro, SqlEngine.Options.DEFAULT.withThreads(1));
        SqlQuery q = engine.query(query, allocator)) {
      ZaroException e =
          assertThrows(
              ZaroException.class,
              () -> {
                ResultSet rs = q.execute();
                try {
                  while (rs.next()) {
                    rs.getObject(1);
                  }
                } catch (SQLException fetch) {
                  throw q.failure(fetch);
                }
              });
      assertEquals(want, e.getMessage(), query);
    }
  }

  /** A failure after rows have been fetched keeps its message too (the driver's own path). */
  @Test
  void aLateFailureKeepsItsMessage() throws Exception {
    String query =
        "select i, case when i = 3000000 then error('late boom') else i end from range(4000000) t(i)";
    try (Zaro zaro = grid();
        SqlEngine engine = new SqlEngine(zaro, SqlEngine.Options.DEFAULT.withThreads(1));
        SqlQuery q = engine.query(query, allocator)) {
      ResultSet rs = q.execute();
      SQLException e =
          assertThrows(
              SQLException.class,
              () -> {
                while (rs.next()) {
                  rs.getLong(1);
                }
              });
      assertEquals("sql: Invalid Input Error: late boom", q.failure(e).getMessage());
    }
  }

  /** A cancelled query says so, whether DuckDB was inside its execute call or not. */
  @Test
  void aCancelledQuerySaysSo() throws Exception {
    try (Zaro zaro = grid();
        SqlEngine engine = new SqlEngine(zaro, SqlEngine.Options.DEFAULT.withThreads(1));
        SqlQuery q =
            engine.query(
                "select count(*) from range(1000000) a, range(1000000) b"
                    + " where a.range + b.range < 0",
                allocator)) {
      Thread canceller =
          new Thread(
              () -> {
                try {
                  Thread.sleep(300);
                } catch (InterruptedException e) {
                  return;
                }
                q.cancel();
              });
      canceller.start();
      ZaroException e = assertThrows(ZaroException.class, q::execute);
      canceller.join();
      assertEquals(SqlQuery.CANCELLED, e.getMessage());
    }
  }

  /** The Flight SQL service's status message is DuckDB's, as the JDBC driver shows it. */
  @Test
  @SuppressWarnings("try") // ZaroFlightServer.close() may throw InterruptedException
  void flightSqlCarriesDuckDbsMessage() throws Exception {
    try (Zaro zaro = grid();
        ZaroFlightServer server =
            ZaroFlightServer.start(
                zaro,
                ServerOptions.defaults().withAddress("127.0.0.1", 0),
                (producer, alloc) ->
                    new FlightSqlRouter(
                        producer,
                        new ZaroFlightSqlProducer(
                            () -> new SqlEngine(zaro, SqlEngine.Options.DEFAULT.withReadOnly(true)),
                            alloc)))) {
      Properties props = new Properties();
      props.setProperty("useEncryption", "false");
      try (Connection c =
          DriverManager.getConnection(
              "jdbc:arrow-flight-sql://127.0.0.1:" + server.port(), props)) {
        for (String query : FAILING) {
          String want = duckDbMessage(query);
          SQLException e =
              assertThrows(
                  SQLException.class,
                  () -> {
                    try (Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery(query)) {
                      while (rs.next()) {
                        rs.getObject(1);
                      }
                    }
                  },
                  query);
          String got = String.valueOf(e.getMessage()) + causes(e);
          assertTrue(got.contains(firstLine(want)), query + ": " + got);
          assertFalse(got.contains(DuckDbErrors.LOST), query + ": " + got);
        }
      }
    }
  }

  private static String firstLine(String message) {
    return message.lines().findFirst().orElse(message);
  }

  private static String causes(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      out.append(" / ").append(c.getMessage());
    }
    return out.toString();
  }
}
