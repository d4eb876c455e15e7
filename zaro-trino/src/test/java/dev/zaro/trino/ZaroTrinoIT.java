package dev.zaro.trino;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.Fixtures;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code ./zaro trino} end to end, as a user runs it (after {@code mvn package}, so failsafe runs
 * it): the command prints the JDBC URL, then {@code ready}; Trino's own JDBC driver connects and
 * gets {@code zaro sql}'s answer; SIGINT stops every node (the process exits, the port closes).
 */
class ZaroTrinoIT {
  @Test
  void zaroTrinoServesJdbcUntilInterrupted() throws Exception {
    Path root = Fixtures.testdata().getParent();
    String store = Fixtures.testdata().resolve("sample/climate.zarr").toString();
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Path log = Path.of("target", "zaro-trino-it.log").toAbsolutePath();
    Process p =
        new ProcessBuilder(
                root.resolve("zaro").toString(),
                "trino",
                store,
                "--port",
                Integer.toString(port),
                "--workers",
                "2")
            .redirectError(log.toFile())
            .start();
    try {
      List<String> lines = new ArrayList<>();
      BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        lines.add(line);
        if (line.equals("ready")) {
          break;
        }
      }
      assertEquals(List.of("jdbc:trino://127.0.0.1:" + port, "ready"), lines, "see " + log);

      String query =
          "select time, avg(cast(t2m as double)) from {t2m} where lat between 30 and 60 group by time";
      List<String> expected =
          ZarrClusterTest.zaroSql(store, ZarrClusterTest.tables(query, t -> "\"" + t + "\""), true);
      Properties props = new Properties();
      props.setProperty("user", "zaro");
      List<String> actual;
      try (Connection c = DriverManager.getConnection(lines.get(0) + "/zarr/default", props);
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery(ZarrClusterTest.tables(query, t -> t))) {
        actual = ZarrClusterTest.rows(rs);
      }
      ZarrClusterTest.assertRowsEqual(expected, actual, query);

      // SIGINT, as Ctrl-C sends it
      new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).inheritIO().start().waitFor();
      assertTrue(p.waitFor(60, TimeUnit.SECONDS), "still running after SIGINT; see " + log);
      assertFalse(listening(port), "port " + port + " still open after the cluster stopped");
    } finally {
      p.destroyForcibly();
    }
  }

  private static boolean listening(int port) {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      return s.isConnected();
    } catch (IOException e) {
      return false;
    }
  }
}
