package dev.zaro.arrow.vector;

import dev.zaro.arrow.read.Slab;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A slab's tensor layout as a stream of record batches, each a zero-copy slice of rows of the
 * slab's buffer. The reader owns the slab and closes it with itself.
 */
public final class SlabReader extends ArrowReader {
  private final Slab slab;
  private final long rowsPerBatch;
  private long nextRow;

  /**
   * @param batchBytes upper bound of one batch's size (at least one row per batch)
   */
  public SlabReader(Slab slab, long batchBytes, BufferAllocator allocator) {
    super(allocator);
    this.slab = slab;
    long rows = SlabVectors.rows(slab);
    long rowBytes = rows == 0 ? 1 : Math.max(1, slab.byteSize() / rows);
    this.rowsPerBatch = Math.max(1, batchBytes / rowBytes);
  }

  @Override
  public boolean loadNextBatch() throws java.io.IOException {
    prepareLoadNextBatch();
    long rows = SlabVectors.rows(slab);
    if (nextRow >= rows && !(rows == 0 && nextRow == 0)) {
      return false;
    }
    long n = Math.min(rowsPerBatch, rows - nextRow);
    try (FieldVector vector = SlabVectors.tensor(slab, nextRow, n);
        VectorSchemaRoot batch =
            new VectorSchemaRoot(List.of(vector.getField()), List.of(vector), (int) n);
        ArrowRecordBatch record = new VectorUnloader(batch).getRecordBatch()) {
      loadRecordBatch(record);
    }
    nextRow += Math.max(n, 1);
    return true;
  }

  @Override
  public long bytesRead() {
    return 0;
  }

  @Override
  protected void closeReadSource() {
    slab.close();
  }

  @Override
  protected Schema readSchema() {
    return new Schema(List.of(SlabVectors.tensorField(slab)));
  }
}
