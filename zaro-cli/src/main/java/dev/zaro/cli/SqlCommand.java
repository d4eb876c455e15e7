package dev.zaro.cli;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.arrow.ArrowFiles;
import dev.zaro.arrow.arrow.CData;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.read.Node;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.read.TableReader;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBResultSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "sql", mixinStandardHelpOptions = true,
    description = "Runs DuckDB SQL over the arrays of a hierarchy: each array is a table named by its path"
        + " (table layout, streamed to DuckDB through the Arrow C Data Interface).")
final class SqlCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "STORE", description = "A local path or file:// URL.")
  String store;

  @Parameters(index = "1", paramLabel = "SQL", description = "The query; quote nested paths: \"group/array\".")
  String sql;

  @Mixin
  OpenOptions open = new OpenOptions();

  @Option(names = "--out", paramLabel = "FILE.arrow", description = "Write the result as an Arrow IPC file.")
  Path out;

  @Option(names = "--raw", description = "Stored values, without CF conventions.")
  boolean raw;

  @Option(names = "--max-rows", defaultValue = "100", description = "Rows to print (default: 100).")
  int maxRows;

  @Override
  public Integer call() throws Exception {
    try (Zaro zaro = Zaro.open(store, open.toOptions());
         BufferAllocator allocator = new RootAllocator();
         Connection connection = DriverManager.getConnection("jdbc:duckdb:")) {
      DuckDBConnection duck = connection.unwrap(DuckDBConnection.class);
      List<ArrowArrayStream> streams = new ArrayList<>();
      try {
        for (Node node : zaro.list()) {
          if (!node.isArray()) {
            continue;
          }
          String name = node.path().isEmpty() ? "data" : node.path();
          TableReader reader = zaro.readTable(node.path(), "", allocator, TableOptions.DEFAULT.withCf(!raw),
              ReadOptions.DEFAULT);
          ArrowArrayStream stream = CData.export(reader, allocator);
          streams.add(stream);
          duck.registerArrowStream(name, stream);
        }
        try (Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery(sql)) {
          if (out != null) {
            try (ArrowReader reader = (ArrowReader) result.unwrap(DuckDBResultSet.class)
                .arrowExportStream(allocator, 64 * 1024)) {
              long rows = ArrowFiles.write(reader, out);
              System.err.printf("wrote %s: %d rows%n", out, rows);
            }
          } else {
            print(result);
          }
        } catch (SQLException e) {
          throw new ZaroException("sql: " + e.getMessage(), e);
        }
      } finally {
        streams.forEach(ArrowArrayStream::close);
      }
    }
    return 0;
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
        Object v = result.getObject(c + 1);
        row[c] = v == null ? "NULL" : v.toString();
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
        line.append(c == 0 ? "" : "  ").append(String.format("%-" + width[c] + "s", rows.get(r)[c]));
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
