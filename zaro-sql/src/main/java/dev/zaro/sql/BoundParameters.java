package dev.zaro.sql;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.json.Json;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FloatingPointVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;

/**
 * Parameters of a Flight SQL prepared statement ({@code where time >= ?}), bound by putting each
 * row's values into the statement as typed literals ({@code CAST('2020-01-03 00:00:00' AS
 * TIMESTAMP)}) through DuckDB's own parse of it ({@code json_serialize_sql}, the parameters
 * replaced in the tree, {@code json_deserialize_sql}). The bound statement is then an ordinary
 * query: the same pushdown as a literal query, the same result, and nothing kept on the server (the
 * bound statements travel in the handle the client sends back).
 *
 * <p>Types: DuckDB's inference for each parameter (from the catalog's views of the tables), as
 * Arrow types the JDBC driver binds: integers, floats, strings, booleans, dates, timestamps (in
 * UTC, as {@link UtcTimes} sends them); a parameter DuckDB cannot type (an untyped {@code ?} alone)
 * is a string.
 */
final class BoundParameters {
  private BoundParameters() {}

  /** DuckDB's type name of each parameter of {@code sql}, in order; empty without parameters. */
  static List<String> types(SqlEngine engine, String sql) {
    List<String> out = new ArrayList<>();
    try (Connection c = engine.catalogConnection();
        PreparedStatement p = c.prepareStatement(sql)) {
      ParameterMetaData meta = p.getParameterMetaData();
      for (int i = 1; i <= meta.getParameterCount(); i++) {
        out.add(meta.getParameterTypeName(i).toUpperCase(Locale.ROOT));
      }
    } catch (SQLException e) {
      return List.of(); // a statement DuckDB cannot prepare: its query reports the error
    }
    return out;
  }

