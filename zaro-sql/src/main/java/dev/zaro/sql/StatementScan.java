package dev.zaro.sql;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * What one SELECT statement needs from each table it names, read from DuckDB's own parse of it (the
 * {@code json_serialize_sql} tree of one statement; no SQL is parsed here).
 *
 * <p>Every table reference anywhere in the statement (joins, subqueries, CTEs, set operations) is
 * one {@link Use}. A use carries the conjuncts of the WHERE clause of the SELECT whose FROM holds
 * it directly, when they compare one of its columns with a constant ({@code =, <, <=, >, >=},
 * {@code BETWEEN}, {@code IN}); every other use carries none. Column names are every name any
 * column reference mentions, so a table's projection is a superset of what DuckDB reads from it.
 * Both are safe to push into a read because DuckDB still evaluates every predicate itself: a pushed
 * range may only be wider than what the query keeps, never narrower. Joins other than plain
 * inner/outer/cross ones (ASOF, POSITIONAL, ...) and sampled FROM clauses contribute no conditions,
 * since filtering their inputs first would change the result.
 */
final class StatementScan {
  /**
   * A condition's comparison: one constant for EQ..GE, two (lower, upper) for BETWEEN, several for
   * IN.
   */
  enum Op {
    EQ,
    LT,
    LE,
    GT,
    GE,
    BETWEEN,
    IN
  }

  /**
   * {@code column op constants}; the constants are DuckDB expression trees without column
   * references.
   */
  record Condition(String column, Op op, List<JsonNode> constants) {}

  /**
   * One reference to a table: the name as written (lower case), its alias, and its conditions
   * (ANDed).
   */
  record Use(String table, String alias, List<Condition> conditions) {}

  private final List<Use> uses = new ArrayList<>();
  private final Set<String> names = new TreeSet<>();
  private final Set<String> singleNames = new TreeSet<>();
  private final Set<String> cteNames = new TreeSet<>();
  private boolean star;
  private final IdentityHashMap<JsonNode, List<Condition>> conditions = new IdentityHashMap<>();

  /**
   * Scans one statement. {@code columnsOf} gives the (lower-case) columns of a table by its
   * lower-case name, or null for names that are not zaro tables; it resolves unqualified column
   * names in joins.
   */
  StatementScan(JsonNode statement, Function<String, Set<String>> columnsOf) {
    collectCtes(statement);
    visit(statement, columnsOf);
  }

  /** Every reference to a base table that is not a CTE name, in order of appearance. */
  List<Use> uses() {
    return uses;
  }

  /** Every name mentioned by a column reference (each part of a qualified one), lower case. */
  Set<String> names() {
    return names;
  }

  /** Names used alone as a column reference (a bare table name there means the whole row). */
  Set<String> singleNames() {
    return singleNames;
  }

  /** True if a {@code *} or {@code COLUMNS(...)} appears anywhere: every column may be read. */
  boolean star() {
    return star;
  }

  private void collectCtes(JsonNode node) {
    if (node.isObject()) {
      JsonNode map = node.path("cte_map").path("map");
      for (JsonNode entry : map) {
        if (entry.path("key").isTextual()) {
          cteNames.add(lower(entry.get("key").asText()));
        }
      }
    }
    if (node.isContainerNode()) {
      node.forEach(this::collectCtes);
    }
  }

  private void visit(JsonNode node, Function<String, Set<String>> columns) {
    if (node.isArray()) {
      node.forEach(n -> visit(n, columns));
      return;
    }
    if (!node.isObject()) {
      return;
    }
    String cls = node.path("class").asText("");
    String type = node.path("type").asText("");
    if (cls.equals("COLUMN_REF")) {
      JsonNode parts = node.path("column_names");
      parts.forEach(p -> names.add(lower(p.asText())));
      if (parts.size() == 1) {
        singleNames.add(lower(parts.get(0).asText()));
      }
    } else if (cls.equals("STAR") || type.equals("PIVOT")) {
      star = true; // PIVOT groups by every column it does not name
    } else if (type.equals("JOIN")) {
      node.path("using_columns").forEach(c -> names.add(lower(c.asText())));
      if (node.path("ref_type").asText("").equals("NATURAL")) {
        star = true; // joins on every common column: all may be read
      }
    } else if (type.equals("SELECT_NODE")) {
      selectNode(node, columns);
    } else if (type.equals("BASE_TABLE") && isUnqualified(node)) {
      String table = lower(node.path("table_name").asText());
      if (!cteNames.contains(table)) {
        List<Condition> found = conditions.get(node);
        uses.add(
            new Use(
                table, lower(node.path("alias").asText("")), found == null ? List.of() : found));
      }
    }
    node.forEach(n -> visit(n, columns));
  }

