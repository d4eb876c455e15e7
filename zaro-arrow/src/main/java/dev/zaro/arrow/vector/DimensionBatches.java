package dev.zaro.arrow.vector;

import dev.zaro.arrow.exec.Budget;
import dev.zaro.arrow.exec.Control;
import dev.zaro.arrow.exec.WorkRunner;
import dev.zaro.arrow.memory.BlockPool;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.ReadOptions;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;

/**
 * The dimension columns of a {@link TableReader}'s batches: one per kept dimension, periodic in the
 * row number, written in pieces on the read's threads, and shared with the previous batch where
 * they are equal; and the all-ones validity buffer the batches' columns without nulls share. Owns
 * the last buffer made per column and the validity buffer until {@link #close}.
 */
final class DimensionBatches implements AutoCloseable {
  private final List<DimensionColumn> dimColumns;
  private final BufferAllocator allocator;
  private final ReadOptions readOptions;

  /** The longest batch: the batch rows, or the selection's size when that is smaller. */
  private final long maxRows;

  /** The last dimension column buffer made per column (held by this) and its key. */
  private final DimKey[] dimKeys;

  private final ArrowBuf[] dimBuffers;

  /**
   * All ones: the validity of every column without nulls, shared by all batches (written once,
   * before any batch holds it). Arrow's loader retains a validity buffer it is given; given none,
   * it would allocate one per column and batch and fill it twice (zeros, then ones).
   */
  private ArrowBuf allValid;

  /** The read's threads, which also fill the dimension columns. */
  private final Budget budget;

  /**
   * @param columns the kept dimensions' columns, in order
   * @param maxRows the longest batch
   */
  DimensionBatches(
      List<DimensionColumn> columns,
      long maxRows,
      Budget budget,
      ReadOptions readOptions,
      BufferAllocator allocator) {
    this.dimColumns = columns;
    this.maxRows = maxRows;
    this.budget = budget;
    this.readOptions = readOptions;
    this.allocator = allocator;
    this.dimKeys = new DimKey[columns.size()];
    this.dimBuffers = new ArrowBuf[columns.size()];
  }

