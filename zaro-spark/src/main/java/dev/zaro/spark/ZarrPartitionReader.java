package dev.zaro.spark;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.ReadStats;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.vector.CoordinateColumns;
import dev.zaro.arrow.vector.DimensionColumn;
import dev.zaro.arrow.vector.TableReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Reads one partition: reopens the store from the options, streams the partition's selection of
 * each needed array through zaro's {@link TableReader} (one per array, over the same selection) and
 * hands Spark each batch as a {@link ColumnarBatch} viewing the readers' Arrow vectors in place.
 * Memory is bounded by one record batch per array. Owns its allocator, store and readers, all
 * released by {@link #close()}; a batch stays valid until the next {@link #next()}.
 */
final class ZarrPartitionReader implements PartitionReader<ColumnarBatch> {
  private final BufferAllocator allocator;
  private final Zaro zaro;
  private final List<TableReader> readers = new ArrayList<>();

  /** Per output column: which reader, which of its vectors. */
  private final int[] columnReader;

  private final int[] columnVector;

  /** Per reader: rows of its current batch, rows of it already handed out, views of its vectors. */
  private final int[] batchRows;

  private final int[] used;
  private final ColumnVector[][] views;

  /** What this task's reads cost: its metrics. */
  private final ReadStats stats = new ReadStats();

  private ColumnarBatch current;

  /**
   * @param arrays the arrays to stream (the first also gives the dimension columns)
   * @param columns per output column: {@code -1 - d} for dimension column d, else the index of the
   *     array in {@code arrays} whose value column it is
   */
  ZarrPartitionReader(ZarrOptions options, String selection, List<String> arrays, int[] columns) {
    this(options, selection, arrays, columns, TableOptions.DEFAULT.batchRows());
  }

  /**
   * @param maxBatchRows at most this many rows per batch of each array (tests make it small)
   */
  ZarrPartitionReader(
      ZarrOptions options,
      String selection,
      List<String> arrays,
      int[] columns,
      long maxBatchRows) {
    this.allocator = new RootAllocator();
    Zaro opened = null;
    try {
      opened = options.open();
      this.zaro = opened;
      ReadOptions readOptions = ReadOptions.DEFAULT.withStats(stats);
      TableOptions tableOptions =
          TableOptions.DEFAULT.withCf(!options.raw()).withBatchRows(maxBatchRows);
      // one set of dimension columns (coordinates read once) serves every array of the table
      List<DimensionColumn> dimensions =
          zaro.dimensionColumns(arrays.get(0), tableOptions, allocator);
      Selection parsed = Selection.parse(selection, zaro.meta(arrays.get(0)).shape());
      for (int a = 0; a < arrays.size(); a++) {
        readers.add(
            new TableReader(
                zaro.array(arrays.get(a)),
                parsed,
                dimensions,
                // the dimension and coordinate columns come from the first array's reader
                a == 0 ? zaro.coordinateColumns(arrays.get(0)) : CoordinateColumns.NONE,
                tableOptions,
                readOptions,
                allocator));
      }
    } catch (RuntimeException e) {
      readers.forEach(ZarrPartitionReader::closeQuietly);
      if (opened != null) {
        opened.close();
      }
      allocator.close();
      throw e;
    }
    columnReader = new int[columns.length];
    columnVector = new int[columns.length];
    for (int c = 0; c < columns.length; c++) {
      if (columns[c] < 0) {
        columnReader[c] = 0;
        columnVector[c] = -1 - columns[c];
      } else {
        columnReader[c] = columns[c];
        columnVector[c] = -1;
      }
    }
    batchRows = new int[readers.size()];
    used = new int[readers.size()];
    views = new ColumnVector[readers.size()][];
  }

  @Override
  public boolean next() throws IOException {
    closeCurrent();
    int rows = Integer.MAX_VALUE;
    for (int r = 0; r < readers.size(); r++) {
      while (used[r] == batchRows[r]) {
        TableReader reader = readers.get(r);
        if (!reader.loadNextBatch()) {
          if (anyLeft()) {
            throw new ZaroException("zarr: the arrays of one table returned different row counts");
          }
          return false;
        }
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        batchRows[r] = root.getRowCount();
        used[r] = 0;
        views[r] =
            root.getFieldVectors().stream().map(SparkColumns::view).toArray(ColumnVector[]::new);
      }
      rows = Math.min(rows, batchRows[r] - used[r]);
    }
    ColumnVector[] columns = new ColumnVector[columnReader.length];
    for (int c = 0; c < columns.length; c++) {
      int r = columnReader[c];
      ColumnVector[] v = views[r];
      ColumnVector view = v[columnVector[c] < 0 ? v.length - 1 : columnVector[c]];
      columns[c] =
          used[r] == 0 && rows == batchRows[r]
              ? view
              : new ShiftedColumnVector(view, used[r], rows);
    }
    for (int r = 0; r < readers.size(); r++) {
      used[r] += rows;
    }
    current = new ColumnarBatch(columns, rows);
    return true;
  }

  /**
   * Whether a reader still holds rows (when another has ended: the arrays disagree on the row
   * count).
   */
  private boolean anyLeft() {
    for (int i = 0; i < readers.size(); i++) {
      if (used[i] < batchRows[i]) {
        return true;
      }
    }
    return false;
  }

  @Override
  public ColumnarBatch get() {
    return current;
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return new CustomTaskMetric[] {
      ZarrMetrics.task(ZarrMetrics.CHUNKS_READ, stats.chunksDecoded()),
      ZarrMetrics.task(ZarrMetrics.BYTES_FETCHED, stats.bytesFetched()),
      ZarrMetrics.task(ZarrMetrics.BYTES_DECODED, stats.bytesDecoded())
    };
  }

  private void closeCurrent() {
    current = null; // its vectors are views; the readers own the memory
  }

  @Override
  public void close() {
    closeCurrent();
    try {
      readers.forEach(ZarrPartitionReader::closeQuietly);
      zaro.close();
    } finally {
      allocator.close();
    }
  }

  private static void closeQuietly(TableReader reader) {
    try {
      reader.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