  private static boolean isUnqualified(JsonNode ref) {
    String catalog = ref.path("catalog_name").asText("");
    String schema = ref.path("schema_name").asText("");
    boolean timeTravel = !ref.path("at_clause").isNull() && !ref.path("at_clause").isMissingNode();
    return (catalog.isEmpty() || catalog.equalsIgnoreCase("temp"))
        && (schema.isEmpty() || schema.equalsIgnoreCase("main"))
        && !timeTravel;
  }

  /** Attaches the WHERE conjuncts of a SELECT to the base tables its FROM holds directly. */
  private void selectNode(JsonNode select, Function<String, Set<String>> columns) {
    if (!select.path("sample").isNull() && !select.path("sample").isMissingNode()) {
      return;
    }
    List<JsonNode> direct = new ArrayList<>();
    boolean[] opaque = {false};
    if (!directTables(select.path("from_table"), direct, opaque) || direct.isEmpty()) {
      return;
    }
    List<JsonNode> conjuncts = new ArrayList<>();
    flatten(select.path("where_clause"), conjuncts);
    for (JsonNode conjunct : conjuncts) {
      Condition c = condition(conjunct);
      if (c == null) {
        continue;
      }
      JsonNode ref = resolve(c.column(), direct, opaque[0], columns);
      if (ref != null) {
        String column =
            c.column().contains(".")
                ? c.column().substring(c.column().lastIndexOf('.') + 1)
                : c.column();
        conditions
            .computeIfAbsent(ref, k -> new ArrayList<>())
            .add(new Condition(column, c.op(), c.constants()));
      }
    }
  }

  /**
   * Collects the base tables directly in a FROM clause; false if a join there must not be filtered
   * first. {@code opaque} is set when other relations (subqueries, table functions) sit beside
   * them, whose columns are unknown.
   */
  private static boolean directTables(JsonNode from, List<JsonNode> out, boolean[] opaque) {
    String type = from.path("type").asText("");
    if (!from.path("sample").isNull() && !from.path("sample").isMissingNode()) {
      opaque[0] = true;
      return true; // a sampled input keeps no conditions, but its siblings may
    }
    switch (type) {
      case "BASE_TABLE" -> {
        if (isUnqualified(from)) {
          out.add(from);
        } else {
          opaque[0] = true;
        }
        return true;
      }
      case "JOIN" -> {
        String ref = from.path("ref_type").asText("");
        String join = from.path("join_type").asText("");
        if (!(ref.equals("REGULAR") || ref.equals("CROSS") || ref.equals("NATURAL"))
            || !(join.equals("INNER")
                || join.equals("LEFT")
                || join.equals("RIGHT")
                || join.equals("OUTER"))) {
          return false;
        }
        return directTables(from.path("left"), out, opaque)
            && directTables(from.path("right"), out, opaque);
      }
      case "EMPTY" -> {
        return true;
      }
      default -> {
        opaque[0] = true;
        return true;
      }
    }
  }

  /** The direct table a column reference names, or null if unknown or ambiguous. */
  private JsonNode resolve(
      String column, List<JsonNode> direct, boolean opaque, Function<String, Set<String>> columns) {
    int dot = column.lastIndexOf('.');
    if (dot >= 0) {
      String qualifier = column.substring(0, dot);
      JsonNode found = null;
      for (JsonNode ref : direct) {
        String alias = lower(ref.path("alias").asText(""));
        String name = alias.isEmpty() ? lower(ref.path("table_name").asText()) : alias;
        if (name.equals(qualifier)) {
          if (found != null) {
            return null;
          }
          found = ref;
        }
      }
      return found;
    }
    if (opaque) {
      return null;
    }
    JsonNode found = null;
    for (JsonNode ref : direct) {
      Set<String> cols = columns.apply(lower(ref.path("table_name").asText()));
      if (cols == null || cteNames.contains(lower(ref.path("table_name").asText()))) {
        return null; // a relation whose columns are unknown could hold the name too
      }
      if (cols.contains(column)) {
        if (found != null) {
          return null;
        }
        found = ref;
      }
    }
    return found;
  }

  private static void flatten(JsonNode expr, List<JsonNode> out) {
    if (expr.path("type").asText("").equals("CONJUNCTION_AND")) {
      expr.path("children").forEach(c -> flatten(c, out));
    } else if (expr.isObject()) {
      out.add(expr);
    }
  }

