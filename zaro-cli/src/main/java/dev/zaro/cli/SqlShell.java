package dev.zaro.cli;

import dev.zaro.arrow.error.ZaroException;
import dev.zaro.sql.SqlEngine;
import dev.zaro.sql.SqlQuery;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Terminal;

/**
 * The shell of {@code zaro sql STORE} without SQL, in the manner of DuckDB's CLI: statements over
 * several lines, each ending at {@code ;}, and dot commands ({@link #HELP}). Interactive on a
 * terminal (JLine: line editing, history, Ctrl-C cancels the running statement, Ctrl-D leaves), or
 * a script read from a pipe (no prompts; the exit code says whether every statement succeeded).
 * Errors are printed and the shell goes on. Does not own the engine or the allocator.
 */
final class SqlShell {
  static final String HELP =
      """
      .help                         this text
      .tables                       the tables (one per array, named by its path)
      .schema NAME                  the columns of a table and their types
      .timer on|off                 print each statement's run time
      .mode box|csv|json|markdown   how results print (default: box)
      .stats on|off                 print what each statement read (chunks, bytes) as JSON
      .quit                         leave (Ctrl-D too)
      Statements end at ';' and may span lines; Ctrl-C cancels the running one.""";

  enum Mode {
    BOX,
    CSV,
    JSON,
    MARKDOWN
  }

  private final SqlEngine engine;
  private final BufferAllocator allocator;
  private final int maxRows;
  private PrintWriter out;
  private PrintWriter err;
  private boolean timer;
  private boolean stats;
  private Mode mode = Mode.BOX;
  private volatile SqlQuery running;

  SqlShell(
      SqlEngine engine,
      BufferAllocator allocator,
      int maxRows,
      boolean timer,
      boolean stats,
      PrintWriter out,
      PrintWriter err) {
    this.engine = engine;
    this.allocator = allocator;
    this.maxRows = maxRows;
    this.timer = timer;
    this.stats = stats;
    this.out = out;
    this.err = err;
  }

  /** Whether a statement is running (for tests that interrupt one). */
  boolean isRunning() {
    return running != null;
  }

