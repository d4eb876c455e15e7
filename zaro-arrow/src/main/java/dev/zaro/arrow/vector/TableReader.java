package dev.zaro.arrow.vector;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.exec.Budget;
import dev.zaro.arrow.exec.Control;
import dev.zaro.arrow.exec.WorkRunner;
import dev.zaro.arrow.memory.BlockPool;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.internal.HalfFloat;
import dev.zaro.arrow.plan.ReadPlan;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.read.ZarrArray;
import dev.zaro.arrow.read.internal.ReadAccess;
import dev.zaro.arrow.vector.internal.ArrowTypes;
import dev.zaro.arrow.vector.internal.TimeValues;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.NoCompressionCodec;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The table layout (docs/formats.md, "Arrow shapes"; docs/ARCHITECTURE.md), streamed: one row per
 * selected element in C order, one column per (kept) dimension, one per non-dimension coordinate
 * ({@link CoordinateColumns}), then the value column (for a struct, one column per field, named
 * {@code <array>.<field>}). Reads at most {@link TableOptions#batchRows()} elements at a time, so
 * any array streams in bounded memory.
 *
 * <p>Dimension columns hold the coordinate array's values when the array's group has a 1-D array
 * named like the dimension and as long as it, else the int64 index. With CF conventions on, integer
 * values with {@code scale_factor}/{@code add_offset} unpack to float64, {@code _FillValue}/{@code
 * missing_value} become nulls, and a coordinate with CF time {@code units} becomes a microsecond
 * timestamp column.
 *
 * <p>Batches loaded into {@link #getVectorSchemaRoot()} are owned by this reader, read-only, and
 * valid until the next {@link #loadNextBatch()}; a consumer keeps one longer by transferring or
 * retaining its vectors. The value column shares the read's buffer where no conversion is needed; a
 * dimension column equal to the previous batch's shares that batch's buffer (buffers are written
 * once, before any batch holds them).
 */
public final class TableReader extends ArrowReader {
  private final ZarrArray array;
  private final Selection selection;
  private final TableOptions options;
  private final ReadOptions readOptions;
  private final List<DimensionColumn> dimColumns = new ArrayList<>();
  private final CoordinateColumns.Columns coords;
  private final CfConventions cf;
  private final Field valueField;

  /** The plan's blocks: whole chunk runs of the first dimension, in C order. */
  private final Iterator<Selection> blocks;

  /** The block being emitted, its values, and the rows of it emitted so far. */
  private Selection block;

  private Slab current;
  private long blockRows;
  private long currentRow;

  /** A struct array's value columns, one per field (else empty: the one {@link #valueField}). */
  private final List<Field> fieldColumns = new ArrayList<>();

  /** The indices of the struct field columns the projection keeps. */
  private final List<Integer> keptFields = new ArrayList<>();

  /** False when the projection leaves every value column out: then no chunk is read. */
  private final boolean readValues;

  /** The last dimension column buffer made per column (held by this reader) and its key. */
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

  /** A reader without non-dimension coordinate columns; see the full constructor. */
  public TableReader(
      ZarrArray array,
      Selection selection,
      List<DimensionColumn> columns,
      TableOptions options,
      ReadOptions readOptions,
      BufferAllocator allocator) {
    this(array, selection, columns, CoordinateColumns.NONE, options, readOptions, allocator);
  }

  /**
   * @param columns one per array dimension, as {@link dev.zaro.arrow.Zaro#dimensionColumns} makes
   *     them; those of dropped dimensions are left out of the table
   * @param coordinates the non-dimension coordinate columns, after the dimension columns
   */
  public TableReader(
      ZarrArray array,
      Selection selection,
      List<DimensionColumn> columns,
      CoordinateColumns coordinates,
      TableOptions options,
      ReadOptions readOptions,
      BufferAllocator allocator) {
    // buffers are built here, never read from compressed IPC: Arrow's default factory would look
    // for codec providers on the class path first (docs/startup.md, "Start-up")
    super(allocator, NoCompressionCodec.Factory.INSTANCE);
    this.array = array;
    this.selection = selection;
    this.options = options;
    this.readOptions = readOptions;
    ArrayMetadata meta = array.metadata();
    this.cf = cfOf(array, options);
    for (int d = 0; d < meta.rank(); d++) {
      if (!selection.dims().get(d).dropped()) {
        dimColumns.add(columns.get(d));
      }
    }
    List<Field> values = valueFields(array, cf);
    if (meta.dataType().kind() == DataType.Kind.STRUCT) {
      this.valueField = null;
      fieldColumns.addAll(values);
    } else {
      this.valueField = values.get(0);
    }
    this.coords = coordinates.open(selection, options, readOptions, allocator);
    this.readValues = project(options.columns());
    this.dimKeys = new DimKey[dimColumns.size()];
    this.dimBuffers = new ArrowBuf[dimColumns.size()];
    this.budget = ReadAccess.get().budget(array);
    // blocks of whole chunk runs along the first dimension (so no chunk is fetched or decoded
    // twice), grouped up to a batch; a chunk run bigger than BLOCK_BYTES is cut, bounding memory
    // rows of the first kept dimension, along which the plan cuts (ReadPlan.splitFirst)
    long[] result = selection.resultShape();
    long firstRows = result.length == 0 ? 1 : result[0];
    long rowBytes =
        Math.max(1, firstRows == 0 ? 1 : selection.size() / firstRows * meta.dataType().byteSize());
    this.blocks =
        ReadPlan.of(array.metadata(), selection)
            .splitFirst(
                Math.max(1, options.batchRows() * meta.dataType().byteSize()),
                Math.max(
                    1,
                    Math.max(BLOCK_BYTES, options.batchRows() * meta.dataType().byteSize())
                        / rowBytes))
            .iterator();
  }

  /**
   * The value column(s) of the table layout of {@code array}, from metadata alone: one column named
   * after the array (float64 when CF unpacking applies, nullable when CF masks do), or one per
   * field of a struct array, named {@code <array>.<field>}.
   */
  public static List<Field> valueFields(ZarrArray array, TableOptions options) {
    return valueFields(array, cfOf(array, options));
  }

  /**
   * The CF conventions the table layout applies to {@code array} (none for text, structs, or with
   * CF off); refuses what the table layout cannot show.
   *
   * @throws ZaroException for complex values, or CF attributes on values read as bit patterns
   */
  private static CfConventions cfOf(ZarrArray array, TableOptions options) {
    DataType type = array.metadata().dataType();
    if (type.kind() == DataType.Kind.COMPLEX) {
      throw new ZaroException(
          ErrorKind.UNSUPPORTED,
          "array '/"
              + array.path()
              + "': the table layout does not support complex values yet; use the tensor layout");
    }
    boolean cfApplies =
        options.cf()
            && !type.isVariableLength()
            && type.kind() != DataType.Kind.FIXED_UTF32
            && type.kind() != DataType.Kind.NULL_TERMINATED_BYTES
            && !TimeValues.isTime(type)
            && type.kind() != DataType.Kind.STRUCT;
    CfConventions cf =
        cfApplies
            ? CfConventions.of(array.metadata(), "array '/" + array.path() + "'")
            : CfConventions.NONE;
    if (type.fallbackFormat().isPresent() && (cf.packed() || cf.masks())) {
      throw new ZaroException(
          ErrorKind.INVALID_ARGUMENT,
          "array '/"
              + array.path()
              + "' has CF attributes (scale_factor, add_offset, _FillValue, missing_value) but its "
              + type
              + " values are read as bit patterns, to which they cannot apply; read it raw (--raw)");
    }
    return cf;
  }

  private static List<Field> valueFields(ZarrArray array, CfConventions cf) {
    DataType type = array.metadata().dataType();
    List<Field> out = new ArrayList<>();
    if (type.kind() == DataType.Kind.STRUCT) {
      for (DataType.StructField f : type.fields()) {
        out.add(StructVectors.field(array.name() + "." + f.name(), f));
      }
      return out;
    }
    ArrowType valueType = cf.valueType() != null ? cf.valueType() : ArrowTypes.valueType(type);
    Map<String, String> metadata = SlabVectors.fieldMetadata(type);
    if (cf.fieldMetadata() != null) {
      metadata = cf.fieldMetadata();
    }
    out.add(
        new Field(
            array.name(),
            new FieldType(
                cf.masks() || cf.time() != null || ArrowTypes.nullable(type),
                valueType,
                null,
                metadata),
            null));
    return out;
  }

  /**
   * Upper bound of one block's decoded bytes, unless a single row of the first dimension is larger:
   * a chunk run of the first dimension beyond it is read in parts (its chunks then decode more than
   * once; {@link ReadStats} counts them).
   */
  static final long BLOCK_BYTES = 256L << 20;

  /**
   * Keeps only the dimension and struct field columns named in {@code columns} (null: all); true if
   * a value column is kept.
   */
  private boolean project(List<String> columns) {
    List<String> values = new ArrayList<>();
    if (fieldColumns.isEmpty()) {
      values.add(valueField.getName());
    } else {
      fieldColumns.forEach(f -> values.add(f.getName()));
    }
    for (int i = 0; i < fieldColumns.size(); i++) {
      if (columns == null || columns.contains(fieldColumns.get(i).getName())) {
        keptFields.add(i);
      }
    }
    if (columns == null) {
      return true;
    }
    List<String> all = new ArrayList<>();
    dimColumns.forEach(c -> all.add(c.field().getName()));
    all.addAll(coords.names());
    all.addAll(values);
    for (String c : columns) {
      if (!all.contains(c)) {
        throw new ZaroException(
            ErrorKind.INVALID_ARGUMENT,
            "array '/"
                + array.path()
                + "' has no table column '"
                + c
                + "' (its columns: "
                + String.join(", ", all)
                + ")");
      }
    }
    dimColumns.removeIf(c -> !columns.contains(c.field().getName()));
    coords.project(columns);
    return values.stream().anyMatch(columns::contains);
  }

  @Override
  protected Schema readSchema() {
    List<Field> fields = new ArrayList<>();
    dimColumns.forEach(c -> fields.add(c.field()));
    fields.addAll(coords.fields());
    if (fieldColumns.isEmpty() && readValues) {
      fields.add(valueField);
    } else {
      keptFields.forEach(i -> fields.add(fieldColumns.get(i)));
    }
    return new Schema(fields);
  }

  /** Total rows the stream will produce. */
  public long totalRows() {
    return selection.size();
  }

  @Override
  public boolean loadNextBatch() throws IOException {
    prepareLoadNextBatch();
    while (currentRow >= blockRows) {
      if (current != null) {
        current.close();
        current = null;
      }
      if (!blocks.hasNext()) {
        return false;
      }
      block = blocks.next();
      current = readValues ? array.read(block, allocator, readOptions) : null;
      blockRows = block.size();
      currentRow = 0;
    }
    long rows = Math.min(options.batchRows(), blockRows - currentRow);
    try (VectorSchemaRoot batch = buildBatch(current, currentRow, rows)) {
      // handed over by reference (an IPC round trip through VectorUnloader would count nulls and
      // rebuild every validity buffer twice)
      VectorSchemaRoot root = getVectorSchemaRoot();
      for (int i = 0; i < batch.getFieldVectors().size(); i++) {
        batch.getVector(i).makeTransferPair(root.getVector(i)).transfer();
      }
      root.setRowCount((int) rows);
    }
    currentRow += rows;
    return true;
  }

  /**
   * Rows {@code [first, first + rows)} of the current block, in C order ({@code slab} null: no
   * values).
   */
  private VectorSchemaRoot buildBatch(Slab slab, long first, long rows) {
    List<FieldVector> vectors = new ArrayList<>();
    try {
      vectors.addAll(dimVectors(first, rows));
      vectors.addAll(coords.vectors(block, first, rows));
      if (fieldColumns.isEmpty() && readValues) {
        vectors.add(valueVector(slab, first, rows));
      }
      for (int i : keptFields) {
        FieldVector column = fieldColumns.get(i).createVector(allocator);
        vectors.add(column);
        StructVectors.fill(
            column,
            slab.dataType().fields().get(i),
            slab.data().memoryAddress() + first * slab.dataType().byteSize(),
            rows,
            slab.dataType().byteSize());
      }
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    return new VectorSchemaRoot(readSchema().getFields(), vectors, (int) rows);
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
  private List<FieldVector> dimVectors(long first, long rows) {
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
          fillLabels((BaseVariableWidthVector) vector, c, first, rows);
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
  private void fillLabels(
      BaseVariableWidthVector vector, DimensionColumn c, long first, long rows) {
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
   * {@link #allValid}, at least {@code rows} bits long (held by this reader; loaders retain it).
   */
  private ArrowBuf allValid(long rows) {
    long bytes = Math.max(1, (rows + 7) / 8);
    if (allValid == null || allValid.capacity() < bytes) {
      if (allValid != null) {
        allValid.close(); // batches that hold it keep their own references
        allValid = null;
      }
      // sized for the largest batch at once (no batch is longer than batchRows or the selection)
      long largest = (Math.min(options.batchRows(), selection.size()) + 7) / 8;
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

  private FieldVector valueVector(Slab slab, long first, long rows) {
    DataType type = slab.dataType();
    FieldVector vector = valueField.createVector(allocator);
    if (type.kind() == DataType.Kind.FIXED_UTF32) {
      try {
        SlabVectors.fillFromUtf32(
            (BaseVariableWidthVector) vector, slab.data(), first, rows, type.byteSize());
        return vector;
      } catch (RuntimeException e) {
        vector.close();
        throw e;
      }
    }
    if (type.kind() == DataType.Kind.NULL_TERMINATED_BYTES || TimeValues.isTime(type)) {
      try {
        if (type.kind() == DataType.Kind.NULL_TERMINATED_BYTES) {
          SlabVectors.fillNullTerminated(
              (BaseVariableWidthVector) vector, slab.data(), first, rows, type.byteSize());
        } else {
          TimeValues.load(
              vector, type, slab.data(), first * 8, rows, "array '/" + array.path() + "'");
        }
        return vector;
      } catch (RuntimeException e) {
        vector.close();
        throw e;
      }
    }
    if (type.isVariableLength()) {
      try {
        SlabVectors.fillVariableWidth((BaseVariableWidthVector) vector, slab.data(), first, rows);
        return vector;
      } catch (RuntimeException e) {
        vector.close();
        throw e;
      }
    }
    if (cf.time() != null || cf.bool()) {
      try {
        return decodedVector(vector, slab, first, rows);
      } catch (RuntimeException e) {
        vector.close();
        throw e;
      }
    }
    try {
      boolean unpack = cf.packed();
      ArrowBuf validity = null;
      long nulls = 0;
      try {
        if (cf.masks() || unpack) {
          validity = allocator.buffer(Math.max(1, (rows + 7) / 8));
          validity.setZero(0, validity.capacity());
        }
        ArrowBuf data;
        boolean ownData;
        if (unpack) {
          data = allocator.buffer(Math.max(1, rows * 8));
          ownData = true;
        } else if (type.kind() == DataType.Kind.BOOL) {
          data = allocator.buffer(Math.max(1, (rows + 7) / 8));
          data.setZero(0, data.capacity());
          ownData = true;
        } else {
          data = slab.data().slice(first * type.byteSize(), rows * type.byteSize());
          ownData = false;
        }
        try {
          long src = slab.data().memoryAddress() + first * type.byteSize();
          int size = type.byteSize();
          for (long i = 0;
              i < rows && (validity != null || type.kind() == DataType.Kind.BOOL);
              i++) {
            if (type.kind() == DataType.Kind.BOOL) {
              if (MemoryUtil.getByte(src + i) != 0) {
                long a = data.memoryAddress() + (i >>> 3);
                MemoryUtil.putByte(a, (byte) (MemoryUtil.getByte(a) | (1 << (i & 7))));
              }
              if (validity == null) {
                continue;
              }
            }
            double raw = rawValue(src + i * size, type);
            boolean missing = cf.isMissing(raw);
            if (missing) {
              nulls++;
            } else {
              long a = validity.memoryAddress() + (i >>> 3);
              MemoryUtil.putByte(a, (byte) (MemoryUtil.getByte(a) | (1 << (i & 7))));
            }
            if (unpack) {
              MemoryUtil.putLong(
                  data.memoryAddress() + i * 8,
                  Double.doubleToRawLongBits(missing ? Double.NaN : cf.unpack(raw)));
            }
          }
          ArrowBuf valid = validity == null ? allValid(rows) : validity;
          vector.loadFieldBuffers(new ArrowFieldNode(rows, nulls), List.of(valid, data));
        } finally {
          if (ownData) {
            data.close();
          }
        }
      } finally {
        if (validity != null) {
          validity.close();
        }
      }
      return vector;
    } catch (RuntimeException e) {
      vector.close();
      throw e;
    }
  }

  /**
   * Fills {@code vector} with rows {@code [first, first + rows)} of {@code slab} decoded as CF
   * times (timestamps, durations or 360_day labels) or xarray booleans: missing values and NaN are
   * null, packed values unpack first (xarray's order).
   */
  private FieldVector decodedVector(FieldVector vector, Slab slab, long first, long rows) {
    DataType type = slab.dataType();
    int size = type.byteSize();
    long src = slab.data().memoryAddress() + first * size;
    boolean integral = type.kind() != DataType.Kind.FLOAT && !cf.packed();
    CfConventions.CfTime time = cf.time();
    if (time != null && time.labels()) {
      VarCharVector labels = (VarCharVector) vector;
      int n = Math.toIntExact(rows);
      labels.allocateNew(Math.max(1, n * 20L), Math.max(1, n));
      for (int i = 0; i < n; i++) {
        double raw = rawValue(src + (long) i * size, type);
        long whole = integral ? rawLong(src + (long) i * size, type) : 0;
        double v = cf.packed() ? cf.unpack(raw) : raw;
        if (cf.isMissing(raw) || Double.isNaN(v)) {
          labels.setNull(i);
        } else {
          labels.setSafe(i, time.label(v, integral, whole).getBytes(StandardCharsets.UTF_8));
        }
      }
      labels.setValueCount(n);
      return vector;
    }
    ArrowBuf validity = allocator.buffer(Math.max(1, (rows + 7) / 8));
    ArrowBuf data = allocator.buffer(Math.max(1, time != null ? rows * 8 : (rows + 7) / 8));
    try {
      validity.setZero(0, validity.capacity());
      data.setZero(0, data.capacity());
      long nulls = 0;
      for (long i = 0; i < rows; i++) {
        long at = src + i * size;
        double raw = rawValue(at, type);
        double v = cf.packed() ? cf.unpack(raw) : raw;
        if (cf.isMissing(raw) || Double.isNaN(v)) {
          nulls++;
          continue;
        }
        setBit(validity, i);
        if (time != null) {
          MemoryUtil.putLong(
              data.memoryAddress() + i * 8,
              time.toLong(v, integral, integral ? rawLong(at, type) : 0));
        } else if (v != 0) {
          setBit(data, i);
        }
      }
      vector.loadFieldBuffers(new ArrowFieldNode(rows, nulls), List.of(validity, data));
      return vector;
    } finally {
      validity.close();
      data.close();
    }
  }

  private static void setBit(ArrowBuf buf, long i) {
    long a = buf.memoryAddress() + (i >>> 3);
    MemoryUtil.putByte(a, (byte) (MemoryUtil.getByte(a) | (1 << (i & 7))));
  }

  /** An integer value exactly; a uint64 above 2^63 - 1 is an error (no CF time reaches it). */
  private long rawLong(long address, DataType type) {
    boolean unsigned = type.kind() == DataType.Kind.UINT;
    if (unsigned && type.bits() == 64 && MemoryUtil.getLong(address) < 0) {
      throw new ZaroException(
          ErrorKind.INVALID_ARGUMENT,
          "array '/"
              + array.path()
              + "': CF time value "
              + Long.toUnsignedString(MemoryUtil.getLong(address))
              + " is out of the timestamp range");
    }
    return switch (type.bits()) {
      case 8 -> unsigned ? MemoryUtil.getByte(address) & 0xff : MemoryUtil.getByte(address);
      case 16 -> unsigned ? MemoryUtil.getShort(address) & 0xffff : MemoryUtil.getShort(address);
      case 32 -> unsigned ? MemoryUtil.getInt(address) & 0xffffffffL : MemoryUtil.getInt(address);
      default -> MemoryUtil.getLong(address);
    };
  }

  private static double rawValue(long address, DataType type) {
    return switch (type.kind()) {
      case BOOL -> MemoryUtil.getByte(address);
      case INT ->
          switch (type.bits()) {
            case 8 -> MemoryUtil.getByte(address);
            case 16 -> MemoryUtil.getShort(address);
            case 32 -> MemoryUtil.getInt(address);
            default -> (double) MemoryUtil.getLong(address);
          };
      case UINT ->
          switch (type.bits()) {
            case 8 -> MemoryUtil.getByte(address) & 0xff;
            case 16 -> MemoryUtil.getShort(address) & 0xffff;
            case 32 -> MemoryUtil.getInt(address) & 0xffffffffL;
            default -> unsignedLong(MemoryUtil.getLong(address));
          };
      case FLOAT ->
          switch (type.bits()) {
            case 16 -> HalfFloat.toFloat(MemoryUtil.getShort(address));
            case 32 -> Float.intBitsToFloat(MemoryUtil.getInt(address));
            default -> Double.longBitsToDouble(MemoryUtil.getLong(address));
          };
      default -> Double.NaN;
    };
  }

  private static double unsignedLong(long v) {
    return v >= 0 ? v : (v >>> 1) * 2.0 + (v & 1);
  }

  @Override
  public long bytesRead() {
    return 0;
  }

  @Override
  protected void closeReadSource() {
    // the coordinate values were copied to the heap; only the current block and the last
    // dimension column buffers hold memory
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
    if (current != null) {
      current.close();
      current = null;
    }
    coords.close();
  }
}
