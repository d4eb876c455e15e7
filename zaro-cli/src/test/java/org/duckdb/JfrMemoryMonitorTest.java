package org.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The command line's replacement of the DuckDB driver's Flight Recorder hook. */
class JfrMemoryMonitorTest {
  /** Each static method as name(parameter types) -> return type. */
  private static Set<String> signatures(Class<?> type) {
    Set<String> out = new TreeSet<>();
    for (Method m : type.getDeclaredMethods()) {
      if (Modifier.isStatic(m.getModifiers()) && !m.isSynthetic()) {
        out.add(
            m.getName()
                + Arrays.toString(
                    Arrays.stream(m.getParameterTypes()).map(Class::getName).toArray())
                + " -> "
                + m.getReturnType().getName());
      }
    }
    return out;
  }

  @Test
  void sameMethodsAsTheDriversOwnClass() throws Exception {
    URL driverJar = DuckDBDriver.class.getProtectionDomain().getCodeSource().getLocation();
    URL ours = JfrMemoryMonitor.class.getProtectionDomain().getCodeSource().getLocation();
    assertTrue(
        !driverJar.equals(ours), "the replacement must come from zaro-cli, not the driver's jar");
    // the driver's jar alone, so its own class is found (not initialized: no Flight Recorder)
    try (URLClassLoader driverOnly =
        new URLClassLoader(new URL[] {driverJar}, ClassLoader.getPlatformClassLoader())) {
      Class<?> original = Class.forName(JfrMemoryMonitor.class.getName(), false, driverOnly);
      assertEquals(original.getClassLoader(), driverOnly);
      Set<String> expected = signatures(original);
      assertEquals(
          Set.of(
              "connectionClosed[long] -> void",
              "connectionOpened[org.duckdb.DuckDBConnection] -> void",
              "init[] -> void"),
          expected);
      assertEquals(expected, signatures(JfrMemoryMonitor.class));
    }
  }

  @Test
  void driverWorksWithTheReplacement() throws Exception {
    Path jar =
        Paths.get(DuckDBDriver.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    assertTrue(jar.getFileName().toString().startsWith("duckdb_jdbc"), jar.toString());
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT 40 + 2")) {
      assertTrue(rs.next());
      assertEquals(42, rs.getInt(1));
    }
  }
}
