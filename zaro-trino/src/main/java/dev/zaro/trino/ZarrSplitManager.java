package dev.zaro.trino;

import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.plan.ReadPlan;
import dev.zaro.arrow.plan.Selection;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.FixedSplitSource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * A table's splits: zaro's read plan of the narrowed selection cut into pieces of about {@code
 * zarr.split-size} decoded bytes ({@link ReadPlan#pieces}: on chunk boundaries, on shard boundaries
 * where the array is sharded, whole runs of the leading dimension's chunks first, no two pieces
 * overlapping). Computed arithmetically on the coordinator: no chunk is listed or read. With a
 * pushed-down limit, pieces stop once they hold that many rows.
 */
final class ZarrSplitManager implements ConnectorSplitManager {
  private final ZarrConnector connector;

  ZarrSplitManager(ZarrConnector connector) {
    this.connector = connector;
  }

  @Override
  public ConnectorSplitSource getSplits(
      ConnectorTransactionHandle transaction,
      ConnectorSession session,
      ConnectorTableHandle table,
      Set<ColumnHandle> columns,
      Constraint constraint) {
    return new FixedSplitSource(splits((ZarrTableHandle) table));
  }

  /** The splits of a table handle, in C order. */
  List<ConnectorSplit> splits(ZarrTableHandle handle) {
    Selection selection = handle.selection();
    if (selection.size() == 0) {
      return List.of();
    }
    ArrayMetadata meta = connector.zaro().meta(handle.path());
    ReadPlan plan = ReadPlan.of(meta, selection);
    long target = connector.config().splitBytes();
    long itemBytes = Math.max(1, plan.decodedBytes() / selection.size());
    long left = handle.limit().orElse(Long.MAX_VALUE);
    List<ConnectorSplit> out = new ArrayList<>();
    for (Iterator<Selection> pieces = plan.pieces(target); pieces.hasNext() && left > 0; ) {
      Selection piece = pieces.next();
      long rows = Math.min(piece.size(), left);
      left -= rows;
      out.add(
          new ZarrSplit(
              handle.path(), piece.canonical(), rows, (double) rows * itemBytes / target));
    }
    return out;
  }
}
