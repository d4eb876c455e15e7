package dev.zaro.trino;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.ReadStats;
import dev.zaro.arrow.read.ZarrArray;
import dev.zaro.arrow.vector.TableReader;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.MemoryContext;
import io.trino.spi.connector.SourcePage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.OptionalLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Reads one split: the piece's selection of the array streamed through zaro's {@link TableReader}
 * (the table layout, CF decoded, only the columns asked for; none of the array's chunks when only
 * dimension columns are), each batch copied into a Trino page. A query that asks for no column
 * ({@code count(*)}) gets the piece's row count without any read. Owns its allocator (a child of
 * the connector's) and reader, both released by {@link #close()} or when the split ends.
 */
final class ZarrPageSource implements ConnectorPageSource {
  /** Rows per page: Trino's pages are best kept to about a megabyte per column. */
  static final int PAGE_ROWS = 1 << 17;

  private final ZarrSplit split;
  private final List<ZarrColumnHandle> columns;
  private final ReadStats stats = new ReadStats();
  private final MemoryContext memory;
  private BufferAllocator allocator;
  private TableReader reader;
  private long rowsLeft;
  private long readNanos;
  private boolean finished;

  /**
   * @param memory told the Arrow memory the read holds (the batch being converted and the chunks in
   *     flight), which Trino counts against the query's memory
   */
  ZarrPageSource(
      ZarrConnector connector,
      ZarrSplit split,
      List<ZarrColumnHandle> columns,
      MemoryContext memory) {
    this.split = split;
    this.memory = memory;
    this.columns = columns;
    this.rowsLeft = split.rows();
    if (columns.isEmpty() || rowsLeft == 0) {
      return; // rows without columns: nothing to read
    }
    long start = System.nanoTime();
    try {
      Zaro zaro = connector.zaro();
      ZarrArray array = zaro.array(split.path());
      Selection selection = Selection.parse(split.selection(), array.metadata().shape());
      allocator =
          connector
              .allocator()
              .newChildAllocator(
                  "zarr " + split.path() + " [" + split.selection() + "]", 0, Long.MAX_VALUE);
      reader =
          new TableReader(
              array,
              selection,
              connector.dimensions(split.path()),
              zaro.coordinateColumns(split.path()),
              connector
                  .tableOptions()
                  .withBatchRows(PAGE_ROWS)
                  .withColumns(columns.stream().map(ZarrColumnHandle::name).toList()),
              ReadOptions.DEFAULT.withStats(stats),
              allocator);
    } catch (RuntimeException e) {
      close();
      throw error(e);
    } finally {
      readNanos += System.nanoTime() - start;
    }
  }

  private TrinoException error(RuntimeException e) {
    if (e instanceof TrinoException t) {
      return t;
    }
    String message = e.getMessage() == null ? e.toString() : e.getMessage();
    return new TrinoException(
        ZarrErrorCode.ZARR_READ_ERROR,
        "zarr: reading array '" + split.path() + "' [" + split.selection() + "]: " + message,
        e);
  }

  @Override
  public SourcePage getNextSourcePage() {
    if (finished) {
      return null;
    }
    if (reader == null) {
      int rows = (int) Math.min(rowsLeft, PAGE_ROWS);
      rowsLeft -= rows;
      finished = rowsLeft == 0;
      return SourcePage.create(rows);
    }
    long start = System.nanoTime();
    try {
      if (rowsLeft == 0 || !reader.loadNextBatch()) {
        close();
        return null;
      }
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      int rows = (int) Math.min(rowsLeft, root.getRowCount());
      rowsLeft -= rows;
      Block[] blocks = new Block[columns.size()];
      for (int c = 0; c < blocks.length; c++) {
        FieldVector vector = root.getVector(columns.get(c).name());
        blocks[c] = TrinoColumns.block(vector, rows);
      }
      memory.setBytes(allocator.getAllocatedMemory());
      return SourcePage.create(new Page(rows, blocks));
    } catch (IOException e) {
      close();
      throw error(new UncheckedIOException(e));
    } catch (RuntimeException e) { // ZaroException and what a decoder throws on bad bytes
      close();
      throw error(e);
    } finally {
      readNanos += System.nanoTime() - start;
    }
  }

  @Override
  public long getCompletedBytes() {
    return stats.bytesDecoded();
  }

  @Override
  public OptionalLong getCompletedPositions() {
    return OptionalLong.of(split.rows() - rowsLeft);
  }

  @Override
  public long getReadTimeNanos() {
    return readNanos;
  }

  @Override
  public boolean isFinished() {
    return finished;
  }

  @Override
  public void close() {
    finished = true;
    try {
      if (reader != null) {
        reader.close();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      reader = null;
      if (allocator != null) {
        allocator.close();
        allocator = null;
        memory.setBytes(0);
      }
    }
  }
}
