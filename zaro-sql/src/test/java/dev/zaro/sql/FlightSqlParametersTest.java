package dev.zaro.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.flight.ServerOptions;
import dev.zaro.flight.ZaroFlightServer;
import java.sql.Connection;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Prepared statements with parameters through the Arrow Flight SQL JDBC driver (and Arrow's Flight
 * SQL client, for several parameter rows): the same rows as the query with the values written in as
 * literals, for each type a BI tool binds.
 */
class FlightSqlParametersTest {
  private ZaroFlightServer server;

  @BeforeEach
  void start() throws Exception {
    Zaro zaro = Zaro.open(Fixtures.sample().toString(), ZaroOptions.defaults());
    server =
        ZaroFlightServer.start(
            zaro,
            ServerOptions.defaults().withAddress("127.0.0.1", 0),
            (producer, allocator) ->
                new FlightSqlRouter(
                    producer,
                    new ZaroFlightSqlProducer(
                        () -> new SqlEngine(zaro, SqlEngine.Options.DEFAULT.withReadOnly(true)),
                        allocator)));
  }

  @AfterEach
  void stop() throws Exception {
    server.close(); // closes the allocator: a leaked buffer fails the test
  }

  private Connection connect() throws Exception {
    Properties props = new Properties();
    props.setProperty("useEncryption", "false");
    return DriverManager.getConnection("jdbc:arrow-flight-sql://127.0.0.1:" + server.port(), props);
  }

  private static final String PARAMETERS =
      "select count(*) as n, sum(t2m) as s, epoch_us(min(time)) as first from t2m"
          + " where time >= ? and time < cast(? as date) and lat > ? and t2m > ?"
          + " and cast(lon as integer) < ? and epoch_us(time) >= ? and ? and ? = 'yes'";

  private static final String LITERALS =
      "select count(*) as n, sum(t2m) as s, epoch_us(min(time)) as first from t2m"
          + " where time >= timestamp '2020-01-02 06:00:00' and time < date '2020-01-05'"
          + " and lat > 30.0 and t2m > 250.0::float and cast(lon as integer) < 100"
          + " and epoch_us(time) >= 1577923200000000 and true and 'yes' = 'yes'";

  @Test
  void everyParameterTypeGivesTheLiteralQuerysRows() throws Exception {
    try (Connection c = connect()) {
      List<String> want;
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery(LITERALS)) {
        want = SqlEngineTest.rows(rs);
      }
      assertTrue(!want.get(0).startsWith("0 |"), want.toString()); // the filters keep some rows
      try (PreparedStatement p = c.prepareStatement(PARAMETERS)) {
        assertEquals(8, p.getParameterMetaData().getParameterCount());
        p.setTimestamp(1, Timestamp.valueOf(LocalDateTime.of(2020, 1, 2, 6, 0)));
        p.setDate(2, Date.valueOf(LocalDate.of(2020, 1, 5)));
        p.setDouble(3, 30.0);
        p.setFloat(4, 250.0f);
        p.setInt(5, 100);
        p.setLong(6, 1577923200000000L);
        p.setBoolean(7, true);
        p.setString(8, "yes");
        try (ResultSet rs = p.executeQuery()) {
          assertEquals(want, SqlEngineTest.rows(rs));
        }
        // bound again, to other values: the statement follows them
        p.setString(8, "no");
        try (ResultSet rs = p.executeQuery()) {
          assertEquals(List.of("0 | null | null"), SqlEngineTest.rows(rs));
        }
      }
    }
  }

  /** Several parameter rows run the statement once per row: an endpoint each, in order. */
  @Test
  @SuppressWarnings("try") // FlightClient.close() throws InterruptedException
  void severalParameterRowsRunOncePerRow() throws Exception {
    String query = "select count(*) as n from t2m where lat > ?";
    try (BufferAllocator allocator = new RootAllocator();
        FlightClient flight =
            FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port()))
                .build();
        FlightSqlClient sql = new FlightSqlClient(flight);
        FlightSqlClient.PreparedStatement p = sql.prepare(query)) {
      assertEquals(1, p.getParameterSchema().getFields().size());
      try (VectorSchemaRoot parameters =
          VectorSchemaRoot.create(p.getParameterSchema(), allocator)) {
        Float8Vector lat = (Float8Vector) parameters.getVector(0);
        double[] values = {80.0, 0.0, -100.0};
        lat.allocateNew(values.length);
        for (int i = 0; i < values.length; i++) {
          lat.set(i, values[i]);
        }
        parameters.setRowCount(values.length);
        p.setParameters(parameters);
        FlightInfo info = p.execute();
        assertEquals(values.length, info.getEndpoints().size());
        List<String> got = new ArrayList<>();
        for (FlightEndpoint e : info.getEndpoints()) {
          try (FlightStream stream = sql.getStream(e.getTicket())) {
            while (stream.next()) {
              got.add(String.valueOf(stream.getRoot().getVector(0).getObject(0)));
            }
          }
        }
        List<String> want = new ArrayList<>();
        try (Connection c = connect();
            Statement s = c.createStatement()) {
          for (double v : values) {
            try (ResultSet rs = s.executeQuery(query.replace("?", Double.toString(v)))) {
              want.addAll(SqlEngineTest.rows(rs));
            }
          }
        }
        assertEquals(want, got);
      }
    }
  }
}
