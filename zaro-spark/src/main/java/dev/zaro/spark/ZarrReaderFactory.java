package dev.zaro.spark;

import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Sent to executors: the options (to reopen the store), the arrays to read and which column is
 * which. Reads are columnar only.
 *
 * @param columns per output column: {@code -1 - d} for dimension column d, else the index in {@code
 *     arrays} of the array whose value column it is
 */
@SuppressWarnings("ArrayRecordComponent") // sent to executors, never compared
record ZarrReaderFactory(ZarrOptions options, List<String> arrays, int[] columns)
    implements PartitionReaderFactory {

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return true;
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    return new ZarrPartitionReader(
        options, ((ZarrPartition) partition).selection(), arrays, columns);
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    throw new UnsupportedOperationException(
        "zarr: reads are columnar (supportColumnarReads is always true)");
  }
}