  /** The Flight SQL parameter schema for DuckDB's parameter {@code types}. */
  static Schema schema(List<String> types) {
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < types.size(); i++) {
      fields.add(new Field("p" + (i + 1), FieldType.nullable(arrowType(types.get(i))), null));
    }
    return new Schema(fields);
  }

  private static ArrowType arrowType(String duck) {
    return switch (duck) {
      case "BOOLEAN" -> ArrowType.Bool.INSTANCE;
      case "TINYINT" -> new ArrowType.Int(8, true);
      case "SMALLINT" -> new ArrowType.Int(16, true);
      case "INTEGER" -> new ArrowType.Int(32, true);
      case "BIGINT" -> new ArrowType.Int(64, true);
      case "UTINYINT" -> new ArrowType.Int(8, false);
      case "USMALLINT" -> new ArrowType.Int(16, false);
      case "UINTEGER" -> new ArrowType.Int(32, false);
      case "UBIGINT" -> new ArrowType.Int(64, false);
      case "FLOAT" -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case "DOUBLE" -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case "DATE" -> new ArrowType.Date(DateUnit.DAY);
      // milliseconds: the JDBC driver (18.3) writes a Timestamp's epoch milliseconds into the
      // vector whatever its unit
      case "TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS", "TIMESTAMP WITH TIME ZONE" ->
          new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC");
      default -> ArrowType.Utf8.INSTANCE;
    };
  }

  /** {@code sql} with every parameter a NULL of its type (for the result's schema). */
  static String withNulls(SqlEngine engine, String sql, List<String> types) {
    List<String> literals = new ArrayList<>();
    for (String t : types) {
      literals.add("CAST(NULL AS " + castType(t) + ")");
    }
    return substitute(engine, sql, literals);
  }

  /** {@code sql} bound to each row of {@code parameters}: one statement per row. */
  static List<String> bind(
      SqlEngine engine, String sql, List<String> types, VectorSchemaRoot parameters) {
    if (parameters.getFieldVectors().size() != types.size()) {
      throw new ZaroException(
          ErrorKind.INVALID_ARGUMENT,
          "sql: the statement has "
              + types.size()
              + " parameters, the client sent "
              + parameters.getFieldVectors().size());
    }
    List<String> out = new ArrayList<>();
    for (int r = 0; r < parameters.getRowCount(); r++) {
      List<String> literals = new ArrayList<>();
      for (int i = 0; i < types.size(); i++) {
        literals.add(literal(parameters.getVector(i), r, types.get(i)));
      }
      out.add(substitute(engine, sql, literals));
    }
    return out;
  }

  private static String castType(String duck) {
    return duck.equals("INVALID") || duck.equals("UNKNOWN") ? "VARCHAR" : duck;
  }

  /** Row {@code r} of {@code v} as a DuckDB literal of type {@code duck}. */
  static String literal(FieldVector v, int r, String duck) {
    String type = castType(duck);
    if (v.isNull(r)) {
      return "CAST(NULL AS " + type + ")";
    }
    String text;
    if (v instanceof BitVector b) {
      text = b.get(r) != 0 ? "true" : "false";
    } else if (v instanceof FloatingPointVector f) {
      text = Double.toString(f.getValueAsDouble(r)); // NaN, Infinity: cast from text below
    } else if (v instanceof DateDayVector d) {
      text = LocalDate.ofEpochDay(d.get(r)).toString();
    } else if (v instanceof DateMilliVector d) {
      text = LocalDate.ofEpochDay(Math.floorDiv(d.get(r), 86_400_000L)).toString();
    } else if (v instanceof TimeStampVector t) {
      text = timestamp(t, r);
    } else if (v instanceof VarCharVector s) {
      text = new String(s.get(r), StandardCharsets.UTF_8);
    } else {
      Object o = v.getObject(r);
      text =
          o instanceof BigDecimal d
              ? d.toPlainString()
              : o instanceof Text t ? t.toString() : String.valueOf(o);
    }
    return "CAST('" + text.replace("'", "''") + "' AS " + type + ")";
  }

  /** A timestamp as UTC text with microseconds (a zoned vector counts from 1970 UTC too). */
  private static String timestamp(TimeStampVector t, int r) {
    long value = t.get(r);
    ArrowType.Timestamp type = (ArrowType.Timestamp) t.getField().getType();
    Instant instant =
        switch (type.getUnit()) {
          case SECOND -> Instant.ofEpochSecond(value);
          case MILLISECOND -> Instant.ofEpochMilli(value);
          case MICROSECOND ->
              Instant.ofEpochSecond(
                  Math.floorDiv(value, 1_000_000L), Math.floorMod(value, 1_000_000L) * 1000L);
          case NANOSECOND ->
              Instant.ofEpochSecond(
                  Math.floorDiv(value, 1_000_000_000L), Math.floorMod(value, 1_000_000_000L));
        };
    return LocalDateTime.ofInstant(instant, ZoneOffset.UTC).toString().replace('T', ' ');
  }

  /**
   * {@code sql} with its parameters (in order) replaced by the expressions {@code literals}, as
   * DuckDB prints the statement back.
   */
  private static String substitute(SqlEngine engine, String sql, List<String> literals) {
    try (Connection c = engine.catalogConnection()) {
      JsonNode parsed = serialize(c, sql);
      if (parsed.path("error").asBoolean(true) || parsed.path("statements").size() != 1) {
        throw new ZaroException(
            ErrorKind.INVALID_ARGUMENT,
            "sql: only a single query (SELECT) takes parameters here"
                + (parsed.has("error_message")
                    ? ": " + parsed.path("error_message").asText()
                    : ""));
      }
      ObjectNode statement = (ObjectNode) parsed.path("statements").get(0);
      Map<String, Integer> index = new HashMap<>();
      for (JsonNode entry : statement.path("named_param_map")) {
        index.put(entry.path("key").asText(), entry.path("value").asInt());
      }
      JsonNode values =
          serialize(c, "SELECT " + String.join(", ", literals))
              .path("statements")
              .get(0)
              .path("node")
              .path("select_list");
      replace(statement, index, values);
      statement.putArray("named_param_map");
      ObjectNode doc = Json.createObjectNode();
      doc.put("error", false);
      doc.putArray("statements").add(statement);
      try (PreparedStatement p = c.prepareStatement("SELECT json_deserialize_sql(?::JSON)")) {
        p.setString(1, doc.toString());
        try (ResultSet rs = p.executeQuery()) {
          rs.next();
          return rs.getString(1);
        }
      }
    } catch (SQLException | IOException e) {
      throw new ZaroException(
          ErrorKind.INVALID_ARGUMENT, "sql: cannot bind the parameters: " + e.getMessage(), e);
    }
  }

  private static JsonNode serialize(Connection c, String sql) throws SQLException, IOException {
    try (PreparedStatement p = c.prepareStatement("SELECT json_serialize_sql(?)")) {
      p.setString(1, sql);
      try (ResultSet rs = p.executeQuery()) {
        rs.next();
        return Json.readTree(rs.getString(1));
      }
    }
  }

  /** Replaces each parameter node under {@code node} by its value's expression. */
  private static void replace(JsonNode node, Map<String, Integer> index, JsonNode values) {
    if (node instanceof ObjectNode o) {
      List<String> names = new ArrayList<>();
      o.fieldNames().forEachRemaining(names::add);
      for (String f : names) {
        JsonNode child = o.get(f);
        JsonNode value = valueFor(child, index, values);
        if (value != null) {
          o.set(f, value);
        } else {
          replace(child, index, values);
        }
      }
    } else if (node instanceof ArrayNode a) {
      for (int i = 0; i < a.size(); i++) {
        JsonNode value = valueFor(a.get(i), index, values);
        if (value != null) {
          a.set(i, value);
        } else {
          replace(a.get(i), index, values);
        }
      }
    }
  }

  private static JsonNode valueFor(JsonNode node, Map<String, Integer> index, JsonNode values) {
    if (!node.path("class").asText("").equals("PARAMETER")) {
      return null;
    }
    String id = node.path("identifier").asText("");
    Integer i = index.get(id);
    if (i == null || i < 1 || i > values.size()) {
      throw new ZaroException(ErrorKind.INVALID_ARGUMENT, "sql: no value for the parameter " + id);
    }
    return values.get(i - 1).deepCopy();
  }
}