  /**
   * Reads statements from {@code terminal} until Ctrl-D or {@code .quit}; history in {@code
   * history}. Returns 0.
   */
  int interactive(Terminal terminal, Path history) {
    LineReader reader =
        LineReaderBuilder.builder()
            .terminal(terminal)
            .appName("zaro")
            .variable(LineReader.HISTORY_FILE, history)
            .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true)
            .build();
    out = terminal.writer();
    // Ctrl-C while a statement runs (JLine installs its own handler while it reads a line)
    terminal.handle(
        Terminal.Signal.INT,
        signal -> {
          SqlQuery query = running;
          if (query != null) {
            query.cancel();
          }
        });
    out.println(
        "zaro sql: " + engine.tables().size() + " tables. Enter \".help\" for usage hints.");
    out.flush();
    StringBuilder pending = new StringBuilder();
    while (true) {
      String line;
      try {
        line = reader.readLine(pending.length() == 0 ? "zaro> " : "  ...> ");
      } catch (UserInterruptException e) {
        pending.setLength(0);
        continue;
      } catch (EndOfFileException e) {
        break;
      }
      if (pending.length() == 0 && line.strip().startsWith(".")) {
        if (!dot(line.strip())) {
          break;
        }
        continue;
      }
      pending.append(line).append('\n');
      if (complete(pending)) {
        run(pending.toString());
        pending.setLength(0);
      }
    }
    try {
      reader.getHistory().save();
    } catch (IOException e) {
      err.println("zaro: warning: history not saved: " + e.getMessage());
    }
    out.flush();
    return 0;
  }

  /**
   * Runs the statements (and dot commands) read from {@code in}, without prompts; a statement left
   * without its {@code ;} at the end runs too. Returns 1 if any failed, else 0.
   */
  int script(BufferedReader in) throws IOException {
    int failed = 0;
    StringBuilder pending = new StringBuilder();
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      if (pending.length() == 0 && line.strip().startsWith(".")) {
        boolean known = DOT_COMMANDS.contains(firstWord(line.strip()));
        if (!known) {
          failed++;
        }
        if (!dot(line.strip())) {
          break;
        }
        continue;
      }
      pending.append(line).append('\n');
      if (complete(pending)) {
        failed += run(pending.toString()) ? 0 : 1;
        pending.setLength(0);
      }
    }
    if (!pending.toString().isBlank()) {
      failed += run(pending.toString()) ? 0 : 1;
    }
    out.flush();
    err.flush();
    return failed == 0 ? 0 : 1;
  }

  private static final List<String> DOT_COMMANDS =
      List.of(".help", ".tables", ".schema", ".timer", ".mode", ".stats", ".quit", ".exit");

  private static String firstWord(String line) {
    return line.split("\\s+", 2)[0];
  }

  /**
   * Whether the text so far ends a statement: its last character outside quotes and comments is
   * {@code ;}.
   */
  static boolean complete(CharSequence text) {
    char last = 0;
    int n = text.length();
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      if (c == '\'' || c == '"') {
        int j = i + 1;
        while (j < n && text.charAt(j) != c) {
          j++;
        }
        if (j == n) {
          return false; // an open string or quoted name
        }
        i = j;
        last = c;
      } else if (c == '-' && i + 1 < n && text.charAt(i + 1) == '-') {
        while (i < n && text.charAt(i) != '\n') {
          i++;
        }
      } else if (c == '/' && i + 1 < n && text.charAt(i + 1) == '*') {
        int end = text.toString().indexOf("*/", i + 2);
        if (end < 0) {
          return false;
        }
        i = end + 1;
      } else if (!Character.isWhitespace(c)) {
        last = c;
      }
    }
    return last == ';';
  }

  /** Runs a dot command; false to leave. */
  private boolean dot(String line) {
    String[] words = line.strip().split("\\s+", -1);
    String arg = words.length > 1 ? words[1].toLowerCase(Locale.ROOT) : "";
    switch (words[0]) {
      case ".quit", ".exit" -> {
        return false;
      }
      case ".help" -> out.println(HELP);
      case ".tables" -> engine.tables().forEach(out::println);
      case ".schema" -> {
        if (words.length < 2) {
          err.println("Error: .schema NAME (the tables: .tables)");
        } else {
          schema(line.substring(line.indexOf(words[1])).strip());
        }
      }
      case ".timer" -> timer = onOff(".timer", arg, timer);
      case ".stats" -> stats = onOff(".stats", arg, stats);
      case ".mode" -> {
        try {
          mode = Mode.valueOf(arg.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
          err.println("Error: .mode box|csv|json|markdown (now " + name(mode) + ")");
        }
      }
      default -> err.println("Error: unknown command " + words[0] + " (.help lists them)");
    }
    out.flush();
    err.flush();
    return true;
  }

  private static String name(Mode mode) {
    return mode.name().toLowerCase(Locale.ROOT);
  }

  private boolean onOff(String command, String arg, boolean now) {
    return switch (arg) {
      case "on" -> true;
      case "off" -> false;
      default -> {
        err.println("Error: " + command + " on|off (now " + (now ? "on" : "off") + ")");
        yield now;
      }
    };
  }

  private void schema(String name) {
    String table =
        name.startsWith("\"") && name.endsWith("\"") && name.length() > 1
            ? name.substring(1, name.length() - 1)
            : name;
    try {
      for (Field f : engine.schema(table).getFields()) {
        out.println("  " + f.getName() + "  " + f.getType() + (f.isNullable() ? "" : " NOT NULL"));
      }
    } catch (ZaroException e) {
      err.println("Error: " + e.getMessage());
    }
  }

  /** Runs the statements of {@code text}; false if one failed (the rest are not run). */
  boolean run(String text) {
    List<String> statements;
    try {
      statements = engine.statements(text);
    } catch (ZaroException e) {
      return failed(e);
    }
    for (String statement : statements) {
      long t0 = System.nanoTime();
      try (SqlQuery query = engine.query(statement, allocator)) {
        running = query;
        try {
          ResultSet result = query.execute();
          if (result != null) {
            print(result);
          }
        } catch (SQLException e) {
          throw query.failure(e); // a row DuckDB failed to make, or a cancel
        } finally {
          running = null;
        }
        if (timer) {
          out.printf(Locale.ROOT, "Run Time (s): real %.3f%n", (System.nanoTime() - t0) / 1e9);
        }
        if (stats) {
          out.println(query.stats().toJson());
        }
      } catch (ZaroException e) {
        return failed(e);
      } finally {
        out.flush();
      }
    }
    return true;
  }

  private boolean failed(ZaroException e) {
    String message =
        e.getMessage().startsWith("sql: ") ? e.getMessage().substring(5) : e.getMessage();
    out.flush();
    err.println("Error: " + message);
    err.flush();
    return false;
  }

  private void print(ResultSet result) throws SQLException {
    ResultSetMetaData meta = result.getMetaData();
    int columns = meta.getColumnCount();
    String[] header = new String[columns];
    for (int c = 0; c < columns; c++) {
      header[c] = meta.getColumnLabel(c + 1);
    }
    List<Object[]> rows = new ArrayList<>();
    boolean more = false;
    while (result.next()) {
      if (rows.size() == maxRows) {
        more = true;
        break;
      }
      Object[] row = new Object[columns];
      for (int c = 0; c < columns; c++) {
        row[c] = result.getObject(c + 1);
      }
      rows.add(row);
    }
    switch (mode) {
      case BOX -> box(header, rows, more);
      case CSV -> csv(header, rows);
      case JSON -> json(header, rows);
      case MARKDOWN -> markdown(header, rows);
    }
    if (more && mode != Mode.BOX) {
      err.println("(" + maxRows + " rows shown; more with --max-rows)");
    }
  }

  private void box(String[] header, List<Object[]> rows, boolean more) {
    int columns = header.length;
    int[] width = new int[columns];
    for (int c = 0; c < columns; c++) {
      width[c] = header[c].length();
      for (Object[] row : rows) {
        width[c] = Math.max(width[c], ValueText.of(row[c]).length());
      }
    }
    out.println(rule('┌', '┬', '┐', width));
    out.println(line(header, width, new boolean[columns]));
    out.println(rule('├', '┼', '┤', width));
    for (Object[] row : rows) {
      String[] cells = new String[columns];
      boolean[] right = new boolean[columns];
      for (int c = 0; c < columns; c++) {
        cells[c] = ValueText.of(row[c]);
        right[c] = row[c] instanceof Number;
      }
      out.println(line(cells, width, right));
    }
    out.println(rule('└', '┴', '┘', width));
    int n = rows.size();
    out.println(n + (more ? "+" : "") + " row" + (n == 1 ? "" : "s"));
  }

  private static String rule(char left, char mid, char right, int[] width) {
    StringBuilder b = new StringBuilder().append(left);
    for (int c = 0; c < width.length; c++) {
      b.append(c == 0 ? "" : String.valueOf(mid)).append("─".repeat(width[c] + 2));
    }
    return b.append(right).toString();
  }

  private static String line(String[] cells, int[] width, boolean[] right) {
    StringBuilder b = new StringBuilder("│");
    for (int c = 0; c < cells.length; c++) {
      String pad = " ".repeat(width[c] - cells[c].length());
      b.append(' ').append(right[c] ? pad + cells[c] : cells[c] + pad).append(" │");
    }
    return b.toString();
  }

  private void csv(String[] header, List<Object[]> rows) {
    List<String> cells = new ArrayList<>();
    for (String h : header) {
      cells.add(csvCell(h));
    }
    out.println(String.join(",", cells));
    for (Object[] row : rows) {
      cells.clear();
      for (Object v : row) {
        cells.add(v == null ? "" : csvCell(ValueText.of(v)));
      }
      out.println(String.join(",", cells));
    }
  }

  private static String csvCell(String s) {
    if (s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r")) {
      return "\"" + s.replace("\"", "\"\"") + "\"";
    }
    return s;
  }

  private void json(String[] header, List<Object[]> rows) {
    out.print("[");
    for (int r = 0; r < rows.size(); r++) {
      StringBuilder b = new StringBuilder(r == 0 ? "{" : ",\n{");
      for (int c = 0; c < header.length; c++) {
        Object v = rows.get(r)[c];
        b.append(c == 0 ? "" : ",").append(jsonString(header[c])).append(':');
        if (v == null) {
          b.append("null");
        } else if (v instanceof Boolean
            || (v instanceof Number
                && !(v instanceof Double d && !Double.isFinite(d))
                && !(v instanceof Float f && !Float.isFinite(f)))) {
          b.append(v);
        } else {
          b.append(jsonString(ValueText.of(v)));
        }
      }
      out.print(b.append('}'));
    }
    out.println("]");
  }

  private static String jsonString(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }

  private void markdown(String[] header, List<Object[]> rows) {
    out.println("| " + String.join(" | ", escapeAll(header)) + " |");
    out.println("|" + "---|".repeat(header.length));
    for (Object[] row : rows) {
      String[] cells = new String[row.length];
      for (int c = 0; c < row.length; c++) {
        cells[c] = ValueText.of(row[c]);
      }
      out.println("| " + String.join(" | ", escapeAll(cells)) + " |");
    }
  }

  private static String[] escapeAll(String[] cells) {
    String[] out = new String[cells.length];
    for (int c = 0; c < cells.length; c++) {
      out[c] = cells[c].replace("|", "\\|").replace("\n", " ");
    }
    return out;
  }
}