  /**
   * The dimension columns of rows {@code [first, first + rows)} of the block. A column is periodic:
   * row r holds the value at position {@code (r / inner) % count} of the column's dimension, inner
   * being the product of the later dimensions' counts, so it repeats every {@code count * inner}
   * rows ({@link #fillDim}). A column equal to the previous batch's (same rows of the period, same
   * dimension selection) shares that batch's buffer: a buffer is written once, before any batch
   * holds it, and never again, so sharing is safe whatever the consumer still holds. The columns
   * that change are written in pieces on the read's threads ({@link WorkRunner}).
   */
  List<FieldVector> vectors(Selection block, long first, long rows) {
    List<Runnable> fills = new ArrayList<>();
    DimKey[] keys = new DimKey[dimColumns.size()];
    for (int column = 0; column < dimColumns.size(); column++) {
      DimensionColumn c = dimColumns.get(column);
      Selection.Dim s = block.dims().get(c.dim());
      long inner = 1;
      for (int e = c.dim() + 1; e < block.dims().size(); e++) {
        inner *= block.dims().get(e).count();
      }
      if (c.kind() == DimensionColumn.Kind.LABELS) {
        continue; // written row by row below
      }
      keys[column] =
          s.isList()
              ? new DimKey(s, 0, 0, s.count(), inner, first % (s.count() * inner), rows)
              : new DimKey(
                  null, s.start(), s.step(), s.count(), inner, first % (s.count() * inner), rows);
      if (keys[column].equals(dimKeys[column])) {
        continue;
      }
      int w = c.width();
      if (dimBuffers[column] != null) {
        dimBuffers[column].close();
        dimBuffers[column] = null;
      }
      dimKeys[column] = null;
      // fillDim writes every byte: memory of a freed block is reused (no page faults, no zeroing
      // by the kernel, for each batch of a long column)
      ArrowBuf data = BlockPool.shared().buffer(allocator, Math.max(1, rows * w));
      dimBuffers[column] = data;
      long pieces = Math.max(1, Math.min(budget.parallelism(), rows / FILL_PIECE_ROWS));
      long innerRows = inner;
      for (long i = 0; i < pieces; i++) {
        long from = rows * i / pieces;
        long to = rows * (i + 1) / pieces;
        fills.add(
            () ->
                fillDim(c, s, innerRows, first + from, to - from, data.memoryAddress() + from * w));
      }
    }
    WorkRunner.run(
        fills.size(),
        i -> fills.get(i).run(),
        budget.executor(),
        budget.parallelism() - 1,
        new Control(readOptions.cancelled(), readOptions.deadlineNanos(), Control.Progress.NONE));
    List<FieldVector> vectors = new ArrayList<>();
    try {
      for (int column = 0; column < dimColumns.size(); column++) {
        DimensionColumn c = dimColumns.get(column);
        FieldVector vector = c.field().createVector(allocator);
        vectors.add(vector);
        if (c.kind() == DimensionColumn.Kind.LABELS) {
          fillLabels((BaseVariableWidthVector) vector, block, c, first, rows);
          continue;
        }
        dimKeys[column] = keys[column];
        vector.loadFieldBuffers(
            new ArrowFieldNode(rows, 0), List.of(allValid(rows), dimBuffers[column]));
      }
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    return vectors;
  }

  /** Rows {@code [first, first + rows)} of the block of a label column. */
  private static void fillLabels(
      BaseVariableWidthVector vector, Selection block, DimensionColumn c, long first, long rows) {
    Selection.Dim s = block.dims().get(c.dim());
    long inner = 1;
    for (int e = c.dim() + 1; e < block.dims().size(); e++) {
      inner *= block.dims().get(e).count();
    }
    byte[][] labels = c.labels();
    int n = Math.toIntExact(rows);
    vector.allocateNew(Math.max(1, n * 8L), Math.max(1, n));
    for (int r = 0; r < n; r++) {
      long k = ((first + r) / inner) % s.count();
      vector.setSafe(r, labels[(int) s.index(k)]);
    }
    vector.setValueCount(n);
  }

  /**
   * All ones, at least {@code rows} bits long: the validity of every column without nulls, shared
   * by all batches (held by this; loaders retain it).
   */
  ArrowBuf allValid(long rows) {
    long bytes = Math.max(1, (rows + 7) / 8);
    if (allValid == null || allValid.capacity() < bytes) {
      if (allValid != null) {
        allValid.close(); // batches that hold it keep their own references
        allValid = null;
      }
      // sized for the largest batch at once (no batch is longer than batchRows or the selection)
      long largest = (maxRows + 7) / 8;
      ArrowBuf ones = allocator.buffer(Math.max(bytes, largest));
      MemoryUtil.setMemory(ones.memoryAddress(), ones.capacity(), (byte) 0xff);
      allValid = ones;
    }
    return allValid;
  }

  /** Rows below which filling a dimension column is not worth waking a helper thread. */
  private static final long FILL_PIECE_ROWS = 1 << 18;

  /**
   * What decides a dimension column's buffer: its dimension's selection and the rows of it. Its
   * equals is written out: a record's own is linked through {@code ObjectMethods} at its first
   * call, a few milliseconds of a one-query process (docs/startup.md, "Start-up").
   */
  private record DimKey(
      Selection.Dim list,
      long start,
      long step,
      long count,
      long inner,
      long firstInPeriod,
      long rows) {
    @Override
    public boolean equals(Object o) {
      return o instanceof DimKey k
          && (list == null ? k.list == null : list.equals(k.list))
          && start == k.start
          && step == k.step
          && count == k.count
          && inner == k.inner
          && firstInPeriod == k.firstInPeriod
          && rows == k.rows;
    }

    @Override
    public int hashCode() {
      long h = start;
      for (long v : new long[] {step, count, inner, firstInPeriod, rows}) {
        h = 31 * h + v;
      }
      return Long.hashCode(h);
    }
  }

  /**
   * Writes rows {@code [first, first + rows)} of column {@code c} at {@code at}: one period at most
   * directly, then copies of it.
   */
  private static void fillDim(
      DimensionColumn c, Selection.Dim s, long inner, long first, long rows, long at) {
    int w = c.width();
    long count = s.count();
    long k = (first / inner) % count;
    long within = first % inner;
    long end = at + Math.min(rows, count * inner) * w;
    long p = at;
    while (p < end) {
      long n;
      if (inner == 1) {
        // consecutive rows are consecutive positions
        n = Math.min(count - k, (end - p) / w);
        writePositions(c, s, k, n, p);
        k += n;
      } else {
        n = Math.min(inner - within, (end - p) / w);
        writeRun(c, s.index(k), n, p);
        within += n;
        if (within == inner) {
          within = 0;
          k++;
        }
      }
      if (k == count) {
        k = 0;
      }
      p += n * w;
    }
    // the column repeats every count * inner rows: copy the written period forward, doubling
    for (long filled = end - at, total = rows * w; filled < total; ) {
      long n = Math.min(filled, total - filled);
      MemoryUtil.copyMemory(at, at + filled, n);
      filled += n;
    }
  }

  /** The values of positions {@code k, k + 1, ..., k + n - 1} of the selection, one per row. */
  private static void writePositions(DimensionColumn c, Selection.Dim s, long k, long n, long at) {
    if (s.isList()) {
      for (long i = 0; i < n; i++) {
        writeRun(c, s.index(k + i), 1, at + i * c.width());
      }
      return;
    }
    long start = s.start() + k * s.step();
    long step = s.step();
    long[] times = c.times();
    byte[] values = c.storedValues();
    if (times != null) {
      for (long i = 0; i < n; i++) {
        MemoryUtil.putLong(at + i * 8, times[(int) (start + i * step)]);
      }
    } else if (values == null) {
      for (long i = 0; i < n; i++) {
        MemoryUtil.putLong(at + i * 8, start + i * step);
      }
    } else if (step == 1) {
      MemoryUtil.copyToMemory(values, start * c.width(), at, n * c.width());
    } else {
      int w = c.width();
      for (long i = 0; i < n; i++) {
        MemoryUtil.copyToMemory(values, (start + i * step) * w, at + i * w, w);
      }
    }
  }

  /** {@code n} rows of the value at {@code position}. */
  private static void writeRun(DimensionColumn c, long position, long n, long at) {
    long[] times = c.times();
    byte[] values = c.storedValues();
    if (values == null) {
      long v = times != null ? times[(int) position] : position;
      for (long i = 0; i < n; i++) {
        MemoryUtil.putLong(at + i * 8, v);
      }
      return;
    }
    // one copy from the heap, then doubled in place: memcpy, not a copy per row
    int w = c.width();
    MemoryUtil.copyToMemory(values, position * w, at, w);
    for (long filled = w, total = n * w; filled < total; ) {
      long m = Math.min(filled, total - filled);
      MemoryUtil.copyMemory(at, at + filled, m);
      filled += m;
    }
  }

  /** Frees the buffers this holds; batches that hold them keep their own references. */
  @Override
  public void close() {
    if (allValid != null) {
      allValid.close();
      allValid = null;
    }
    for (int c = 0; c < dimBuffers.length; c++) {
      if (dimBuffers[c] != null) {
        dimBuffers[c].close();
        dimBuffers[c] = null;
      }
    }
  }
}
