package dev.zaro.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.flight.ServerOptions;
import dev.zaro.flight.ZaroFlightServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A CF time read through the Arrow Flight SQL JDBC driver is the instant DuckDB (and pyarrow, in
 * tests/python/test_sql_errors.py) read, whatever the client JVM's time zone: each zone is a JVM of
 * its own ({@code -Duser.timezone}, as a user sets it; the driver and the JDK cache the default
 * zone), running {@link JdbcTimes} against a server in this JVM.
 */
class FlightSqlTimeZoneTest extends AllocatorTest {
  private static final String QUERY =
      "select time from t2m where lat = 90 and lon = 0 order by time";

  @ParameterizedTest
  @ValueSource(strings = {"America/New_York", "Asia/Tokyo", "UTC"})
  @SuppressWarnings("try") // ZaroFlightServer.close() may throw InterruptedException
  void everyClientZoneReadsTheSameInstants(String zone) throws Exception {
    List<Long> want = new ArrayList<>();
    List<String> wallClock = new ArrayList<>();
    try (Zaro zaro = Zaro.open(Fixtures.sample().toString(), ZaroOptions.defaults());
        SqlEngine engine = new SqlEngine(zaro, SqlEngine.Options.DEFAULT.withThreads(1));
        SqlQuery q =
            engine.query(
                "select epoch_us(time), strftime(time, '%Y-%m-%d %H:%M:%S') from (" + QUERY + ")",
                allocator)) {
      ResultSet rs = q.execute();
      while (rs.next()) {
        want.add(rs.getLong(1));
        wallClock.add(rs.getString(2));
      }
    }
    assertEquals(48, want.size());
    List<String> lines;
    try (Zaro zaro = Zaro.open(Fixtures.sample().toString(), ZaroOptions.defaults());
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
      lines = client(zone, server.port());
    }
    assertEquals(zone, lines.get(0), "the client JVM's zone");
    assertEquals(want.size(), lines.size() - 1, String.join("\n", lines));
    for (int i = 0; i < want.size(); i++) {
      String[] cells = lines.get(i + 1).split("\t", -1);
      String row = zone + " row " + i + ": " + lines.get(i + 1);
      assertEquals(want.get(i), Long.parseLong(cells[0]), "getObject(Instant) " + row);
      assertEquals(want.get(i), Long.parseLong(cells[1]), "getObject(OffsetDateTime) " + row);
      assertEquals(want.get(i), Long.parseLong(cells[2]), "getObject(ZonedDateTime) " + row);
      assertEquals(wallClock.get(i), cells[4].substring(0, 19), "getString (UTC) " + row);
      if (zone.equals("UTC")) {
        // elsewhere the driver shifts getTimestamp by the JVM's zone (apache/arrow-java#732)
        assertEquals(want.get(i), Long.parseLong(cells[3]), "getTimestamp " + row);
      }
    }
  }

  /** {@link JdbcTimes}'s lines, run in a JVM whose default time zone is {@code zone}. */
  private static List<String> client(String zone, int port)
      throws IOException, InterruptedException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process p =
        new ProcessBuilder(
                java.toString(),
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "-Duser.timezone=" + zone,
                "-cp",
                System.getProperty("java.class.path"),
                JdbcTimes.class.getName(),
                String.valueOf(port),
                QUERY)
            .redirectErrorStream(false)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("the JDBC client in " + zone + " did not finish: " + out);
    }
    assertEquals(0, p.exitValue(), "the JDBC client in " + zone + ": " + out);
    return out.lines().toList();
  }
}
