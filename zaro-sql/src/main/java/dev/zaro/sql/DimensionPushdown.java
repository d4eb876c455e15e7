package dev.zaro.sql;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.plan.DimensionFilter;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.vector.DimensionColumn;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.ArrowType.Timestamp;
import org.apache.arrow.vector.types.pojo.ArrowType.Utf8;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The pushdown of one table's uses in a statement ({@link StatementScan}) into its read: the
 * columns they can read, and the hull of the index ranges their conditions on dimension columns
 * allow ({@link DimensionFilter}), with the constants as DuckDB evaluated them ({@link
 * DuckDbParser#evaluate}). DuckDB still applies every predicate on top, so results never depend on
 * the pushdown.
 */
final class DimensionPushdown {
  private DimensionPushdown() {}

  /** The columns a table's uses can read, in layout order; null for all of them. */
  static List<String> columns(
      SqlEngine.TableInfo info,
      List<StatementScan.Use> uses,
      StatementScan scan,
      Set<String> allColumns) {
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
  static Selection narrow(
      SqlEngine.TableInfo info,
      List<StatementScan.Use> uses,
      Map<JsonNode, DuckDbParser.Constant> constants,
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
      SqlEngine.TableInfo info,
      StatementScan.Condition c,
      Map<JsonNode, DuckDbParser.Constant> constants) {
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
          DuckDbParser.Constant k = constants.get(constant);
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
      DuckDbParser.Constant k = constants.get(constant);
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
}
