package org.duckdb;

/**
 * Replaces, for the command line only, the DuckDB JDBC driver's hook for its {@code
 * duckdb.MemoryUsage} JDK Flight Recorder event (driver 2.0). The driver's own class registers that
 * periodic event whenever the {@code jdk.jfr} module is present, from the static initializers of
 * {@code DuckDBDriver} and {@code DuckDBConnection}, even when no connection asks for monitoring
 * ({@code jdbc_jfr_memory_monitor}, which zaro never sets): that starts the Flight Recorder's
 * metadata (hundreds of event types, annotation proxies, generated event handlers) and cost every
 * {@code zaro sql} process about 0.09 CPU seconds before its first statement (benchmarks/README.md,
 * "Start-up"). This class comes first on the launcher's class path (the zaro-cli jar leads it), so
 * the driver calls these methods instead, which do nothing; library users of zaro-sql keep the
 * driver's own. {@code JfrMemoryMonitorTest} checks that the driver's class still has exactly these
 * methods, so an upgrade that changes them fails the build rather than a query.
 */
final class JfrMemoryMonitor {
  private JfrMemoryMonitor() {}

  /** Called by the driver's static initializers: no event is registered. */
  static void init() {}

  /** Called when the driver opens a database: nothing is tracked. */
  static void connectionOpened(DuckDBConnection connection) {}

  /** Called when the driver closes a database: nothing was tracked. */
  static void connectionClosed(long database) {}
}
