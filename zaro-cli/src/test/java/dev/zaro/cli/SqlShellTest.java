package dev.zaro.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.sql.SqlEngine;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TimeZone;
import java.util.concurrent.atomic.AtomicInteger;
import org.jline.terminal.Terminal;
import org.jline.terminal.impl.DumbTerminal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shell of {@code zaro sql STORE}: through JLine's dumb terminal and as a piped script. */
class SqlShellTest extends AllocatorTest {
  @TempDir Path dir;

  private SqlEngine engine(Zaro zaro) {
    return new SqlEngine(zaro, SqlEngine.Options.DEFAULT.withThreads(1));
  }

  private static Zaro sample() {
    return Zaro.open(Fixtures.sample().toString(), ZaroOptions.defaults());
  }

  record Run(int code, String out, String err) {}

  /**
   * JLine's dumb terminal over {@code keys} and {@code screen}: what the shell writes is on the
   * screen when the write returns. ({@code TerminalBuilder.builder().system(false).streams(..)}
   * gives a terminal over a real pseudo-terminal even when asked for type "dumb": its output
   * reaches the stream through a pump thread, and whatever the pump had not copied when the
   * terminal closed was lost, so the screen was cut short at random under load.)
   */
  private static Terminal dumbTerminal(InputStream keys, OutputStream screen) throws IOException {
    return new DumbTerminal("zaro-test", Terminal.TYPE_DUMB, keys, screen, StandardCharsets.UTF_8);
  }

