package dev.zaro.sql;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.NodeNotFoundException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.DataType;
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
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType.Timestamp;
import org.apache.arrow.vector.types.pojo.ArrowType.Utf8;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBDriver;

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
  /** Marks where each constant goes in {@link #CONSTANTS_TEMPLATE}. */
  private static final String MARK = "__zaro_constant__";

  private static final String CONSTANTS_TEMPLATE =
      "SELECT TRY_CAST('"
          + MARK
          + "' AS DOUBLE), TRY_CAST('"
          + MARK
          + "' AS FLOAT), epoch_us(TRY_CAST('"
          + MARK
          + "' AS TIMESTAMP)), TRY_CAST('"
          + MARK
          + "' AS VARCHAR)";

  /** Values per constant in {@link #CONSTANTS_TEMPLATE}. */
  private static final int CONSTANT_VALUES = 4;

  /**
   * A constant as DuckDB evaluated it: {@code numbers} its DOUBLE, FLOAT and TIMESTAMP (epoch
   * microseconds) values (NaN where the cast fails), {@code text} its VARCHAR value (or null).
   */
  @SuppressWarnings("ArrayRecordComponent") // private, never compared
  private record Constant(double[] numbers, String text) {}

  private final Zaro zaro;
  private final Options options;
  private final DuckDBConnection database;

  /** Lower-case table name -> table name as listed. */
  private final Map<String, String> tables = new TreeMap<>();

  /** Table name -> array path. */
  private final Map<String, String> paths = new ConcurrentHashMap<>();

  private final Map<String, TableInfo> infos = new ConcurrentHashMap<>();

  /** Whether the catalog views exist (made on first need: they cost a schema per table). */
  private volatile boolean catalog;

  /**
   * {@link #CONSTANTS_TEMPLATE} as DuckDB parses it, made when a statement first has constants to
   * evaluate ({@link #constantsTemplate()}): a statement without conditions never pays for it.
   */
  private JsonNode constantsTemplate;

  /** The last statement {@link #parse}d. */
  private volatile Parse lastParse;

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

  /** A database {@link #openAhead} is opening, for the next engine made to take; or null. */
  private static final AtomicReference<CompletableFuture<DuckDBConnection>> AHEAD =
      new AtomicReference<>();

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
  private static DuckDBConnection takeOrOpenDatabase() {
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

  private static DuckDBConnection openDatabase() throws SQLException {
    Properties props = new Properties();
    props.setProperty("jdbc_stream_results", "true");
    // the driver itself, not DriverManager: that would first look for java.sql.Driver services
    // in every jar of the class path (about 0.2 s of a short process's wall time)
    return (DuckDBConnection) new DuckDBDriver().connect("jdbc:duckdb:", props);
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
    this.database = takeOrOpenDatabase();
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
    JsonNode parsed = parse(sql);
    JsonNode list = parsed.path("statements");
    if (parsed.path("error").asBoolean(true) || list.size() <= 1) {
      return List.of(sql);
    }
    List<String> out = new ArrayList<>();
    for (JsonNode statement : list) {
      out.add(deserialize(database, statement));
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
    JsonNode parsed = parse(sql);
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
    JsonNode parsed = parse(sql);
    if (parsed.path("error").asBoolean(true) || parsed.path("statements").size() != 1) {
      throw new ZaroException(
          ErrorKind.INVALID_ARGUMENT,
          "sql: read-only: only single queries (SELECT) are accepted here");
    }
    return "SELECT * FROM ("
        + deserialize(database, parsed.path("statements").get(0))
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
    Map<JsonNode, Constant> constants = options.pushdown() ? evaluate(byTable.values()) : Map.of();
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
              columns(info, uses, scan, allColumns),
              narrow(info, uses, constants, all),
              uses.size()));
    }
    return reads;
  }

  /** The columns a table's uses can read, in layout order; null for all of them. */
  private static List<String> columns(
      TableInfo info, List<StatementScan.Use> uses, StatementScan scan, Set<String> allColumns) {
    if (scan.star()) {
      return null;
    }
    for (StatementScan.Use use : uses) {
      for (String name : new String[] {use.table(), use.alias()}) {
        if (!name.isEmpty() && scan.singleNames().contains(name) && !allColumns.contains(name)) {
          return null; // the table's name as a value: the whole row as a struct
        }
      }
    }
    List<String> out = new ArrayList<>();
    for (Field f : info.schema().getFields()) {
      if (scan.names().contains(StatementScan.lower(f.getName()))) {
        out.add(f.getName());
      }
    }
    if (out.isEmpty()) {
      // count(*) and the like: the cheapest column, which needs no chunk read when it is a
      // dimension
      out.add(info.schema().getFields().get(0).getName());
    }
    return out.size() == info.schema().getFields().size() ? null : out;
  }

  /** The hull of what each use's conditions allow. */
  private static Selection narrow(
      TableInfo info,
      List<StatementScan.Use> uses,
      Map<JsonNode, Constant> constants,
      Selection all) {
    long[] shape = info.array().metadata().shape();
    long[] lo = new long[shape.length];
    long[] hi = new long[shape.length];
    Arrays.fill(lo, Long.MAX_VALUE);
    boolean any = false;
    for (StatementScan.Use use : uses) {
      DimensionFilter filter = new DimensionFilter(info.columns(), shape);
      for (StatementScan.Condition c : use.conditions()) {
        restrict(filter, info, c, constants);
      }
      if (filter.isEmpty()) {
        continue;
      }
      any = true;
      for (int d = 0; d < shape.length; d++) {
        long[] r = filter.range(d);
        lo[d] = Math.min(lo[d], r[0]);
        hi[d] = Math.max(hi[d], r[1]);
      }
    }
    List<Selection.Dim> dims = new ArrayList<>();
    for (int d = 0; d < shape.length; d++) {
      // nothing can match: no row, as an empty first dimension (the others whole)
      dims.add(
          any
              ? new Selection.Dim(lo[d], 1, hi[d] - lo[d], false)
              : new Selection.Dim(0, 1, d == 0 ? 0 : shape[d], false));
    }
    Selection narrowed = Selection.of(dims);
    return narrowed.size() == all.size() ? all : narrowed;
  }

  /**
   * Applies one condition. Constants come as DuckDB evaluated them: as DOUBLE, as FLOAT, and as
   * epoch microseconds of a TIMESTAMP. A float32 coordinate may be compared by DuckDB in either
   * precision, so its bounds take the wider of the two; a FLOAT constant against an integer column
   * (compared in float by DuckDB) narrows nothing.
   */
  private static void restrict(
      DimensionFilter filter,
      TableInfo info,
      StatementScan.Condition c,
      Map<JsonNode, Constant> constants) {
    DimensionColumn column = null;
    for (DimensionColumn dc : info.columns()) {
      if (StatementScan.lower(dc.name()).equals(c.column())) {
        column = dc;
      }
    }
    if (column == null) {
      return;
    }
    if (column.kind() == DimensionColumn.Kind.LABELS) {
      // labels (text coordinates, 360_day times): equality and IN on the constants' text
      if (column.field().getType() instanceof Utf8
          && (c.op() == StatementScan.Op.EQ || c.op() == StatementScan.Op.IN)) {
        List<Object> texts = new ArrayList<>();
        for (JsonNode constant : c.constants()) {
          Constant k = constants.get(constant);
          if (k == null || k.text() == null || !isTextLiteral(constant)) {
            return; // only a string literal compares as text for sure
          }
          texts.add(k.text());
        }
        filter.restrictIn(column.name(), texts);
      }
      return;
    }
    boolean times =
        column.kind() == DimensionColumn.Kind.TIMES
            && column.field().getType() instanceof Timestamp;
    if (column.kind() == DimensionColumn.Kind.TIMES && !times) {
      return; // durations: DuckDB compares INTERVALs, not pushed down
    }
    boolean float32 =
        column.kind() == DimensionColumn.Kind.VALUES
            && column.type().kind() == DataType.Kind.FLOAT
            && column.type().bits() == 32;
    boolean floating =
        column.kind() == DimensionColumn.Kind.VALUES && column.type().kind() == DataType.Kind.FLOAT;
    List<double[]> values = new ArrayList<>();
    for (JsonNode constant : c.constants()) {
      Constant k = constants.get(constant);
      double[] v = k == null ? null : k.numbers();
      if (v == null || (!floating && !times && isFloatTyped(constant))) {
        return;
      }
      values.add(v);
    }
    String name = column.name();
    switch (c.op()) {
      case EQ -> bound(filter, name, DimensionFilter.Op.EQ, values.get(0), times, float32);
      case LT -> bound(filter, name, DimensionFilter.Op.LT, values.get(0), times, float32);
      case LE -> bound(filter, name, DimensionFilter.Op.LE, values.get(0), times, float32);
      case GT -> bound(filter, name, DimensionFilter.Op.GT, values.get(0), times, float32);
      case GE -> bound(filter, name, DimensionFilter.Op.GE, values.get(0), times, float32);
      case BETWEEN -> {
        bound(filter, name, DimensionFilter.Op.GE, values.get(0), times, float32);
        bound(filter, name, DimensionFilter.Op.LE, values.get(1), times, float32);
      }
      case IN -> {
        List<Object> in = new ArrayList<>();
        for (double[] v : values) {
          Object x = value(DimensionFilter.Op.EQ, v, times, float32);
          if (x == null) {
            return;
          }
          in.add(x);
        }
        filter.restrictIn(name, in);
      }
      default -> {}
    }
  }

  private static void bound(
      DimensionFilter filter,
      String column,
      DimensionFilter.Op op,
      double[] v,
      boolean times,
      boolean float32) {
    Object x = value(op, v, times, float32);
    if (x != null) {
      filter.restrict(column, op, x);
    }
  }

  /** The literal to compare with, or null if DuckDB's value is unknown (NULL: a failed cast). */
  private static Object value(DimensionFilter.Op op, double[] v, boolean times, boolean float32) {
    if (times) {
      return Double.isNaN(v[2]) ? null : (Object) (long) v[2];
    }
    if (!float32) {
      return Double.isNaN(v[0]) ? null : (Object) v[0];
    }
    if (Double.isNaN(v[0]) || Double.isNaN(v[1])) {
      return null;
    }
    return switch (op) {
      case LT, LE -> Math.max(v[0], v[1]);
      case GT, GE -> Math.min(v[0], v[1]);
      default -> v[1]; // EQ: only a float can equal a float32 value
    };
  }

  /** True for a VARCHAR literal ({@code 'EGLL'}), which DuckDB compares with a label as text. */
  private static boolean isTextLiteral(JsonNode constant) {
    // DuckDB serializes a literal as {"value": {"type": {"id": "VARCHAR"}}} or, in newer
    // versions, as {"literal": {"kind": "STRING"}}
    return constant.path("class").asText("").equals("CONSTANT")
        && (constant.path("value").path("type").path("id").asText("").equals("VARCHAR")
            || constant.path("literal").path("kind").asText("").equals("STRING"));
  }

  /**
   * True for a constant that involves FLOAT (REAL, FLOAT4) anywhere, which DuckDB may compare in
   * single precision (conservative: a string literal spelling the name counts too).
   */
  private static boolean isFloatTyped(JsonNode constant) {
    String text = constant.toString().toUpperCase(Locale.ROOT);
    return text.contains("\"FLOAT\"") || text.contains("\"REAL\"") || text.contains("\"FLOAT4\"");
  }

  /**
   * Evaluates every constant of the conditions with DuckDB, in one query: per constant its value as
   * DOUBLE, as FLOAT and as epoch microseconds of a TIMESTAMP (NaN where DuckDB's cast fails), and
   * as VARCHAR.
   */
  private Map<JsonNode, Constant> evaluate(Collection<List<StatementScan.Use>> uses) {
    List<JsonNode> all = new ArrayList<>();
    IdentityHashMap<JsonNode, Constant> out = new IdentityHashMap<>();
    for (List<StatementScan.Use> list : uses) {
      for (StatementScan.Use use : list) {
        for (StatementScan.Condition c : use.conditions()) {
          all.addAll(c.constants());
        }
      }
    }
    if (all.isEmpty()) {
      return out;
    }
    ObjectNode statement = constantsTemplate().deepCopy();
    ArrayNode select = (ArrayNode) statement.path("node").path("select_list");
    List<JsonNode> template = new ArrayList<>();
    select.forEach(template::add);
    select.removeAll();
    for (JsonNode constant : all) {
      for (JsonNode t : template) {
        // (DuckDB's parser may fold a cast to VARCHAR away, leaving the mark itself)
        select.add(isMark(t) ? constant.deepCopy() : substituteNull(t.deepCopy(), constant));
      }
    }
    String text = deserialize(database, statement);
    try (Connection c = database.duplicate();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(text)) {
      rs.next();
      for (int i = 0; i < all.size(); i++) {
        double[] v = new double[3];
        for (int k = 0; k < 3; k++) {
          Object o = rs.getObject(i * CONSTANT_VALUES + k + 1);
          v[k] = o instanceof Number n ? n.doubleValue() : Double.NaN;
        }
        out.put(all.get(i), new Constant(v, rs.getString(i * CONSTANT_VALUES + 4)));
      }
    } catch (SQLException e) {
      // a constant DuckDB cannot evaluate on its own: no pushdown; the statement reports its error
      out.clear();
    }
    return out;
  }

  /** Replaces the marked constant in a template expression by {@code value}. */
  private static JsonNode substituteNull(JsonNode node, JsonNode value) {
    if (node.isObject()) {
      ObjectNode o = (ObjectNode) node;
      var names = new ArrayList<String>();
      o.fieldNames().forEachRemaining(names::add);
      for (String f : names) {
        JsonNode child = o.get(f);
        if (isMark(child)) {
          o.set(f, value.deepCopy());
        } else {
          substituteNull(child, value);
        }
      }
    } else if (node.isArray()) {
      ArrayNode a = (ArrayNode) node;
      for (int i = 0; i < a.size(); i++) {
        JsonNode child = a.get(i);
        if (isMark(child)) {
          a.set(i, value.deepCopy());
        } else {
          substituteNull(child, value);
        }
      }
    }
    return node;
  }

  private static boolean isMark(JsonNode node) {
    return node.path("class").asText("").equals("CONSTANT") && node.toString().contains(MARK);
  }

  /**
   * DuckDB's parse of {@code sql}. The last parse is kept: {@link #statements} and then {@link
   * #query} of a one-statement script parse the same text. The tree is only read, never changed.
   */
  private JsonNode parse(String sql) {
    Parse last = lastParse;
    if (last != null && last.sql().equals(sql)) {
      return last.tree();
    }
    JsonNode tree = serialize(database, sql);
    lastParse = new Parse(sql, tree);
    return tree;
  }

  /** A statement's text and DuckDB's parse of it. */
  private record Parse(String sql, JsonNode tree) {}

  /** {@link #constantsTemplate}, made on first use. */
  private synchronized JsonNode constantsTemplate() {
    if (constantsTemplate == null) {
      constantsTemplate = serialize(database, CONSTANTS_TEMPLATE).path("statements").get(0);
    }
    return constantsTemplate;
  }

  /** DuckDB's parse of {@code sql} ({@code json_serialize_sql}). */
  private static JsonNode serialize(DuckDBConnection database, String sql) {
    try (Connection c = database.duplicate();
        PreparedStatement s = c.prepareStatement("SELECT json_serialize_sql(?)")) {
      s.setString(1, sql);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return Json.readTree(rs.getString(1));
      }
    } catch (SQLException | IOException e) {
      throw new ZaroException("sql: cannot parse the statement: " + e.getMessage(), e);
    }
  }

  /** DuckDB's text of one serialized statement ({@code json_deserialize_sql}). */
  private static String deserialize(DuckDBConnection database, JsonNode statement) {
    ObjectNode doc = Json.createObjectNode();
    doc.put("error", false);
    doc.putArray("statements").add(statement);
    try (Connection c = database.duplicate();
        PreparedStatement s = c.prepareStatement("SELECT json_deserialize_sql(?::JSON)")) {
      s.setString(1, doc.toString());
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    } catch (SQLException e) {
      throw new ZaroException("sql: cannot print the statement back: " + e.getMessage(), e);
    }
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
