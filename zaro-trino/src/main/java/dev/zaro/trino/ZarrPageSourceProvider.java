package dev.zaro.trino;

import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.ConnectorPageSourceProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorTableCredentials;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.connector.MemoryContext;
import java.util.List;
import java.util.Optional;

/** Reads a split on the worker Trino runs it on ({@link ZarrPageSource}). */
final class ZarrPageSourceProvider implements ConnectorPageSourceProvider {
  private final ZarrConnector connector;

  ZarrPageSourceProvider(ZarrConnector connector) {
    this.connector = connector;
  }

  @Override
  public ConnectorPageSource createPageSource(
      ConnectorTransactionHandle transaction,
      ConnectorSession session,
      ConnectorSplit split,
      ConnectorTableHandle table,
      Optional<ConnectorTableCredentials> credentials,
      List<ColumnHandle> columns,
      DynamicFilter dynamicFilter,
      MemoryContext memory) {
    return new ZarrPageSource(
        connector,
        (ZarrSplit) split,
        columns.stream().map(ZarrColumnHandle.class::cast).toList(),
        memory);
  }
}
