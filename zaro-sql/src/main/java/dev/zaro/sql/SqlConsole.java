package dev.zaro.sql;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.json.Json;
import dev.zaro.flight.ExplorerSql;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The explorer page's SQL console ({@code GET /sql?q=SQL} with {@code zaro serve --sql --http-port
 * P}; docs/explorer.md): one statement on a read-only {@link SqlEngine}, made on the first query,
 * answered as JSON with at most {@link #MAX_ROWS} rows, its run time and what it read. Errors are
 * DuckDB's message as {@code zaro sql} prints it. Thread-safe: queries run one at a time on the
 * engine's connection. Owns the engine: {@link #close()} closes it.
 */
public final class SqlConsole implements ExplorerSql, AutoCloseable {
  /** Rows answered at most; the answer says when more were left out ("truncated"). */
  public static final int MAX_ROWS = 1000;

  private final Supplier<SqlEngine> engines;
  private final BufferAllocator allocator;
  private SqlEngine engine;

  /**
   * @param engines makes the engine on the first query
   * @param allocator the queries' buffers (the server's; not closed here)
   */
  public SqlConsole(Supplier<SqlEngine> engines, BufferAllocator allocator) {
    this.engines = engines;
    this.allocator = allocator;
  }

  @Override
  public synchronized String queryJson(String sql) {
    if (engine == null) {
      engine = engines.get();
    }
    long t0 = System.nanoTime();
    ObjectNode out = Json.createObjectNode();
    try (BufferAllocator child = allocator.newChildAllocator("sql console", 0, Long.MAX_VALUE);
        SqlQuery query = engine.query(sql, child)) {
      ResultSet rs = query.execute();
      ArrayNode columns = out.putArray("columns");
      ArrayNode rows = out.putArray("rows");
      boolean truncated = false;
      if (rs != null) {
        try {
          ResultSetMetaData md = rs.getMetaData();
          int n = md.getColumnCount();
          for (int c = 1; c <= n; c++) {
            columns
                .addObject()
                .put("name", md.getColumnLabel(c))
                .put("type", md.getColumnTypeName(c));
          }
          while (rs.next()) {
            if (rows.size() == MAX_ROWS) {
              truncated = true;
              break;
            }
            ArrayNode row = rows.addArray();
            for (int c = 1; c <= n; c++) {
              add(row, rs.getObject(c));
            }
          }
        } catch (SQLException e) {
          throw query.failure(e);
        }
      }
      out.put("truncated", truncated);
      out.put("seconds", (System.nanoTime() - t0) / 1e9);
      out.set("stats", Json.readTree(query.stats().toJson()));
    } catch (ZaroException e) {
      throw e.getMessage().startsWith("sql: ")
          ? new ZaroException(e.kind(), e.getMessage().substring(5), e)
          : e;
    } catch (IOException e) {
      throw new ZaroException(ErrorKind.INTERNAL, "sql: " + e, e);
    }
    return out.toString();
  }

  private static void add(ArrayNode row, Object v) {
    if (v == null) {
      row.addNull();
    } else if (v instanceof Double d) {
      if (d.isNaN() || d.isInfinite()) {
        row.add(d.toString());
      } else {
        row.add(d);
      }
    } else if (v instanceof Float f) {
      row.add(f.doubleValue());
    } else if (v instanceof Long
        || v instanceof Integer
        || v instanceof Short
        || v instanceof Byte) {
      row.add(((Number) v).longValue());
    } else if (v instanceof BigInteger b) {
      row.add(b);
    } else if (v instanceof BigDecimal b) {
      row.add(b);
    } else if (v instanceof Boolean b) {
      row.add(b);
    } else {
      row.add(v.toString());
    }
  }

  @Override
  public synchronized void close() {
    if (engine != null) {
      engine.close();
      engine = null;
    }
  }
}
