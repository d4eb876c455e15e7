package dev.zaro.sql;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.json.Json;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.duckdb.DuckDBConnection;

/**
 * Statements through DuckDB's own parser: parsed to a tree ({@code json_serialize_sql}), printed
 * back to text ({@code json_deserialize_sql}), and the constants of their conditions evaluated by
 * DuckDB in one query. Thread-safe; does not own the database.
 */
final class DuckDbParser {
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
  record Constant(double[] numbers, String text) {}

  private final DuckDBConnection database;

  /**
   * {@link #CONSTANTS_TEMPLATE} as DuckDB parses it, made when a statement first has constants to
   * evaluate ({@link #constantsTemplate()}): a statement without conditions never pays for it.
   */
  private JsonNode constantsTemplate;

  /** The last statement {@link #parse}d. */
  private volatile Parse lastParse;

  DuckDbParser(DuckDBConnection database) {
    this.database = database;
  }

  /**
   * Evaluates every constant of the conditions with DuckDB, in one query: per constant its value as
   * DOUBLE, as FLOAT and as epoch microseconds of a TIMESTAMP (NaN where DuckDB's cast fails), and
   * as VARCHAR.
   */
  Map<JsonNode, Constant> evaluate(Collection<List<StatementScan.Use>> uses) {
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
    String text = deserialize(statement);
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
   * DuckDB's parse of {@code sql}. The last parse is kept: {@link SqlEngine#statements} and then
   * {@link SqlEngine#query} of a one-statement script parse the same text. The tree is only read,
   * never changed.
   */
  JsonNode parse(String sql) {
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
  String deserialize(JsonNode statement) {
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
}
