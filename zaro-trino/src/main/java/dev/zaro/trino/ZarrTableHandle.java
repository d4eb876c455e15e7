package dev.zaro.trino;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.zaro.arrow.plan.Selection;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.SchemaTableName;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A table as the planner narrowed it: the array, the index ranges {@code [lo, hi)} per dimension
 * that pushed-down predicates on dimension columns leave ({@code applyFilter}), the columns a query
 * reads ({@code applyProjection}; empty: all) and a row limit ({@code applyLimit}).
 *
 * @param schema Trino's schema name (lower case)
 * @param table Trino's table name (lower case)
 * @param path the array's node path in the store
 * @param lo per dimension, the first index that can match
 * @param hi per dimension, one past the last index that can match
 */
public record ZarrTableHandle(
    @JsonProperty("schema") String schema,
    @JsonProperty("table") String table,
    @JsonProperty("path") String path,
    @JsonProperty("lo") List<Long> lo,
    @JsonProperty("hi") List<Long> hi,
    @JsonProperty("columns") Optional<List<String>> columns,
    @JsonProperty("limit") OptionalLong limit)
    implements ConnectorTableHandle {

  public ZarrTableHandle {
    lo = List.copyOf(lo);
    hi = List.copyOf(hi);
    columns = columns.map(List::copyOf);
  }

  /** Jackson's creator, from the JSON object as a map, as {@link ZarrSplit#fromJson}'s. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static ZarrTableHandle fromJson(Map<String, Object> json) {
    Object columns = json.get("columns");
    Object limit = json.get("limit");
    return new ZarrTableHandle(
        (String) json.get("schema"),
        (String) json.get("table"),
        (String) json.get("path"),
        longs(json.get("lo")),
        longs(json.get("hi")),
        columns == null
            ? Optional.empty()
            : Optional.of(((List<?>) columns).stream().map(String.class::cast).toList()),
        limit == null ? OptionalLong.empty() : OptionalLong.of(((Number) limit).longValue()));
  }

  private static List<Long> longs(Object json) {
    return ((List<?>) json).stream().map(n -> ((Number) n).longValue()).toList();
  }

  /** The whole array at {@code path}, of {@code shape}. */
  static ZarrTableHandle of(SchemaTableName name, String path, long[] shape) {
    List<Long> lo = new ArrayList<>();
    List<Long> hi = new ArrayList<>();
    for (long n : shape) {
      lo.add(0L);
      hi.add(n);
    }
    return new ZarrTableHandle(
        name.getSchemaName(),
        name.getTableName(),
        path,
        lo,
        hi,
        Optional.empty(),
        OptionalLong.empty());
  }

  SchemaTableName name() {
    return new SchemaTableName(schema, table);
  }

  /** The selection of the array the ranges leave (every dimension kept). */
  Selection selection() {
    List<Selection.Dim> dims = new ArrayList<>();
    boolean empty = false;
    for (int d = 0; d < lo.size(); d++) {
      empty |= hi.get(d) <= lo.get(d);
    }
    for (int d = 0; d < lo.size(); d++) {
      long count = empty ? (d == 0 ? 0 : hi.get(d) - lo.get(d)) : hi.get(d) - lo.get(d);
      dims.add(new Selection.Dim(lo.get(d), 1, Math.max(0, count), false));
    }
    return Selection.of(dims);
  }

  ZarrTableHandle withRanges(List<Long> newLo, List<Long> newHi) {
    return new ZarrTableHandle(schema, table, path, newLo, newHi, columns, limit);
  }

  ZarrTableHandle withColumns(List<String> newColumns) {
    return new ZarrTableHandle(schema, table, path, lo, hi, Optional.of(newColumns), limit);
  }

  ZarrTableHandle withLimit(long newLimit) {
    return new ZarrTableHandle(schema, table, path, lo, hi, columns, OptionalLong.of(newLimit));
  }
}
