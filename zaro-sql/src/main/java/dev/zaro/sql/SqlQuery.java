package dev.zaro.sql;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.plan.ReadPlan;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.ReadStats;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.vector.CData;
import dev.zaro.arrow.vector.TableReader;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBResultSet;

/**
 * One statement ready to run on its own DuckDB connection, its tables registered as Arrow streams
 * read with the pushed-down columns and selections. Made by {@link SqlEngine#query}; runs once.
 * Closing it closes the result, the connection and the streams; the readers' buffers come from a
 * child of the caller's allocator, closed (and checked for leaks) last. A binding error (a
 * misspelled column, say) is reported as DuckDB reports it against the tables' full columns, not
 * only the pushed-down ones.
 */
public final class SqlQuery implements AutoCloseable {
  /**
   * How one table is read: null columns for all; {@code uses} references (more than one:
   * materialized once).
   */
  record Read(
      SqlEngine.TableInfo info, String table, List<String> columns, Selection selection, int uses) {
    Read(SqlEngine.TableInfo info, String table, List<String> columns, Selection selection) {
      this(info, table, columns, selection, 1);
    }
  }

  private final String sql;
  private final Connection connection;
  private final List<Read> reads;
  private final BufferAllocator allocator;
  private final List<ArrowArrayStream> streams = new ArrayList<>();
  private final List<TableReader> readers = new ArrayList<>();
  private final List<ReadStats> stats = new ArrayList<>();
  private final UnaryOperator<String> bindingError;
  private final SqlEngine.Options options;

  /**
   * Whether the statement is one query, which may run again to recover the message DuckDB's driver
   * lost (anything else, a script run whole or a CREATE, might change something when run twice).
   */
  private final boolean rerunnable;

  /** Readers of a run that recovered DuckDB's message ({@link #lostMessage}), closed with this. */
  private final List<TableReader> spares = new ArrayList<>();

  /** The statement of that run while it runs, for {@link #cancel}. */
  private volatile Statement rerun;

  private volatile Statement statement;
  private volatile boolean cancelled;

  /** Whether {@link #execute} is inside DuckDB's execute call (see {@link #cancel}). */
  private volatile boolean executing;

  private ResultSet result;

  SqlQuery(
      String sql,
      Connection connection,
      List<Read> reads,
      BufferAllocator parent,
      SqlEngine.Options options,
      UnaryOperator<String> bindingError,
      boolean rerunnable) {
    this.sql = sql;
    this.bindingError = bindingError;
    this.connection = connection;
    this.reads = reads;
    this.allocator = parent.newChildAllocator("sql", 0, Long.MAX_VALUE);
    this.options = options;
    this.rerunnable = rerunnable;
    try {
      DuckDBConnection duck = connection.unwrap(DuckDBConnection.class);
      for (int i = 0; i < reads.size(); i++) {
        ReadStats counts = new ReadStats();
        stats.add(counts);
        register(duck, i, counts, readers);
      }
    } catch (SQLException | RuntimeException | IOException e) {
      close();
      throw e instanceof ZaroException z ? z : new ZaroException("sql: " + e.getMessage(), e);
    }
  }

  /**
   * Registers read {@code i} on the connection as an Arrow stream of its table's name (a temporary
   * table for a read used more than once); its reader goes to {@code into}, closed with this query.
   */
  private void register(DuckDBConnection duck, int i, ReadStats counts, List<TableReader> into)
      throws SQLException, IOException {
    Read read = reads.get(i);
    TableOptions tableOptions = new TableOptions(options.cf(), options.batchRows(), read.columns());
    TableReader reader =
        new TableReader(
            read.info().array(),
            read.selection(),
            read.info().columns(),
            read.info().coordinates(),
            tableOptions,
            ReadOptions.DEFAULT.withStats(counts),
            allocator);
    into.add(reader);
    ArrowArrayStream stream;
    try {
      stream = CData.export(reader, allocator);
    } catch (RuntimeException e) {
      reader.close();
      throw e;
    }
    streams.add(stream);
    if (read.uses() == 1) {
      duck.registerArrowStream(read.table(), stream);
    } else {
      String scan = "__zaro_scan_" + i;
      duck.registerArrowStream(scan, stream);
      try (Statement s = connection.createStatement()) {
        s.execute("CREATE TEMP TABLE " + quote(read.table()) + " AS SELECT * FROM " + quote(scan));
      }
    }
  }

