package dev.zaro.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.function.Consumer;
import org.duckdb.DuckDBChunkedResult;
import org.duckdb.DuckDBPreparedStatement;

/**
 * DuckDB's own message for a query whose streamed result lost it.
 *
 * <p>With {@code jdbc_stream_results} on, DuckDB's JDBC driver (2.0.0.1) runs a query up to its
 * first result chunk inside {@code execute}; when that fails (a bad timestamp literal, a failed
 * cast, {@code error('...')}, a cancel), the driver does not read the result's error before asking
 * it for its columns, and throws a generic {@value #LOST} instead. Its C API path ({@link
 * DuckDBPreparedStatement#query()}) runs the same query, also streamed (up to its first chunk only,
 * so in bounded memory), and does read the error: running the query again there recovers the
 * message. A query that fails late, after rows have been fetched, keeps its message on the plain
 * path and needs none of this.
 */
final class DuckDbErrors {
  /** The driver's message when it lost the real one. */
  static final String LOST = "Invalid Input Error: Invalid result set";

  private DuckDbErrors() {}

  /** Whether {@code e} is the driver's generic error in place of DuckDB's own. */
  static boolean lost(SQLException e) {
    String message = e.getMessage();
    return message != null && message.strip().equals(LOST);
  }

  /**
   * Runs {@code sql} on {@code connection} through the C API path up to its first chunk and returns
   * DuckDB's error message, or null when it succeeds this time (the first failure did not repeat).
   * {@code running} is told of the statement while it runs, so that it can be cancelled.
   */
  static String rerun(Connection connection, String sql, Consumer<PreparedStatement> running) {
    try (PreparedStatement p = connection.prepareStatement(sql)) {
      running.accept(p);
      DuckDBChunkedResult result = p.unwrap(DuckDBPreparedStatement.class).query();
      result.close(); // it ran: no error this time
      return null;
    } catch (SQLException e) {
      return e.getMessage();
    } finally {
      running.accept(null);
    }
  }
}
