package dev.zaro.trino;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.vector.DimensionColumn;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorPageSourceProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.transaction.IsolationLevel;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * One {@code zarr} catalog on one node (coordinator or worker): its store, opened once when first
 * needed and shared by every query and split on the node (a {@link Zaro} is thread-safe), the
 * arrays' dimension columns (each coordinate read once, when a filter or a read first needs it),
 * and the allocator every split's reads come from. Owns them; {@link #shutdown()} closes them.
 */
final class ZarrConnector implements Connector {
  private final String catalog;
  private final ZarrConfig config;
  private final ZarrMetadata metadata;
  private final ZarrSplitManager splits;
  private final ZarrPageSourceProvider pages;
  private final BufferAllocator allocator = new RootAllocator();
  private final Map<String, List<DimensionColumn>> dimensions = new ConcurrentHashMap<>();
  private Zaro zaro;

  ZarrConnector(String catalog, ZarrConfig config) {
    this.catalog = catalog;
    this.config = config;
    this.metadata = new ZarrMetadata(this);
    this.splits = new ZarrSplitManager(this);
    this.pages = new ZarrPageSourceProvider(this);
  }

  ZarrConfig config() {
    return config;
  }

  String catalog() {
    return catalog;
  }

  TableOptions tableOptions() {
    return TableOptions.DEFAULT.withCf(!config.raw());
  }

  /** The open store, opened on first use; a store that cannot be opened fails the query. */
  synchronized Zaro zaro() {
    if (zaro == null) {
      try {
        zaro = config.open();
      } catch (ZaroException e) {
        throw storeError("open", e);
      }
    }
    return zaro;
  }

  /** The error of a store that cannot be opened or listed ({@code what}), naming the catalog. */
  TrinoException storeError(String what, ZaroException e) {
    return new TrinoException(
        ZarrErrorCode.ZARR_STORE_ERROR,
        "zarr: catalog '"
            + catalog
            + "': cannot "
            + what
            + " store '"
            + config.store()
            + "': "
            + e.getMessage(),
        e);
  }

  /** The dimension columns of the array at {@code path} (coordinates read lazily, once). */
  List<DimensionColumn> dimensions(String path) {
    return dimensions.computeIfAbsent(path, p -> zaro().dimensionColumns(p, tableOptions()));
  }

  /** The allocator the reads of this node's splits take children of. */
  BufferAllocator allocator() {
    return allocator;
  }

  @Override
  public ConnectorTransactionHandle beginTransaction(
      IsolationLevel isolationLevel, boolean readOnly, boolean autoCommit) {
    return ZarrTransactionHandle.INSTANCE;
  }

  @Override
  public ConnectorMetadata getMetadata(
      ConnectorSession session, ConnectorTransactionHandle transaction) {
    return metadata;
  }

  @Override
  public ConnectorSplitManager getSplitManager() {
    return splits;
  }

  @Override
  public ConnectorPageSourceProvider getPageSourceProvider() {
    return pages;
  }

  @Override
  public synchronized void shutdown() {
    if (zaro != null) {
      zaro.close();
      zaro = null;
    }
    allocator.close();
  }
}
