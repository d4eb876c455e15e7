package dev.zaro.cli;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.vector.ArrowFiles;
import dev.zaro.sql.SqlEngine;
import dev.zaro.sql.SqlQuery;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "sql",
    mixinStandardHelpOptions = true,
    description =
        "Runs DuckDB SQL over the arrays of a hierarchy: each array is a table named by its path"
            + " (table layout, streamed to DuckDB through the Arrow C Data Interface). Only the columns a query"
            + " mentions are produced, and predicates on dimension columns (=, <, <=, >, >=, BETWEEN, IN, ANDed)"
            + " narrow the chunks read; DuckDB still applies every predicate.")
final class SqlCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "STORE", description = Main.STORE_HELP)
  String store;

  @Parameters(
      index = "1",
      arity = "0..1",
      paramLabel = "SQL",
      description =
          "The query (or several, separated by ';'); quote nested paths: \"group/array\"."
              + " Without it: a shell on a terminal (.help lists its commands; history in"
              + " ~/.zaro_history), or the statements piped on standard input.")
  String sql;

  @Mixin OpenOptions open = new OpenOptions();

  @Option(
      names = "--out",
      paramLabel = "FILE.arrow",
      description = "Write the (last statement's) result as an Arrow IPC file.")
  Path out;

  @Option(names = "--raw", description = "Stored values, without CF conventions.")
  boolean raw;

  @Option(names = "--max-rows", defaultValue = "100", description = "Rows to print (default: 100).")
  int maxRows;

  @Option(
      names = "--timer",
      description =
          "After each statement, print 'Run Time (s): real <seconds>' on stderr"
              + " (as the DuckDB CLI's .timer on does).")
  boolean timer;

  @Option(
      names = "--stats",
      description =
          "After each statement, print on stderr one JSON object: the chunks and"
              + " decoded bytes it read, per table with the selection and columns pushed into the"
              + " read. planned_chunks counts the chunks the selection touches as stored (shards,"
              + " for a sharded array); chunks counts the chunks decoded (inner chunks of shards),"
              + " so the two differ for sharded arrays.")
  boolean stats;

  @Option(names = "--no-pushdown", description = "Read every table whole (for comparisons).")
  boolean noPushdown;

  @Override
  public Integer call() throws Exception {
    Main.checkOut(out);
    var options = open.toOptions();
    SqlEngine.Options engineOptions =
        SqlEngine.Options.DEFAULT
            .withCf(!raw)
            .withPushdown(!noPushdown)
            .withThreads(open.threads == null ? 0 : open.threads);
    try (Zaro zaro = Zaro.open(store, options);
        BufferAllocator allocator = new RootAllocator();
        SqlEngine engine = new SqlEngine(zaro, engineOptions)) {
      if (sql == null) {
        return shell(engine, allocator);
      }
      List<String> statements = engine.statements(sql);
      for (int i = 0; i < statements.size(); i++) {
        boolean last = i == statements.size() - 1;
        long t0 = System.nanoTime();
        try (SqlQuery query = engine.query(statements.get(i), allocator)) {
          if (out != null && last) {
            try (ArrowReader reader = query.executeArrow(allocator, 64 * 1024)) {
              long rows = ArrowFiles.write(reader, out);
              System.err.printf("wrote %s: %d rows%n", out, rows);
            }
          } else {
            ResultSet result = query.execute();
            if (result != null) {
              try {
                print(result);
              } catch (SQLException e) {
                throw query.failure(e); // a row DuckDB failed to make, or a cancel
              }
            }
          }
          if (timer) {
            System.err.printf(
                Locale.ROOT, "Run Time (s): real %.3f%n", (System.nanoTime() - t0) / 1e9);
          }
          if (stats) {
            System.err.println(query.stats().toJson());
          }
        }
      }
    }
    return 0;
  }

  // JDK 17 (the target): System.console() is null unless standard input and output are a terminal
  @SuppressWarnings("SystemConsoleNull")
  private int shell(SqlEngine engine, BufferAllocator allocator) throws IOException {
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    if (System.console() == null) {
      PrintWriter stdout = new PrintWriter(System.out, false, StandardCharsets.UTF_8);
      SqlShell shell = new SqlShell(engine, allocator, maxRows, timer, stats, stdout, err);
      return shell.script(
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
    }
    try (Terminal terminal = TerminalBuilder.builder().system(true).build()) {
      SqlShell shell =
          new SqlShell(engine, allocator, maxRows, timer, stats, terminal.writer(), err);
      return shell.interactive(terminal, Path.of(System.getProperty("user.home"), ".zaro_history"));
    }
  }

  private void print(ResultSet result) throws SQLException {
    ResultSetMetaData meta = result.getMetaData();
    int columns = meta.getColumnCount();
    List<String[]> rows = new ArrayList<>();
    String[] header = new String[columns];
    for (int c = 0; c < columns; c++) {
      header[c] = meta.getColumnLabel(c + 1);
    }
    rows.add(header);
    int shown = 0;
    boolean more = false;
    while (result.next()) {
      if (shown == maxRows) {
        more = true;
        break;
      }
      String[] row = new String[columns];
      for (int c = 0; c < columns; c++) {
        row[c] = ValueText.of(result.getObject(c + 1));
      }
      rows.add(row);
      shown++;
    }
    int[] width = new int[columns];
    for (String[] row : rows) {
      for (int c = 0; c < columns; c++) {
        width[c] = Math.max(width[c], row[c].length());
      }
    }
    for (int r = 0; r < rows.size(); r++) {
      StringBuilder line = new StringBuilder();
      for (int c = 0; c < columns; c++) {
        line.append(c == 0 ? "" : "  ")
            .append(String.format("%-" + width[c] + "s", rows.get(r)[c]));
      }
      System.out.println(line.toString().stripTrailing());
      if (r == 0) {
        StringBuilder rule = new StringBuilder();
        for (int c = 0; c < columns; c++) {
          rule.append(c == 0 ? "" : "  ").append("-".repeat(width[c]));
        }
        System.out.println(rule);
      }
    }
    System.out.println("(" + shown + (more ? "+" : "") + " row" + (shown == 1 ? "" : "s") + ")");
  }
}
