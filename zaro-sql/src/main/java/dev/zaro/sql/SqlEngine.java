package dev.zaro.sql;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.NodeNotFoundException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.plan.DimensionFilter;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.Node;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.read.ZarrArray;
import dev.zaro.arrow.vector.CData;
import dev.zaro.arrow.vector.CoordinateColumns;
import dev.zaro.arrow.vector.DimensionColumn;
import dev.zaro.arrow.vector.TableReader;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.duckdb.DuckDBConnection;

/**
 * DuckDB over the arrays of one hierarchy: each array is a table named by its path (table layout),
 * streamed into DuckDB through the Arrow C Data Interface. The one place that runs SQL for {@code
 * zaro sql} and the Flight SQL service.
 *
 * <p>Pushdown: DuckDB cannot push filters into a C stream, so before a statement runs, DuckDB
 * parses it ({@code json_serialize_sql}) and {@link StatementScan} finds, per table reference, the
 * columns it mentions and its conjunctive predicates on dimension columns (comparisons, {@code
 * BETWEEN}, {@code IN} against constants, which DuckDB itself evaluates). Each referenced table is
 * then read with only those columns and only the index ranges the predicates allow ({@link
 * DimensionFilter}); a table used twice gets the hull of what each use needs. DuckDB still applies
 * every predicate on top, so results never depend on the pushdown.
 *
 * <p>Thread-safe: each statement runs on its own DuckDB connection to one in-memory database. The
 * engine does not own the {@link Zaro}; closing it closes the database.
 */
public final class SqlEngine implements AutoCloseable {
  private final Zaro zaro;
  private final Options options;
  private final DuckDBConnection database;
  private final DuckDbParser parser;

  /** Lower-case table name -> table name as listed. */
  private final Map<String, String> tables = new TreeMap<>();

  /** Table name -> array path. */
  private final Map<String, String> paths = new ConcurrentHashMap<>();

  private final Map<String, TableInfo> infos = new ConcurrentHashMap<>();

  /** Whether the catalog views exist (made on first need: they cost a schema per table). */
  private volatile boolean catalog;

  /**
   * How statements run.
   *
   * @param cf CF conventions in the table layout (false: stored values)
   * @param pushdown push projection and dimension ranges into the reads (false: every table is read
   *     whole, as a reference for tests and benchmarks)
   * @param threads DuckDB's threads; 0 keeps DuckDB's default (the core count)
   * @param readOnly accept only queries (SELECT statements), with DuckDB's file and network access
   *     switched off and its configuration locked (the Flight SQL service)
   * @param batchRows rows per record batch handed to DuckDB
   */
  public record Options(
      boolean cf, boolean pushdown, int threads, boolean readOnly, long batchRows) {
    /**
     * CF on, pushdown on, DuckDB's threads, not read-only, and batches of up to 2^21 rows: twice
     * the table layout's default, as DuckDB aggregates a batch in far less time than the batch
     * takes to decode, and fewer, larger batches keep every core decoding (a cold one-query process
     * 0.96x wall, warm scans about 0.85x; benchmarks/README.md, "One query, third round").
     */
    public static final Options DEFAULT = new Options(true, true, 0, false, 1L << 21);

    public Options withCf(boolean on) {
      return new Options(on, pushdown, threads, readOnly, batchRows);
    }

    public Options withPushdown(boolean on) {
      return new Options(cf, on, threads, readOnly, batchRows);
    }

    public Options withThreads(int n) {
      return new Options(cf, pushdown, n, readOnly, batchRows);
    }

    public Options withReadOnly(boolean on) {
      return new Options(cf, pushdown, threads, on, batchRows);
    }
  }

  /**
   * A table's dimension columns (each coordinate read to the heap once, when a statement first
   * needs it) and full schema.
   */
  record TableInfo(
      String name,
      String path,
      ZarrArray array,
      List<DimensionColumn> columns,
      CoordinateColumns coordinates,
      Schema schema) {
    Set<String> lowerColumns() {
      Set<String> out = new HashSet<>();
      schema.getFields().forEach(f -> out.add(StatementScan.lower(f.getName())));
      return out;
    }
  }

