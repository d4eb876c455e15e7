package dev.zaro.arrow.vector;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.plan.ReadPlan;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.read.ZarrArray;
import dev.zaro.arrow.vector.internal.ArrowTypes;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.compression.NoCompressionCodec;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The tensor layout (docs/formats.md, "Arrow shapes") streamed: a selection of any size as record
 * batches of a few rows of its first dimension each, in bounded memory. The plan is cut along the
 * first dimension ({@link ReadPlan#splitFirst}): each block (whole chunk runs, so no chunk is
 * decoded twice, unless one run alone is more than {@link #BLOCK_BYTES}) is read when the previous
 * one has been consumed, and sent as zero-copy slices of at most {@code batchBytes} (at least one
 * row). Memory held at once: one block, at most about {@code max(BLOCK_BYTES, batchBytes)} plus one
 * chunk run of the first dimension.
 *
 * <p>Every batch fits Arrow's int-indexed vectors: its rows times the values of one row stay under
 * 2^31. A selection whose single row (one index of the first dimension, every trailing dimension)
 * holds 2^31 values or more cannot be a tensor column and is refused when the reader is made.
 *
 * <p>Batches are read-only and valid until the next {@link #loadNextBatch()} (ArrowReader's
 * contract). The reader owns the block it holds and frees it on close. For one already-read slab,
 * see {@link #of(Slab, long, BufferAllocator)}.
 */
public final class TensorReader extends ArrowReader {
  /** Largest block read at once when a chunk run of the first dimension is longer: 256 MiB. */
  public static final long BLOCK_BYTES = 256L << 20;

  /** Default upper bound of one record batch's size: 64 MiB. */
  public static final long DEFAULT_BATCH_BYTES = 64L << 20;

  /** Most values Arrow Java holds in one vector. */
  public static final long MAX_VECTOR_VALUES = Integer.MAX_VALUE;

  private final Field field;
  private final Iterator<Selection> blocks;
  private final Function<Selection, Slab> read;
  private final long rowsPerBatch;
  private Slab current;
  private long currentRow;
  private boolean sentAny;

  private TensorReader(
      Field field,
      DataType type,
      long[] shape,
      long batchBytes,
      Iterator<Selection> blocks,
      Function<Selection, Slab> read,
      String what,
      BufferAllocator allocator) {
    // buffers are built here, never read from compressed IPC: Arrow's default factory would look
    // for codec providers on the class path first (docs/startup.md, "Start-up")
    super(allocator, NoCompressionCodec.Factory.INSTANCE);
    if (batchBytes < 1) {
      throw new ZaroException(
          ErrorKind.INVALID_ARGUMENT, "batch bytes must be positive, not " + batchBytes);
    }
    this.field = field;
    this.blocks = blocks;
    this.read = read;
    long rowValues = rowValues(type, shape);
    if (rowValues > MAX_VECTOR_VALUES) {
      throw new ZaroException(
          ErrorKind.INVALID_ARGUMENT,
          what
              + ": one row of the tensor layout (one index of the first dimension) holds "
              + rowValues
              + " values, more than an Arrow vector can hold ("
              + MAX_VECTOR_VALUES
              + "); slice the trailing dimensions (e.g. --slice ':, 0:1000, ...') or use the"
              + " table layout");
    }
    long rowBytes =
        Math.max(
            1, saturatingMultiply(rowValues / ArrowTypes.valuesPerElement(type), type.byteSize()));
    this.rowsPerBatch =
        Math.max(1, Math.min(batchBytes / rowBytes, MAX_VECTOR_VALUES / Math.max(1, rowValues)));
  }

  /**
   * Streams {@code selection} of {@code array} in the tensor layout.
   *
   * @param batchBytes upper bound of one record batch's size (a batch holds at least one row)
   * @param options progress, cancellation and deadline of every block's read
   * @param allocator every block and batch comes from it
   * @throws ZaroException (INVALID_ARGUMENT) if one row of the selection holds 2^31 values or more
   */
  public static TensorReader of(
      ZarrArray array,
      Selection selection,
      long batchBytes,
      ReadOptions options,
      BufferAllocator allocator) {
    ReadPlan plan = ReadPlan.of(array.metadata(), selection);
    DataType type = array.metadata().dataType();
    long[] shape = selection.resultShape();
    Field field =
        SlabVectors.withAttributes(
            SlabVectors.tensorField(array.name(), type, shape, dimensionNames(array, selection)),
            array.metadata().attributes());
    String what = "selection '" + selection + "' of array '/" + array.path() + "'";
    long rows = SlabVectors.rows(shape);
    long rowBytes = Math.max(1, saturatingMultiply(rowValues(type, shape), type.byteSize()));
    // blocks of whole chunk runs of the first dimension while they fit a batch; a run longer than
    // BLOCK_BYTES (or batchBytes, if larger) is cut, so one chunk may then be decoded twice
    long maxRows = Math.max(1, Math.max(BLOCK_BYTES, batchBytes) / rowBytes);
    Iterator<Selection> blocks =
        rows == 0 || rowValues(type, shape) > MAX_VECTOR_VALUES
            ? List.of(selection).iterator()
            : plan.splitFirst(batchBytes < 1 ? 1 : batchBytes, maxRows).iterator();
    Progressive progress = new Progressive(options, plan.chunkCount());
    return new TensorReader(
        field,
        type,
        shape,
        batchBytes,
        blocks,
        block -> array.read(block, allocator, progress.next()),
        what,
        allocator);
  }

  /**
   * Streams one slab already read, as zero-copy slices of at most {@code batchBytes}; the reader
   * owns the slab and closes it with itself.
   */
  public static TensorReader of(Slab slab, long batchBytes, BufferAllocator allocator) {
    TensorReader reader;
    try {
      reader =
          new TensorReader(
              SlabVectors.tensorField(slab),
              slab.dataType(),
              slab.shape(),
              batchBytes,
              Collections.emptyIterator(),
              block -> {
                throw new IllegalStateException("a slab's reader reads nothing");
              },
              "slab of array '" + slab.name() + "'",
              allocator);
    } catch (RuntimeException e) {
      slab.close();
      throw e;
    }
    reader.current = slab;
    return reader;
  }

  private static List<String> dimensionNames(ZarrArray array, Selection selection) {
    List<String> names = new ArrayList<>();
    for (int d = 0; d < selection.dims().size(); d++) {
      if (!selection.dims().get(d).dropped()) {
        names.add(array.metadata().dimensionName(d));
      }
    }
    return names;
  }

  /** Values of one row of the tensor layout (counting complex's two per element). */
  private static long rowValues(DataType type, long[] shape) {
    long[] values = shape.length == 0 ? new long[0] : shape;
    long n = ArrowTypes.valuesPerElement(type);
    for (int d = 1; d < values.length; d++) {
      n = saturatingMultiply(n, values[d]);
    }
    return n;
  }

  /** Rows of one record batch (the last of a block may have fewer). */
  public long rowsPerBatch() {
    return rowsPerBatch;
  }

  @Override
  public boolean loadNextBatch() throws IOException {
    prepareLoadNextBatch();
    while (current == null || currentRow >= SlabVectors.rows(current)) {
      boolean emptyBlock = current != null && SlabVectors.rows(current) == 0 && !sentAny;
      if (emptyBlock) {
        break; // an empty selection is one empty batch
      }
      if (current != null) {
        current.close();
        current = null;
      }
      if (!blocks.hasNext()) {
        return false;
      }
      current = read.apply(blocks.next());
      currentRow = 0;
    }
    long rows = SlabVectors.rows(current);
    long n = Math.min(rowsPerBatch, rows - currentRow);
    try (FieldVector vector = SlabVectors.tensor(current, currentRow, n);
        VectorSchemaRoot batch =
            new VectorSchemaRoot(List.of(vector.getField()), List.of(vector), (int) n);
        ArrowRecordBatch record = new VectorUnloader(batch).getRecordBatch()) {
      loadRecordBatch(record);
    }
    currentRow += Math.max(n, 1);
    sentAny = true;
    return true;
  }

  @Override
  public long bytesRead() {
    return 0;
  }

  @Override
  protected void closeReadSource() {
    if (current != null) {
      current.close();
      current = null;
    }
  }

  @Override
  protected Schema readSchema() {
    return new Schema(List.of(field));
  }

  /** One read's progress over its blocks: chunks of the blocks done so far plus this block's. */
  private static final class Progressive {
    private final ReadOptions options;
    private final long total;
    private final AtomicLong done = new AtomicLong();
    private final AtomicLong block = new AtomicLong();

    Progressive(ReadOptions options, long total) {
      this.options = options;
      this.total = total;
    }

    /** The options of the next block's read. */
    ReadOptions next() {
      long base = done.addAndGet(block.getAndSet(0));
      ReadOptions.Progress progress = options.progress();
      return new ReadOptions(
          (chunks, blockTotal) -> {
            block.accumulateAndGet(chunks, Math::max);
            long all = Math.max(total, base + blockTotal);
            progress.chunksDone(Math.min(base + chunks, all), all);
          },
          options.stats(),
          options.cancelled(),
          options.deadlineNanos());
    }
  }

  private static long saturatingMultiply(long a, long b) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    return hi != 0 || lo < 0 ? Long.MAX_VALUE : lo;
  }
}
