package dev.zaro.trino;

import io.trino.spi.TrinoException;
import io.trino.spi.connector.Assignment;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.ConnectorTableVersion;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.ConstraintApplicationResult;
import io.trino.spi.connector.LimitApplicationResult;
import io.trino.spi.connector.ProjectionApplicationResult;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.expression.ConnectorExpression;
import io.trino.spi.statistics.ColumnStatistics;
import io.trino.spi.statistics.Estimate;
import io.trino.spi.statistics.TableStatistics;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Schemas, tables and columns ({@link ZarrTables}), and the pushdown into a table's read: {@code
 * applyFilter} narrows the index ranges by predicates on dimension columns ({@link ZarrPushdown}),
 * {@code applyProjection} records the columns read, {@code applyLimit} caps the rows planned;
 * statistics give the row count of what is left. Read-only; stateless beyond the connector's
 * listing.
 */
final class ZarrMetadata implements ConnectorMetadata {
  private final ZarrConnector connector;
  private final ZarrTables tables;

  ZarrMetadata(ZarrConnector connector) {
    this.connector = connector;
    this.tables = new ZarrTables(connector);
  }

  ZarrTables tables() {
    return tables;
  }

  @Override
  public List<String> listSchemaNames(ConnectorSession session) {
    return tables.schemas();
  }

  @Override
  public boolean schemaExists(ConnectorSession session, String schemaName) {
    return tables.schemaExists(schemaName);
  }

  @Override
  public ConnectorTableHandle getTableHandle(
      ConnectorSession session,
      SchemaTableName tableName,
      Optional<ConnectorTableVersion> startVersion,
      Optional<ConnectorTableVersion> endVersion) {
    if (startVersion.isPresent() || endVersion.isPresent()) {
      throw new TrinoException(
          ZarrErrorCode.ZARR_BAD_INPUT,
          "zarr: tables have no versions here; an Icechunk catalog names its branch, tag or"
              + " snapshot in its properties (zarr.icechunk.*)");
    }
    Optional<String> path = tables.path(tableName);
    if (path.isEmpty() || tables.columns(path.get()).isEmpty()) {
      return null;
    }
    return ZarrTableHandle.of(tableName, path.get(), connector.zaro().meta(path.get()).shape());
  }

  @Override
  public ConnectorTableMetadata getTableMetadata(
      ConnectorSession session, ConnectorTableHandle table) {
    ZarrTableHandle handle = (ZarrTableHandle) table;
    return new ConnectorTableMetadata(
        handle.name(), columns(handle).stream().map(ZarrColumnHandle::metadata).toList());
  }

  @Override
  public List<SchemaTableName> listTables(ConnectorSession session, Optional<String> schemaName) {
    return tables.tables(schemaName);
  }

  @Override
  public Map<String, ColumnHandle> getColumnHandles(
      ConnectorSession session, ConnectorTableHandle table) {
    Map<String, ColumnHandle> out = new LinkedHashMap<>();
    for (ZarrColumnHandle c : columns((ZarrTableHandle) table)) {
      out.put(ZarrTables.lower(c.name()), c);
    }
    return out;
  }

  @Override
  public ColumnMetadata getColumnMetadata(
      ConnectorSession session, ConnectorTableHandle table, ColumnHandle column) {
    return ((ZarrColumnHandle) column).metadata();
  }

  private List<ZarrColumnHandle> columns(ZarrTableHandle handle) {
    return tables
        .columns(handle.path())
        .orElseThrow(
            () ->
                new TrinoException(
                    ZarrErrorCode.ZARR_BAD_INPUT, "zarr: no table " + handle.name()));
  }

  @Override
  public TableStatistics getTableStatistics(ConnectorSession session, ConnectorTableHandle table) {
    ZarrTableHandle handle = (ZarrTableHandle) table;
    long rows = handle.selection().size();
    if (handle.limit().isPresent()) {
      rows = Math.min(rows, handle.limit().getAsLong());
    }
    TableStatistics.Builder stats =
        TableStatistics.builder().setRowCount(Estimate.of((double) rows));
    for (ZarrColumnHandle c : columns(handle)) {
      if (c.dimension() >= 0) {
        long distinct = handle.hi().get(c.dimension()) - handle.lo().get(c.dimension());
        stats.setColumnStatistics(
            c,
            ColumnStatistics.builder()
                .setNullsFraction(Estimate.zero())
                .setDistinctValuesCount(Estimate.of((double) Math.max(0, distinct)))
                .build());
      }
    }
    return stats.build();
  }

  @Override
  public Optional<ConstraintApplicationResult<ConnectorTableHandle>> applyFilter(
      ConnectorSession session, ConnectorTableHandle table, Constraint constraint) {
    ZarrTableHandle handle = (ZarrTableHandle) table;
    ZarrPushdown.Result result =
        ZarrPushdown.narrow(
            handle,
            connector.dimensions(handle.path()),
            connector.zaro().meta(handle.path()).shape(),
            constraint.getSummary());
    if (result.handle().equals(handle)) {
      return Optional.empty();
    }
    return Optional.of(
        new ConstraintApplicationResult<>(
            result.handle(), result.remaining(), constraint.getExpression(), false));
  }

  @Override
  public Optional<ProjectionApplicationResult<ConnectorTableHandle>> applyProjection(
      ConnectorSession session,
      ConnectorTableHandle table,
      List<ConnectorExpression> projections,
      Map<String, ColumnHandle> assignments) {
    ZarrTableHandle handle = (ZarrTableHandle) table;
    List<String> wanted = new ArrayList<>();
    for (ZarrColumnHandle c : columns(handle)) {
      if (assignments.containsValue(c)) {
        wanted.add(c.name());
      }
    }
    if (handle.columns().isPresent() && handle.columns().get().equals(wanted)) {
      return Optional.empty();
    }
    List<Assignment> out =
        assignments.entrySet().stream()
            .map(
                e ->
                    new Assignment(
                        e.getKey(), e.getValue(), ((ZarrColumnHandle) e.getValue()).type()))
            .collect(Collectors.toList());
    return Optional.of(
        new ProjectionApplicationResult<>(handle.withColumns(wanted), projections, out, false));
  }

  @Override
  public Optional<LimitApplicationResult<ConnectorTableHandle>> applyLimit(
      ConnectorSession session, ConnectorTableHandle table, long limit) {
    ZarrTableHandle handle = (ZarrTableHandle) table;
    if (handle.limit().isPresent() && handle.limit().getAsLong() <= limit) {
      return Optional.empty();
    }
    return Optional.of(new LimitApplicationResult<>(handle.withLimit(limit), false, false));
  }
}