  /**
   * Starts opening an in-memory DuckDB database on a daemon thread, for the next engine made in
   * this process to take instead of opening its own: loading DuckDB's native library and starting a
   * database take about 0.1 CPU-s, which a short command-line process spends on its second core
   * while it parses its arguments and reads the store's metadata (benchmarks/README.md, "One
   * query"). Does nothing while an earlier one is still untaken. The database is the same as one an
   * engine opens itself (each engine configures its own); one that no engine takes stays open until
   * the process ends, so this is for a process that goes on to make an engine (the command line's
   * {@code sql}), not for library use.
   */
  public static void openAhead() {
    DuckDbDatabase.openAhead();
  }

  /** Opens an in-memory DuckDB database over the arrays of {@code zaro} (not owned). */
  public SqlEngine(Zaro zaro, Options options) {
    this.zaro = zaro;
    this.options = options;
    for (Node node : zaro.list()) {
      if (node.isArray()) {
        String name = tableName(node.path());
        if (tables.putIfAbsent(StatementScan.lower(name), name) == null) {
          paths.put(name, node.path());
        }
      }
    }
    this.database = DuckDbDatabase.takeOrOpenDatabase();
    this.parser = new DuckDbParser(database);
    try (Statement s = database.createStatement()) {
      if (options.threads() > 0) {
        s.execute("SET threads = " + options.threads());
      }
      if (options.readOnly()) {
        s.execute("SET enable_external_access = false");
        s.execute("SET lock_configuration = true");
      }
    } catch (SQLException e) {
      close();
      throw new ZaroException("sql: cannot configure DuckDB: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * Names every table in DuckDB's own catalog: an empty view per table, with the table layout's
   * columns and DuckDB's types for them, so that {@code SHOW TABLES}, {@code information_schema}
   * and DuckDB's hints for a misspelled table name it. A statement never reads these views: its
   * connection registers each table it uses as a stream of the same name (a temporary view, found
   * first), read with the pushed-down columns and ranges. Arrays the table layout cannot show
   * (complex values, ...) get no view, as they get no table.
   */
  private synchronized void createCatalogViews() {
    if (catalog) {
      return;
    }
    try {
      createViews();
    } catch (SQLException e) {
      throw new ZaroException(
          "sql: cannot name the tables in DuckDB's catalog: " + e.getMessage(), e);
    }
    catalog = true;
  }

  /**
   * Whether a statement may look at the catalog (SHOW, DESCRIBE, information_schema, DuckDB's
   * metadata functions), so the views are made first; a statement naming a table that is not one of
   * ours makes them too (DuckDB's hint for a misspelled name then lists ours).
   */
  private static boolean readsCatalog(String sql) {
    String lower = StatementScan.lower(sql);
    for (String word :
        new String[] {
          "information_schema", "show", "describe", "summarize", "duckdb_", "sqlite_", "pg_"
        }) {
      if (lower.contains(word)) {
        return true;
      }
    }
    return false;
  }

  private void createViews() throws SQLException {
    try (BufferAllocator allocator = new RootAllocator();
        Connection connection = database.duplicate();
        Statement s = connection.createStatement()) {
      DuckDBConnection duck = connection.unwrap(DuckDBConnection.class);
      for (String table : tables.values()) {
        TableInfo info;
        try {
          info = info(table);
        } catch (ZaroException e) {
          continue;
        }
        long[] shape = info.array().metadata().shape();
        List<Selection.Dim> none = new ArrayList<>();
        for (int d = 0; d < shape.length; d++) {
          none.add(new Selection.Dim(0, 1, d == 0 ? 0 : shape[d], false));
        }
        List<String> columns = new ArrayList<>();
        try (TableReader reader =
                new TableReader(
                    info.array(),
                    Selection.of(none),
                    info.columns(),
                    info.coordinates(),
                    TableOptions.DEFAULT.withCf(options.cf()),
                    ReadOptions.DEFAULT,
                    allocator);
            ArrowArrayStream stream = CData.export(reader, allocator)) {
          duck.registerArrowStream("__zaro_schema", stream);
          try (ResultSet rs = s.executeQuery("DESCRIBE SELECT * FROM __zaro_schema")) {
            while (rs.next()) {
              columns.add(
                  "CAST(NULL AS "
                      + rs.getString("column_type")
                      + ") AS "
                      + SqlQuery.quote(rs.getString("column_name")));
            }
          }
        } catch (IOException e) {
          throw new ZaroException("sql: cannot open table '" + table + "': " + e, e);
        }
        s.execute(
            "CREATE VIEW main."
                + SqlQuery.quote(table)
                + " AS SELECT "
                + String.join(", ", columns)
                + " WHERE false");
      }
      s.execute("DROP VIEW IF EXISTS __zaro_schema");
    }
  }

  /** The table name of the array at {@code path}: the path, or {@code data} for a root array. */
  public static String tableName(String path) {
    return path.isEmpty() ? "data" : path;
  }

  public Options options() {
    return options;
  }

  /** Every table (array path), sorted. */
  public List<String> tables() {
    return List.copyOf(tables.values());
  }

  /** The full table-layout schema of a table. */
  public Schema schema(String table) {
    TableInfo info = info(table);
    if (info == null) {
      throw new NodeNotFoundException(
          "no table '" + table + "' (tables: " + String.join(", ", tables.values()) + ")");
    }
    return info.schema();
  }

  /** The table named {@code name} (any case), or null. */
  TableInfo info(String name) {
    String table = tables.get(StatementScan.lower(name));
    if (table == null) {
      return null;
    }
    return infos.computeIfAbsent(
        table,
        t -> {
          String path = paths.get(t);
          TableOptions tableOptions = TableOptions.DEFAULT.withCf(options.cf());
          try (BufferAllocator allocator = new RootAllocator()) {
            // coordinates read when a statement first needs them: one that names no dimension
            // reads none (their metadata alone makes the schema)
            List<DimensionColumn> columns = zaro.dimensionColumns(path, tableOptions);
            CoordinateColumns coordinates = zaro.coordinateColumns(path);
            ZarrArray array = zaro.array(path);
            try (TableReader reader =
                new TableReader(
                    array,
                    Selection.parse("", array.metadata().shape()),
                    columns,
                    coordinates,
                    tableOptions,
                    ReadOptions.DEFAULT,
                    allocator)) {
              return new TableInfo(
                  t, path, array, columns, coordinates, reader.getVectorSchemaRoot().getSchema());
            } catch (IOException e) {
              throw new ZaroException("sql: cannot open table '" + t + "': " + e, e);
            }
          }
        });
  }

  /**
   * The statements of a script, each as text DuckDB accepts. A script of queries only is split by
   * DuckDB's parser (each statement printed back by DuckDB); any other script comes back whole (it
   * then runs as one unit, without pushdown).
   */
  public List<String> statements(String sql) {
    JsonNode parsed = parser.parse(sql);
    JsonNode list = parsed.path("statements");
    if (parsed.path("error").asBoolean(true) || list.size() <= 1) {
      return List.of(sql);
    }
    List<String> out = new ArrayList<>();
    for (JsonNode statement : list) {
      out.add(parser.deserialize(statement));
    }
    return out;
  }

  /**
   * Prepares one statement: parses it, plans the reads of the tables it names and registers them on
   * a new DuckDB connection. The caller runs and closes the returned query. With {@link
   * Options#readOnly()}, anything but a single query is refused.
   *
   * @param allocator the reads' buffers come from children of it
   */
  public SqlQuery query(String sql, BufferAllocator allocator) {
    if (!catalog && readsCatalog(sql)) {
      createCatalogViews();
    }
    JsonNode parsed = parser.parse(sql);
    if (parsed.path("error").asBoolean(true)) {
      String type = parsed.path("error_type").asText("");
      String message = parsed.path("error_message").asText("");
      if (type.equals("parser")) {
        throw new ZaroException(ErrorKind.INVALID_ARGUMENT, "sql: " + message);
      }
      if (options.readOnly()) {
        throw new ZaroException(
            ErrorKind.INVALID_ARGUMENT, "sql: read-only: only queries (SELECT) are accepted here");
      }
      return open(sql, null, allocator);
    }
    JsonNode statements = parsed.path("statements");
    if (statements.size() != 1) {
      if (options.readOnly() || statements.isEmpty()) {
        throw new ZaroException(
            ErrorKind.INVALID_ARGUMENT, "sql: expected one statement, found " + statements.size());
      }
      return open(sql, null, allocator);
    }
    return open(sql, statements.get(0), allocator);
  }

  /** The same query under {@code SELECT * FROM (...) LIMIT 0}, for its result schema. */
  String schemaQuery(String sql) {
    JsonNode parsed = parser.parse(sql);
    if (parsed.path("error").asBoolean(true) || parsed.path("statements").size() != 1) {
      throw new ZaroException(
          ErrorKind.INVALID_ARGUMENT,
          "sql: read-only: only single queries (SELECT) are accepted here");
    }
    return "SELECT * FROM ("
        + parser.deserialize(parsed.path("statements").get(0))
        + ") AS q LIMIT 0";
  }

  private SqlQuery open(String sql, JsonNode statement, BufferAllocator allocator) {
    List<SqlQuery.Read> reads = new ArrayList<>();
    if (statement == null) {
      for (String table : tables.values()) {
        TableInfo info;
        try {
          info = info(table);
        } catch (ZaroException e) {
          continue; // an array the table layout cannot show (complex values, ...): not a table here
        }
        reads.add(
            new SqlQuery.Read(
                info, table, null, Selection.parse("", info.array().metadata().shape())));
      }
    } else {
      reads = plan(statement);
    }
    Connection connection;
    try {
      connection = database.duplicate();
    } catch (SQLException e) {
      throw new ZaroException("sql: " + e.getMessage(), e);
    }
    return new SqlQuery(
        sql, connection, reads, allocator, options, this::bindingError, statement != null);
  }

  /**
   * DuckDB's binding error for {@code sql} against the catalog views, which have every column of
   * every table (the streams a query registers have only the columns it pushed down, so DuckDB's
   * hint for a misspelled column would name only those); null when the statement binds there.
   * Prepares, never runs, the statement.
   */
  private String bindingError(String sql) {
    createCatalogViews();
    try (Connection c = database.duplicate()) {
      c.prepareStatement(sql).close();
      return null;
    } catch (SQLException e) {
      return e.getMessage();
    }
  }

  /** A new connection that sees every table (as a view without rows), to prepare statements on. */
  Connection catalogConnection() throws SQLException {
    createCatalogViews();
    return database.duplicate();
  }

  /** What each table named by {@code statement} is read with. */
  private List<SqlQuery.Read> plan(JsonNode statement) {
    StatementScan scan =
        new StatementScan(
            statement,
            name -> {
              TableInfo info = info(name);
              return info == null ? null : info.lowerColumns();
            });
    Map<String, List<StatementScan.Use>> byTable = new LinkedHashMap<>();
    for (StatementScan.Use use : scan.uses()) {
      if (tables.containsKey(use.table())) {
        byTable.computeIfAbsent(tables.get(use.table()), k -> new ArrayList<>()).add(use);
      } else if (!catalog) {
        createCatalogViews(); // not ours (a CTE, or a misspelling DuckDB's hint should correct)
      }
    }
    Set<String> allColumns = new HashSet<>();
    byTable.keySet().forEach(t -> allColumns.addAll(info(t).lowerColumns()));
    Map<JsonNode, DuckDbParser.Constant> constants =
        options.pushdown() ? parser.evaluate(byTable.values()) : Map.of();
    List<SqlQuery.Read> reads = new ArrayList<>();
    for (Map.Entry<String, List<StatementScan.Use>> entry : byTable.entrySet()) {
      TableInfo info = info(entry.getKey());
      List<StatementScan.Use> uses = entry.getValue();
      Selection all = Selection.parse("", info.array().metadata().shape());
      if (!options.pushdown()) {
        reads.add(new SqlQuery.Read(info, entry.getKey(), null, all, uses.size()));
        continue;
      }
      reads.add(
          new SqlQuery.Read(
              info,
              entry.getKey(),
              DimensionPushdown.columns(info, uses, scan, allColumns),
              DimensionPushdown.narrow(info, uses, constants, all),
              uses.size()));
    }
    return reads;
  }

  @Override
  public void close() {
    try {
      database.close();
    } catch (SQLException e) {
      throw new ZaroException("sql: closing DuckDB: " + e.getMessage(), e);
    }
  }
}