  private static List<TableReader> concat(List<TableReader> a, List<TableReader> b) {
    List<TableReader> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  static String quote(String identifier) {
    return "\"" + identifier.replace("\"", "\"\"") + "\"";
  }

  /**
   * Runs the statement; the result set belongs to this query. Null for a statement without a result
   * (outside read-only engines: CREATE, SET, ...).
   */
  public ResultSet execute() {
    if (statement != null) {
      throw new IllegalStateException("a query runs once");
    }
    try {
      statement = connection.createStatement();
      executing = true; // before the check: a cancel either sees this or is seen by the check
      if (cancelled) {
        throw new ZaroException(ErrorKind.INVALID_ARGUMENT, CANCELLED);
      }
      result = statement.execute(sql) ? statement.getResultSet() : null;
      return result;
    } catch (SQLException e) {
      throw failure(e);
    } finally {
      executing = false;
    }
  }

  /**
   * The error to report for DuckDB's {@code e} on this query, at {@link #execute} or while its
   * result is read: that the query was cancelled, when it was; DuckDB's binding error against the
   * tables' full columns; DuckDB's own message where its driver lost it ({@link DuckDbErrors});
   * else DuckDB's message.
   */
  public ZaroException failure(SQLException e) {
    if (cancelled) {
      return new ZaroException(ErrorKind.INVALID_ARGUMENT, CANCELLED);
    }
    String message = e.getMessage();
    if (message != null && message.contains("Binder Error")) {
      // bound against the pushed-down columns only: DuckDB's error against all of them instead
      // (without the first as its cause, whose hint would name only the pushed-down columns)
      String full = bindingError.apply(sql);
      if (full != null && full.contains("Binder Error")) {
        return new ZaroException(ErrorKind.INVALID_ARGUMENT, "sql: " + full);
      }
    }
    if (DuckDbErrors.lost(e) && rerunnable) {
      String recovered = lostMessage();
      if (cancelled) {
        return new ZaroException(ErrorKind.INVALID_ARGUMENT, CANCELLED);
      }
      if (recovered != null) {
        return new ZaroException(ErrorKind.INVALID_ARGUMENT, "sql: " + recovered);
      }
    }
    return new ZaroException(ErrorKind.INVALID_ARGUMENT, "sql: " + message, e);
  }

  /** What a cancelled query reports. */
  static final String CANCELLED = "sql: the query was cancelled";

  /**
   * Runs the query again, on fresh streams of the same reads, to recover the message DuckDB's
   * driver lost; null if it cannot be had (the query succeeds this time, or fails outside DuckDB).
   */
  private String lostMessage() {
    try {
      DuckDBConnection duck = connection.unwrap(DuckDBConnection.class);
      for (int i = 0; i < reads.size(); i++) {
        if (reads.get(i).uses() == 1) { // a temporary table is still there, whole
          register(duck, i, new ReadStats(), spares);
        }
      }
      return DuckDbErrors.rerun(connection, sql, p -> rerun = p);
    } catch (SQLException | IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * Cancels the running statement from another thread (an interactive Ctrl-C): DuckDB interrupts it
   * and {@link #execute} (or the result's next row) fails; before it runs, it will not start.
   */
  public void cancel() {
    cancelled = true;
    Statement again = rerun;
    if (again != null) {
      try {
        again.cancel();
      } catch (SQLException e) {
        // finished or closed: nothing left to cancel
      }
    }
    Statement first = statement;
    if (first == null) {
      return; // not started: execute() sees the flag
    }
    try {
      first.cancel(); // also stops a streamed result between rows
    } catch (SQLException e) {
      return; // already finished or closed: nothing left to cancel
    }
    if (!executing) {
      return;
    }
    // DuckDB forgets an interrupt that arrives before the statement has begun inside it, so while
    // DuckDB's execute call lasts the interrupt is repeated
    Thread repeat =
        new Thread(
            () -> {
              while (executing) {
                try {
                  Thread.sleep(20);
                  first.cancel();
                } catch (SQLException e) {
                  return; // closed: nothing left to cancel
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
              }
            },
            "zaro-sql-cancel");
    repeat.setDaemon(true);
    repeat.start();
  }

  /**
   * Runs the statement and returns its result as DuckDB's Arrow stream, in {@code allocator}. The
   * caller closes the reader before this query.
   */
  public ArrowReader executeArrow(BufferAllocator allocator, long batchRows) {
    ResultSet rs = execute();
    if (rs == null) {
      throw new ZaroException(
          ErrorKind.INVALID_ARGUMENT, "sql: the statement returns no result to write");
    }
    try {
      return (ArrowReader) rs.unwrap(DuckDBResultSet.class).arrowExportStream(allocator, batchRows);
    } catch (SQLException e) {
      throw new ZaroException("sql: " + e.getMessage(), e);
    }
  }

  /** What the statement has read so far (complete once its result is consumed). */
  public QueryStats stats() {
    List<QueryStats.TableRead> out = new ArrayList<>();
    for (int i = 0; i < readers.size(); i++) {
      Read read = reads.get(i);
      List<String> columns =
          read.columns() != null
              ? read.columns()
              : read.info().schema().getFields().stream().map(f -> f.getName()).toList();
      ReadStats s = stats.get(i);
      out.add(
          new QueryStats.TableRead(
              read.table(),
              read.selection().canonical(),
              columns,
              ReadPlan.of(read.info().array().metadata(), read.selection()).chunkCount(),
              s.chunksDecoded(),
              s.bytesDecoded(),
              s.requests(),
              s.bytesFetched()));
    }
    return new QueryStats(out);
  }

  @Override
  public void close() {
    List<Exception> failures = new ArrayList<>();
    for (AutoCloseable c : new AutoCloseable[] {result, statement, connection}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        failures.add(e);
      }
    }
    streams.forEach(ArrowArrayStream::close);
    for (TableReader reader : concat(readers, spares)) {
      try {
        reader.close();
      } catch (Exception e) {
        failures.add(e);
      }
    }
    allocator.close();
    if (!failures.isEmpty()) {
      throw new ZaroException(
          "sql: closing the query: " + failures.get(0).getMessage(), failures.get(0));
    }
  }
}
