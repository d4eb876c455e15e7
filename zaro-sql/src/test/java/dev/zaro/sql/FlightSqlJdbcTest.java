package dev.zaro.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.flight.ServerOptions;
import dev.zaro.flight.ZaroFlightServer;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Flight SQL service as the Arrow Flight SQL JDBC driver sees it, on a loopback server started
 * and stopped here: query answers equal plain DuckDB over the Parquet twins of testdata/sql, tools
 * can browse the tables, anything but a query is refused, and zaro's own Flight service still
 * answers beside it.
 */
class FlightSqlJdbcTest {
  private ZaroFlightServer server;

  /** How many engines the service made (on first need, as {@code zaro serve --sql} makes it). */
  private final AtomicInteger engines = new AtomicInteger();

  @BeforeEach
  void start() throws Exception {
    Zaro zaro =
        Zaro.open(SqlEngineTest.sql().resolve("grid.zarr").toString(), ZaroOptions.defaults());
    server =
        ZaroFlightServer.start(
            zaro,
            ServerOptions.defaults().withAddress("127.0.0.1", 0),
            (producer, allocator) ->
                new FlightSqlRouter(
                    producer,
                    new ZaroFlightSqlProducer(
                        () -> {
                          engines.incrementAndGet();
                          return new SqlEngine(zaro, SqlEngine.Options.DEFAULT.withReadOnly(true));
                        },
                        allocator)));
  }

  /** DuckDB starts on the first Flight SQL request, once; the server is up before. */
  @Test
  void engineStartsOnFirstRequest() throws Exception {
    assertEquals(0, engines.get());
    try (Connection c = connect()) {
      for (int i = 0; i < 2; i++) {
        try (Statement s = c.createStatement();
            ResultSet rs = s.executeQuery("select count(*) from v")) {
          assertEquals(SqlEngineTest.parquet("select count(*) from v"), SqlEngineTest.rows(rs));
        }
        assertEquals(1, engines.get());
      }
    }
  }

  @AfterEach
  void stop() throws Exception {
    server.close(); // closes the allocator: a leaked buffer fails the test
  }

  private Connection connect() throws SQLException {
    Properties props = new Properties();
    props.setProperty("useEncryption", "false");
    return DriverManager.getConnection("jdbc:arrow-flight-sql://127.0.0.1:" + server.port(), props);
  }

  @Test
  void queriesAnswerAsDuckDbOverParquet() throws Exception {
    String[] queries = {
      "select count(*), sum(v), min(z), max(y) from v where z < 0.3",
      "select z, y, x, v from v where z = 0.4 and y = 90 order by x",
      "select s, sum(w) from w where s < 2.5 group by s order by s",
      "select count(*), sum(a.v) from v a join v b on a.z = b.z and a.y = b.y and a.x = b.x where a.z < 0.2",
    };
    try (Connection c = connect()) {
      for (String q : queries) {
        try (Statement s = c.createStatement();
            ResultSet rs = s.executeQuery(q)) {
          assertEquals(SqlEngineTest.parquet(q), SqlEngineTest.rows(rs), q);
        }
        try (PreparedStatement p = c.prepareStatement(q);
            ResultSet rs = p.executeQuery()) {
          assertEquals(SqlEngineTest.parquet(q), SqlEngineTest.rows(rs), "prepared: " + q);
        }
      }
    }
  }

  @Test
  void toolsCanBrowseTheTables() throws Exception {
    try (Connection c = connect()) {
      DatabaseMetaData meta = c.getMetaData();
      List<String> tables = new ArrayList<>();
      try (ResultSet rs = meta.getTables(null, null, "%", null)) {
        while (rs.next()) {
          tables.add(
              rs.getString("TABLE_SCHEM")
                  + "."
                  + rs.getString("TABLE_NAME")
                  + ":"
                  + rs.getString("TABLE_TYPE"));
        }
      }
      assertEquals(
          List.of("main.s:TABLE", "main.v:TABLE", "main.w:TABLE", "main.y:TABLE", "main.z:TABLE"),
          tables);
      List<String> columns = new ArrayList<>();
      try (ResultSet rs = meta.getColumns(null, null, "v", "%")) {
        while (rs.next()) {
          columns.add(rs.getString("COLUMN_NAME"));
        }
      }
      assertEquals(List.of("z", "y", "x", "v"), columns);
      List<String> schemas = new ArrayList<>();
      try (ResultSet rs = meta.getSchemas()) {
        while (rs.next()) {
          schemas.add(rs.getString("TABLE_SCHEM"));
        }
      }
      assertEquals(List.of("main"), schemas);
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("select count(*) from main.v")) {
        assertEquals(List.of("1920"), SqlEngineTest.rows(rs));
      }
    }
  }

  @Test
  void anythingButQueriesIsRefused() throws Exception {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      for (String statement :
          new String[] {
            "create table t as select 1", "insert into v values (1, 2, 3, 4)", "set threads = 1"
          }) {
        SQLException e = assertThrows(SQLException.class, () -> s.execute(statement), statement);
        assertTrue(
            String.valueOf(e.getMessage()).contains("read-only"),
            statement + ": " + e.getMessage());
      }
      SQLException e = assertThrows(SQLException.class, () -> s.executeQuery("select nope from v"));
      assertTrue(String.valueOf(e.getMessage()).contains("nope"), e.getMessage());
    }
  }

  @Test
  @SuppressWarnings("try") // Arrow's FlightClient declares close() throws Exception
  void zaroFlightStillServesBesideIt() throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        FlightClient client =
            FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port()))
                .build()) {
      List<String> paths = new ArrayList<>();
      for (FlightInfo info : client.listFlights(Criteria.ALL)) {
        paths.add(String.join("/", info.getDescriptor().getPath()));
      }
      assertEquals(List.of("s", "v", "w", "y", "z"), paths.stream().sorted().toList());
    }
  }
}