  private Run script(String text) throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    try (Zaro zaro = sample();
        SqlEngine engine = engine(zaro)) {
      SqlShell shell =
          new SqlShell(
              engine, allocator, 100, false, false, new PrintWriter(out), new PrintWriter(err));
      int code = shell.script(new BufferedReader(new StringReader(text)));
      return new Run(code, out.toString(), err.toString());
    }
  }

  @Test
  void statementsEndAtSemicolonsOverSeveralLines() {
    assertTrue(SqlShell.complete("select 1;"));
    assertTrue(SqlShell.complete("select\n 1\n ;  \n"));
    assertFalse(SqlShell.complete("select ';'"));
    assertFalse(SqlShell.complete("select 1 -- done;"));
    assertTrue(SqlShell.complete("select 1; -- done\n"));
    assertFalse(SqlShell.complete("select \"a;\n"));
    assertFalse(SqlShell.complete("select 1 /* ; */"));
  }

  @Test
  void aScriptRunsEveryStatementAndModesPrintTheSameRows() throws Exception {
    Run r =
        script(
            """
            .mode csv
            select count(*) as n,
              max(lat) as top
            from t2m
            where lat > 80;
            .mode json
            select 1 as a, 'x' as b; select 2 as a;
            .mode markdown
            select 3 as c;
            .mode box
            select 4 as d;
            .tables
            .schema t2m
            """);
    assertEquals(0, r.code(), r.err());
    // 4 latitudes above 80 (82.5 .. 90 in steps of 2.5) x 48 times x 144 longitudes
    assertTrue(r.out().startsWith("n,top\n" + 4 * 48 * 144 + ",90.0\n"), r.out());
    assertTrue(r.out().contains("[{\"a\":1,\"b\":\"x\"}]\n[{\"a\":2}]\n"), r.out());
    assertTrue(r.out().contains("| c |\n|---|\n| 3 |\n"), r.out());
    assertTrue(r.out().contains("│ d │\n├───┤\n│ 4 │\n└───┘\n1 row\n"), r.out());
    assertTrue(r.out().contains("lat\nlon\nprecip\nt2m\ntime\n"), r.out());
    assertTrue(r.out().contains("  t2m  FloatingPoint(SINGLE)"), r.out());
  }

  /**
   * A value prints as DuckDB's own cast to VARCHAR spells it, in every mode and in a one-shot
   * {@code zaro sql}: each value is selected beside that cast of it, and the two texts must match
   * (the JDBC driver's objects printed a BLOB as an object, a whole-second timestamp with {@code
   * .0}).
   */
  @Test
  void valuesPrintAsDuckDbSpellsThem() throws Exception {
    List<String> values =
        new ArrayList<>(
            List.of(
                "'\\xAA\\x01a\\x5C~ z'::BLOB",
                "''::BLOB",
                "TIMESTAMP '2020-01-01 00:00:00'",
                "TIMESTAMP '1969-12-31 23:59:59.5'",
                "TIMESTAMP '2020-01-01 12:34:56.000123'",
                "DATE '2020-01-02'",
                "42::HUGEINT"));
    if (TimeZone.getDefault().getRawOffset() == 0) { // DuckDB's session time zone is the JVM's
      values.add("TIMESTAMPTZ '2020-01-01 00:00:00+00'");
      values.add("TIMESTAMPTZ '2020-01-01 12:00:00.25+00'");
    }
    StringBuilder select = new StringBuilder("select ");
    for (int i = 0; i < values.size(); i++) {
      select.append(i == 0 ? "" : ", ").append(values.get(i)).append(" as v").append(i);
      select.append(", (").append(values.get(i)).append(")::VARCHAR as t").append(i);
    }
    Run r = script(".mode csv\n" + select + ";\n");
    assertEquals(0, r.code(), r.err());
    String[] row = r.out().lines().toList().get(1).split(",", -1);
    assertEquals(2 * values.size(), row.length, r.out());
    for (int i = 0; i < values.size(); i++) {
      assertEquals(row[2 * i + 1], row[2 * i], values.get(i));
    }
    Run box = script(select + ";\n");
    assertEquals(0, box.code(), box.err());
    assertTrue(box.out().contains("│ \\xAA\\x01a\\x5C~ z │"), box.out());
    CliTest.Result once = CliTest.run("sql", Fixtures.sample().toString(), select.toString());
    assertEquals(0, once.code(), once.err());
    assertTrue(once.out().contains("2020-01-01 00:00:00  2020-01-01 00:00:00  "), once.out());
    assertFalse(once.out().contains("00:00:00.0"), once.out());
  }

  @Test
  void errorsPrintTheScriptGoesOnAndTheExitCodeSaysSo() throws Exception {
    Run r = script("select * from nope;\nselect 5 as e;\n.bogus\n");
    assertEquals(1, r.code());
    assertTrue(r.err().contains("Error: ") && r.err().contains("nope"), r.err());
    assertTrue(r.err().contains("unknown command .bogus"), r.err());
    assertTrue(r.out().contains("│ 5 │"), r.out());
    assertEquals(0, script("select 1;\n").code());
    // the last statement needs no ';'
    assertTrue(script("select 6 as f").out().contains("│ 6 │"));
  }

  @Test
  void timerAndStatsFollowEachStatement() throws Exception {
    Run r = script(".timer on\n.stats on\nselect count(*) from t2m where lat > 80;\n.timer off\n");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("Run Time (s): real "), r.out());
    assertTrue(r.out().contains("\"planned_chunks\""), r.out());
  }

  /** Through JLine's dumb terminal: prompts, continuation lines, history, .quit. */
  @Test
  void interactiveThroughADumbTerminal() throws Exception {
    // a pipe kept open, as a keyboard is (JLine reads ahead of an input that ends)
    PipedOutputStream keys = new PipedOutputStream();
    PipedInputStream input = new PipedInputStream(keys);
    keys.write(
        "select 40 +\n2 as answer;\n.timer on\nselect 1;\n.quit\n"
            .getBytes(StandardCharsets.UTF_8));
    keys.flush();
    ByteArrayOutputStream screen = new ByteArrayOutputStream();
    Path history = dir.resolve("history");
    StringWriter err = new StringWriter();
    try (Zaro zaro = sample();
        SqlEngine engine = engine(zaro);
        Terminal terminal = dumbTerminal(input, screen)) {
      SqlShell shell =
          new SqlShell(
              engine, allocator, 100, false, false, terminal.writer(), new PrintWriter(err));
      assertEquals(0, shell.interactive(terminal, history));
    }
    // the screen and the shell's error stream, so that a failure shows both
    String out = screen.toString(StandardCharsets.UTF_8) + "\n[stderr]\n" + err;
    assertTrue(out.contains("zaro> "), out);
    assertTrue(out.contains("  ...> "), out);
    assertTrue(out.contains("│ answer │") && out.contains("│     42 │"), out);
    assertTrue(out.contains("Run Time (s): real "), out);
    String saved = Files.readString(history);
    assertTrue(saved.contains("select 40 +") && saved.contains(".quit"), saved);
  }

  /**
   * Each class of SQL error prints DuckDB's own message (not the driver's "Invalid result set"),
   * and the shell goes on to the next statement.
   */
  @Test
  void errorsPrintDuckDbsMessage() throws Exception {
    Run run =
        script(
            """
            select * from t2m where time < timestamp '2020-13-45';
            select cast('abc' as integer);
            select cast(t2m::varchar || 'x' as int) from t2m;
            select error('boom');
            .mode csv
            select 1 as one;
            """);
    assertEquals(1, run.code());
    assertEquals("one\n1\n", run.out());
    for (String message :
        new String[] {
          "Error: Conversion Error: timestamp field value out of range: \"2020-13-45\"",
          "Error: Conversion Error: Could not convert string 'abc' to INT32",
          "Error: Conversion Error: Could not convert string '",
          "Error: Invalid Input Error: boom",
        }) {
      assertTrue(run.err().contains(message), message + " in:\n" + run.err());
    }
    assertFalse(run.err().contains("Invalid result set"), run.err());
  }

  /** Ctrl-C cancels the running statement; the shell stays and runs the next one. */
  @Test
  void interruptCancelsTheRunningStatement() throws Exception {
    PipedOutputStream keys = new PipedOutputStream();
    PipedInputStream input = new PipedInputStream(keys);
    ByteArrayOutputStream screen = new ByteArrayOutputStream();
    StringWriter err = new StringWriter();
    AtomicInteger code = new AtomicInteger(-1);
    try (Zaro zaro = sample();
        SqlEngine engine = engine(zaro);
        Terminal terminal = dumbTerminal(input, screen)) {
      SqlShell shell =
          new SqlShell(
              engine, allocator, 100, false, false, terminal.writer(), new PrintWriter(err));
      Thread t = new Thread(() -> code.set(shell.interactive(terminal, dir.resolve("history"))));
      t.start();
      // never finishes by itself: a cross join of 10^12 rows
      keys.write(
          "select count(*) from range(1000000) a, range(1000000) b where a.range + b.range < 0;\n"
              .getBytes(StandardCharsets.UTF_8));
      keys.flush();
      while (!shell.isRunning()) {
        Thread.sleep(10);
      }
      terminal.raise(Terminal.Signal.INT);
      keys.write("select 7 as g;\n.quit\n".getBytes(StandardCharsets.UTF_8));
      keys.flush();
      t.join();
    }
    assertEquals(0, code.get());
    assertTrue(err.toString().contains("Error: the query was cancelled"), err.toString());
    String out = screen.toString(StandardCharsets.UTF_8);
    assertTrue(out.contains("│ 7 │"), out);
  }
}
