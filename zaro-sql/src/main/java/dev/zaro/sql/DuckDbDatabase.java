package dev.zaro.sql;

import dev.zaro.arrow.error.ZaroException;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBDriver;

/**
 * Opening the in-memory DuckDB database an engine runs on: on the engine's thread, or ahead of it
 * on a daemon thread ({@link #openAhead}) while a short process does other start-up work.
 */
final class DuckDbDatabase {
  private DuckDbDatabase() {}

  /** A database {@link #openAhead} is opening, for the next engine made to take; or null. */
  private static final AtomicReference<CompletableFuture<DuckDBConnection>> AHEAD =
      new AtomicReference<>();

  /** Starts opening a database for the next engine to take ({@link SqlEngine#openAhead}). */
  static void openAhead() {
    CompletableFuture<DuckDBConnection> ahead = new CompletableFuture<>();
    if (AHEAD.compareAndSet(null, ahead)) {
      Thread opener =
          new Thread(
              () -> {
                try {
                  ahead.complete(openDatabase());
                } catch (SQLException | RuntimeException | Error e) {
                  ahead.completeExceptionally(e);
                }
              },
              "zaro-duckdb-open");
      opener.setDaemon(true);
      opener.start();
    }
  }

  /** The database {@link #openAhead} opened (waiting for it), else a new one. */
  static DuckDBConnection takeOrOpenDatabase() {
    CompletableFuture<DuckDBConnection> ahead = AHEAD.getAndSet(null);
    try {
      if (ahead == null) {
        return openDatabase();
      }
      try {
        return ahead.join();
      } catch (CompletionException e) { // the opener's own failure, as opening here would give
        if (e.getCause() instanceof SQLException cause) {
          throw cause;
        }
        if (e.getCause() instanceof RuntimeException cause) {
          throw cause;
        }
        if (e.getCause() instanceof Error cause) {
          throw cause; // e.g. DuckDB's native library not loading
        }
        throw e;
      }
    } catch (SQLException e) {
      throw new ZaroException("sql: cannot start DuckDB: " + e.getMessage(), e);
    }
  }

  /** A new in-memory database, never the one opened ahead. */
  static DuckDBConnection openDatabase() throws SQLException {
    Properties props = new Properties();
    props.setProperty("jdbc_stream_results", "true");
    // the driver itself, not DriverManager: that would first look for java.sql.Driver services
    // in every jar of the class path (about 0.2 s of a short process's wall time)
    return (DuckDBConnection) new DuckDBDriver().connect("jdbc:duckdb:", props);
  }
}