  /**
   * The condition a conjunct states on one column, or null. The column comes back as {@code name}
   * or {@code qualifier.name}, lower case.
   */
  private static Condition condition(JsonNode e) {
    String type = e.path("type").asText("");
    switch (type) {
      case "COMPARE_EQUAL",
          "COMPARE_LESSTHAN",
          "COMPARE_LESSTHANOREQUALTO",
          "COMPARE_GREATERTHAN",
          "COMPARE_GREATERTHANOREQUALTO" -> {
        if (!e.path("class").asText("").equals("COMPARISON")) {
          return null;
        }
        Op op =
            switch (type) {
              case "COMPARE_EQUAL" -> Op.EQ;
              case "COMPARE_LESSTHAN" -> Op.LT;
              case "COMPARE_LESSTHANOREQUALTO" -> Op.LE;
              case "COMPARE_GREATERTHAN" -> Op.GT;
              default -> Op.GE;
            };
        String left = column(e.path("left"));
        String right = column(e.path("right"));
        if (left != null && isConstant(e.path("right"))) {
          return new Condition(left, op, List.of(e.path("right")));
        }
        if (right != null && isConstant(e.path("left"))) {
          Op flipped =
              switch (op) {
                case LT -> Op.GT;
                case LE -> Op.GE;
                case GT -> Op.LT;
                case GE -> Op.LE;
                default -> op;
              };
          return new Condition(right, flipped, List.of(e.path("left")));
        }
        return null;
      }
      case "COMPARE_BETWEEN" -> {
        String input = column(e.path("input"));
        if (input == null || !isConstant(e.path("lower")) || !isConstant(e.path("upper"))) {
          return null;
        }
        return new Condition(input, Op.BETWEEN, List.of(e.path("lower"), e.path("upper")));
      }
      case "COMPARE_IN" -> {
        JsonNode children = e.path("children");
        if (children.size() < 2) {
          return null;
        }
        String input = column(children.get(0));
        if (input == null) {
          return null;
        }
        List<JsonNode> values = new ArrayList<>();
        for (int i = 1; i < children.size(); i++) {
          if (!isConstant(children.get(i))) {
            return null;
          }
          values.add(children.get(i));
        }
        return new Condition(input, Op.IN, values);
      }
      default -> {
        return null;
      }
    }
  }

  /** {@code name} or {@code qualifier.name} of a column reference (lower case), else null. */
  private static String column(JsonNode e) {
    if (!e.path("class").asText("").equals("COLUMN_REF")) {
      return null;
    }
    JsonNode parts = e.path("column_names");
    if (parts.size() == 1) {
      return lower(parts.get(0).asText());
    }
    if (parts.size() >= 2) {
      return lower(parts.get(parts.size() - 2).asText())
          + "."
          + lower(parts.get(parts.size() - 1).asText());
    }
    return null;
  }

  /**
   * True for expressions DuckDB evaluates to the same value for every row and every run: literals,
   * casts of them and arithmetic on them (no columns, parameters, subqueries or functions such as
   * random() or now()). Casts to time-zone-dependent or nanosecond types are left out.
   */
  static boolean isConstant(JsonNode e) {
    String cls = e.path("class").asText("");
    switch (cls) {
      case "CONSTANT" -> {
        String text = e.toString().toUpperCase(Locale.ROOT);
        return !text.contains("TIME_TZ")
            && !text.contains("TIMESTAMP_TZ")
            && !text.contains("TIMESTAMP_NS");
      }
      case "CAST" -> {
        String type = castType(e).toUpperCase(Locale.ROOT);
        return !type.contains("TZ")
            && !type.contains("TIME ZONE")
            && !type.contains("_NS")
            && isConstant(e.path("child"));
      }
      case "FUNCTION" -> {
        String f = e.path("function_name").asText("");
        if (!(f.equals("+") || f.equals("-") || f.equals("*") || f.equals("/"))
            || e.path("children").isEmpty()) {
          return false;
        }
        for (JsonNode c : e.path("children")) {
          if (!isConstant(c)) {
            return false;
          }
        }
        return true;
      }
      default -> {
        return false;
      }
    }
  }

  /** The JSON of a cast's target type (DuckDB names it cast_type or type_expr, by version). */
  private static String castType(JsonNode cast) {
    JsonNode type = cast.has("type_expr") ? cast.get("type_expr") : cast.path("cast_type");
    return type.toString();
  }

  static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }
}
