package dev.zaro.arrow.vector;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.DataType;
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
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.NoCompressionCodec;
import org.apache.arrow.vector.ipc.ArrowReader;
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

  /** The dimension columns of the batches, and the validity buffer they share. */
  private final DimensionBatches dims;

  /** The value column of a non-struct array's batches, else null. */
  private final ValueColumn values;

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
    this.dims =
        new DimensionBatches(
            dimColumns,
            Math.min(options.batchRows(), selection.size()),
            ReadAccess.get().budget(array),
            readOptions,
            allocator);
    this.values =
        valueField == null ? null : new ValueColumn(array, valueField, cf, dims, allocator);
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
      vectors.addAll(dims.vectors(block, first, rows));
      vectors.addAll(coords.vectors(block, first, rows));
      if (fieldColumns.isEmpty() && readValues) {
        vectors.add(values.vector(slab, first, rows));
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

  @Override
  public long bytesRead() {
    return 0;
  }

  @Override
  protected void closeReadSource() {
    // the coordinate values were copied to the heap; only the current block and the last
    // dimension column buffers hold memory
    dims.close();
    if (current != null) {
      current.close();
      current = null;
    }
    coords.close();
  }
}
