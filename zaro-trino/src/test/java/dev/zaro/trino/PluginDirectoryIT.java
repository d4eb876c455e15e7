package dev.zaro.trino;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.inject.Key;
import io.trino.server.PluginInstaller;
import io.trino.server.testing.TestingTrinoServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged plugin directory (target/plugin/zarr, which docs/trino.md tells users to copy to
 * {@code plugin/zarr}) in a Trino server that has no zaro on its class path, loaded the way a Trino
 * server loads its plugins: this JVM's class path holds Trino but none of zaro's modules (the
 * failsafe execution {@code plugin-directory} leaves them out, and the test checks it), and the
 * server's own plugin loading ({@code PluginManager} over {@code plugin.dir}) gives the directory
 * one isolated class loader over its jars, with Trino's SPI from the server. Catalogs over a local
 * store (zstd chunks), an Icechunk repository (stores found through ServiceLoader) and S3 (the AWS
 * SDK's jars) then work. The same directory without one of its jars fails, though this JVM's class
 * path holds that jar: the check catches a dependency left out of the package. Only uses what
 * Trino, JDBC and DuckDB give, so no zaro class is loaded here.
 */
class PluginDirectoryIT {
  /** {@code ZarrErrorCode.ZARR_STORE_ERROR}'s code (the class is not on this class path). */
  private static final int ZARR_STORE_ERROR = 0x0A20_0000;

  private static final Path PLUGIN = Path.of("target", "plugin", "zarr").toAbsolutePath();

  @Test
  void thePluginDirectoryLoadsAndAnswersInATrinoWithoutZaro(@TempDir Path dir) throws Exception {
    for (String zaroClass :
        List.of("dev.zaro.trino.ZarrPlugin", "dev.zaro.arrow.Zaro", "dev.zaro.s3.S3Store")) {
      assertThrows(
          ClassNotFoundException.class,
          () -> Class.forName(zaroClass),
          zaroClass + " is on the test's class path: it must come from the plugin directory only");
    }
    Path testdata = testdata();
    try (TestingTrinoServer server = serverWith(PLUGIN, dir)) {
      server.createCatalog(
          "grid", "zarr", Map.of("zarr.store", testdata.resolve("sql/grid.zarr").toString()));
      String grid = "select count(*), sum(cast(v as double)), min(z), max(y) from %s where y > 70";
      List<String> expected =
          duckDb(String.format(grid, "read_parquet('" + testdata.resolve("sql/v.parquet") + "')"));
      assertEquals(expected, trino(server, String.format(grid, "grid.\"default\".v")));

      server.createCatalog(
          "ice",
          "zarr",
          Map.of(
              "zarr.store",
              "icechunk://" + testdata.resolve("icechunk/test-repo-v2"),
              "zarr.icechunk.tag",
              "it works!"));
      // testdata/icechunk/expected.json
      assertEquals(
          List.of("84", "84", "84", "84", "8"),
          trino(server, "select small_chunks from ice.group1.small_chunks order by 1 desc"));

      // S3 at a loopback port nothing listens on: the SDK's classes load, the store's error says
      // why it cannot be opened (a missing jar would be a NoClassDefFoundError instead)
      server.createCatalog(
          "s3",
          "zarr",
          Map.of(
              "zarr.store", "s3://bucket/grid.zarr",
              "zarr.s3.endpoint", "http://127.0.0.1:" + closedPort(),
              "zarr.s3.region", "us-east-1",
              "zarr.retries", "0",
              "zarr.timeout", "10"));
      SQLException s3 =
          assertThrows(SQLException.class, () -> trino(server, "show tables from s3.\"default\""));
      assertEquals(ZARR_STORE_ERROR, s3.getErrorCode(), s3.getMessage());
      assertTrue(s3.getMessage().contains("store 's3://bucket/grid.zarr"), s3.getMessage());
    }
  }

  /**
   * Without arrow-memory-unsafe (Arrow's allocator, found by name at run time), a catalog cannot be
   * made, though this JVM's class path holds that very jar: the plugin sees only its directory.
   */
  @Test
  void aJarMissingFromThePluginDirectoryFails(@TempDir Path dir) throws Exception {
    Path partial = dir.resolve("partial");
    Files.createDirectories(partial);
    int left = 0;
    try (Stream<Path> jars = Files.list(PLUGIN)) {
      for (Path jar : jars.toList()) {
        if (jar.getFileName().toString().startsWith("arrow-memory-unsafe-")) {
          left++;
        } else {
          Files.copy(jar, partial.resolve(jar.getFileName()));
        }
      }
    }
    assertEquals(1, left, "arrow-memory-unsafe in " + PLUGIN);
    assertTrue(
        System.getProperty("java.class.path").contains("arrow-memory-unsafe-"),
        "the class path holds the jar the plugin directory lacks");
    try (TestingTrinoServer server = serverWith(partial, dir.resolve("server"))) {
      Throwable e =
          assertThrows(
              Throwable.class,
              () ->
                  server.createCatalog(
                      "grid",
                      "zarr",
                      Map.of("zarr.store", testdata().resolve("sql/grid.zarr").toString())));
      assertTrue(causes(e).contains("DefaultAllocationManager"), causes(e));
    }
  }

  /**
   * A Trino server whose {@code plugin.dir} (its base data directory: TestingTrinoServer sets one
   * from the other) holds a copy of {@code plugin} as {@code zarr}, loaded by Trino's own plugin
   * loading as a server does at start.
   */
  private static TestingTrinoServer serverWith(Path plugin, Path dir) throws IOException {
    Path plugins = dir.resolve("plugins");
    Files.createDirectories(plugins.resolve("zarr"));
    try (Stream<Path> jars = Files.list(plugin)) {
      for (Path jar : jars.toList()) {
        Files.copy(jar, plugins.resolve("zarr").resolve(jar.getFileName()));
      }
    }
    TestingTrinoServer server =
        TestingTrinoServer.builder().setBaseDataDir(Optional.of(plugins)).build();
    try {
      server.getInstance(Key.get(PluginInstaller.class)).loadPlugins();
      return server;
    } catch (RuntimeException | Error e) {
      server.close();
      throw e;
    }
  }

  private static List<String> trino(TestingTrinoServer server, String sql) throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", "zaro");
    String url = "jdbc:trino://" + server.getAddress();
    try (Connection c = DriverManager.getConnection(url, props);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      return rows(rs);
    }
  }

  private static List<String> duckDb(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      return rows(rs);
    }
  }

  /** Each row's values as text, doubles to 12 significant digits (sums in another order). */
  private static List<String> rows(ResultSet rs) throws SQLException {
    List<String> out = new ArrayList<>();
    int n = rs.getMetaData().getColumnCount();
    while (rs.next()) {
      List<String> row = new ArrayList<>();
      for (int c = 1; c <= n; c++) {
        Object v = rs.getObject(c);
        row.add(
            switch (v) {
              case Double d -> String.format("%.12g", d);
              case Float f -> String.format("%.7g", f);
              case Number x -> Long.toString(x.longValue());
              default -> String.valueOf(v);
            });
      }
      out.add(String.join(" | ", row));
    }
    return out;
  }

  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** The repository's testdata, found upward of the working directory (the module's). */
  private static Path testdata() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isDirectory(d.resolve("testdata/sql"))) {
        return d.resolve("testdata");
      }
    }
    throw new IllegalStateException("no testdata above " + Path.of("").toAbsolutePath());
  }

  private static String causes(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      out.append(t).append('\n');
    }
    return out.toString();
  }
}
