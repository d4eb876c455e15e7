package dev.zaro.arrow.read;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.arrow.ArrowTypes;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.DataType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The table layout of DESIGN.md, streamed: one row per selected element in C order, one column
 * per (kept) dimension, then the value column. Reads at most {@link TableOptions#batchRows()}
 * elements at a time, so any array streams in bounded memory.
 *
 * <p>Dimension columns hold the coordinate array's values when the array's group has a 1-D
 * array named like the dimension and as long as it, else the int64 index. With CF conventions
 * on, integer values with {@code scale_factor}/{@code add_offset} unpack to float64,
 * {@code _FillValue}/{@code missing_value} become nulls, and a coordinate with CF time
 * {@code units} becomes a microsecond timestamp column.
 *
 * <p>Batches loaded into {@link #getVectorSchemaRoot()} are owned by this reader; the value
 * column shares the read's buffer where no conversion is needed.
 */
public final class TableReader extends ArrowReader {
  private final ZarrArray array;
  private final Selection selection;
  private final TableOptions options;
  private final ReadOptions readOptions;
  private final List<DimensionColumn> dimColumns = new ArrayList<>();
  private final CfConventions cf;
  private final Field valueField;
  private final long[] counts;
  private final int splitDim;
  private final long run;
  private final long blocksPerOuter;
  private final long totalBlocks;
  private final boolean readValues;
  private long nextBlock;
  private long bytesRead;

  /**
   * @param columns one per array dimension, as {@link dev.zaro.arrow.Zaro#dimensionColumns} makes
   *     them; those of dropped dimensions are left out of the table
   */
  public TableReader(ZarrArray array, Selection selection, List<DimensionColumn> columns, TableOptions options,
      ReadOptions readOptions, BufferAllocator allocator) {
    super(allocator);
    this.array = array;
    this.selection = selection;
    this.options = options;
    this.readOptions = readOptions;
    ArrayMetadata meta = array.metadata();
    if (meta.dataType().kind() == DataType.Kind.COMPLEX) {
      throw new ZaroException("array '/" + array.path() + "': the table layout does not support complex"
          + " values yet; use the tensor layout");
    }
    this.cf = options.cf() && !meta.dataType().isVariableLength() && meta.dataType().kind() != DataType.Kind.FIXED_UTF32
        ? CfConventions.of(meta.attributes()) : new CfConventions(null, null, List.of());
    if (meta.dataType().fallbackFormat().isPresent() && (cf.packed() || cf.masks())) {
      throw new ZaroException("array '/" + array.path() + "' has CF attributes (scale_factor, add_offset,"
          + " _FillValue, missing_value) but its " + meta.dataType() + " values are read as bit patterns,"
          + " to which they cannot apply; read it raw (--raw)");
    }
    for (int d = 0; d < meta.rank(); d++) {
      if (!selection.dims().get(d).dropped()) {
        dimColumns.add(columns.get(d));
      }
    }
    ArrowType valueType = cf.packed()
        ? new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)
        : ArrowTypes.valueType(meta.dataType());
    this.valueField = new Field(array.name(), new FieldType(cf.masks(), valueType, null,
        dev.zaro.arrow.arrow.SlabVectors.fieldMetadata(meta.dataType())), null);
    this.readValues = project(options.columns());
    this.counts = selection.counts();
    long inner = 1;
    int k = counts.length - 1;
    if (counts.length == 0) {
      splitDim = -1;
      run = 1;
      blocksPerOuter = 1;
      totalBlocks = 1;
      return;
    }
    while (k > 0 && inner * counts[k] <= options.batchRows()) {
      inner *= counts[k];
      k--;
    }
    splitDim = k;
    run = Math.max(1, Math.min(counts[k], options.batchRows() / inner));
    blocksPerOuter = counts[k] == 0 ? 0 : (counts[k] + run - 1) / run;
    long outer = 1;
    for (int d = 0; d < k; d++) {
      outer *= counts[d];
    }
    totalBlocks = outer * blocksPerOuter;
  }

  /** Keeps only the dimension columns named in {@code columns}; true if the value column is kept. */
  private boolean project(List<String> columns) {
    if (columns == null) {
      return true;
    }
    List<String> all = new ArrayList<>();
    dimColumns.forEach(c -> all.add(c.field().getName()));
    all.add(valueField.getName());
    for (String c : columns) {
      if (!all.contains(c)) {
        throw new ZaroException("array '/" + array.path() + "' has no table column '" + c + "' (its columns: "
            + String.join(", ", all) + ")");
      }
    }
    dimColumns.removeIf(c -> !columns.contains(c.field().getName()));
    return columns.contains(valueField.getName());
  }

  @Override
  protected Schema readSchema() {
    List<Field> fields = new ArrayList<>();
    dimColumns.forEach(c -> fields.add(c.field()));
    if (readValues) {
      fields.add(valueField);
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
    if (nextBlock >= totalBlocks) {
      return false;
    }
    long b = nextBlock++;
    int rank = counts.length;
    List<Selection.Dim> dims = new ArrayList<>();
    long[] blockOffset = new long[rank];
    long[] blockCounts = new long[rank];
    long outer = blocksPerOuter == 0 ? 0 : b / blocksPerOuter;
    long j = blocksPerOuter == 0 ? 0 : b % blocksPerOuter;
    for (int d = splitDim - 1; d >= 0; d--) {
      blockOffset[d] = outer % counts[d];
      outer /= counts[d];
    }
    for (int d = 0; d < rank; d++) {
      Selection.Dim s = selection.dims().get(d);
      if (d < splitDim) {
        blockCounts[d] = 1;
      } else if (d == splitDim) {
        blockOffset[d] = j * run;
        blockCounts[d] = Math.min(run, counts[d] - blockOffset[d]);
      } else {
        blockCounts[d] = counts[d];
      }
      dims.add(new Selection.Dim(s.start() + blockOffset[d] * s.step(), s.step(), blockCounts[d], false));
    }
    Selection block = new Selection(selection.text(), dims);
    if (!readValues) {
      try (VectorSchemaRoot batch = buildBatch(null, block.size(), blockOffset, blockCounts);
           ArrowRecordBatch record = new VectorUnloader(batch).getRecordBatch()) {
        loadRecordBatch(record);
      }
      return true;
    }
    try (Slab slab = array.read(block, allocator, readOptions);
         VectorSchemaRoot batch = buildBatch(slab, slab.elementCount(), blockOffset, blockCounts);
         ArrowRecordBatch record = new VectorUnloader(batch).getRecordBatch()) {
      loadRecordBatch(record);
    }
    return true;
  }

  /** One batch of {@code rows} rows; {@code slab} is null when the value column is not produced. */
  private VectorSchemaRoot buildBatch(Slab slab, long rows, long[] blockOffset, long[] blockCounts) {
    List<FieldVector> vectors = new ArrayList<>();
    try {
      for (DimensionColumn c : dimColumns) {
        vectors.add(dimVector(c, rows, blockOffset, blockCounts));
      }
      if (slab != null) {
        bytesRead += slab.byteSize();
        vectors.add(valueVector(slab, rows));
      }
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    return new VectorSchemaRoot(readSchema().getFields(), vectors, (int) rows);
  }

  private FieldVector dimVector(DimensionColumn c, long rows, long[] blockOffset, long[] blockCounts) {
    int d = c.dim();
    Selection.Dim s = selection.dims().get(d);
    long inner = 1;
    for (int e = d + 1; e < blockCounts.length; e++) {
      inner *= blockCounts[e];
    }
    long outer = rows / Math.max(1, inner * blockCounts[d]);
    int w = c.width();
    FieldVector vector = c.field().createVector(allocator);
    try (ArrowBuf data = allocator.buffer(Math.max(1, rows * w))) {
      dev.zaro.arrow.memory.HugePages.advise(data.memoryAddress(), rows * w);
      long base = data.memoryAddress();
      // one pass over dimension d (each value written once, then doubled over its inner run),
      // then that pass copied for every outer index: memcpy, not a store per row
      long at = base;
      for (long j = 0; j < blockCounts[d] && outer > 0; j++) {
        long position = s.start() + (blockOffset[d] + j) * s.step();
        if (c.times() != null) {
          MemoryUtil.putLong(at, c.times()[(int) position]);
        } else if (c.values() == null) {
          MemoryUtil.putLong(at, position);
        } else {
          MemoryUtil.copyToMemory(c.values(), position * w, at, w);
        }
        repeat(at, w, inner);
        at += inner * w;
      }
      repeat(base, blockCounts[d] * inner * w, outer);
      vector.loadFieldBuffers(new ArrowFieldNode(rows, 0), List.of(allocator.getEmpty(), data));
      return vector;
    } catch (RuntimeException e) {
      vector.close();
      throw e;
    }
  }

  /** Fills {@code times} copies of the {@code unit} bytes at {@code address} (the first is there). */
  private static void repeat(long address, long unit, long times) {
    long total = unit * times;
    for (long filled = unit; filled < total; ) {
      long n = Math.min(filled, total - filled);
      MemoryUtil.copyMemory(address, address + filled, n);
      filled += n;
    }
  }

  private FieldVector valueVector(Slab slab, long rows) {
    DataType type = slab.dataType();
    FieldVector vector = valueField.createVector(allocator);
    if (type.kind() == DataType.Kind.FIXED_UTF32) {
      try {
        dev.zaro.arrow.arrow.SlabVectors.fillFromUtf32((org.apache.arrow.vector.BaseVariableWidthVector) vector,
            slab.data(), 0, rows, type.byteSize());
        return vector;
      } catch (RuntimeException e) {
        vector.close();
        throw e;
      }
    }
    if (type.isVariableLength()) {
      try {
        dev.zaro.arrow.arrow.SlabVectors.fillVariableWidth((org.apache.arrow.vector.BaseVariableWidthVector) vector,
            slab.data(), 0, rows);
        return vector;
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
          data = slab.data();
          ownData = false;
        }
        try {
          long src = slab.data().memoryAddress();
          int size = type.byteSize();
          for (long i = 0; i < rows && (validity != null || type.kind() == DataType.Kind.BOOL); i++) {
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
              MemoryUtil.putLong(data.memoryAddress() + i * 8,
                  Double.doubleToRawLongBits(missing ? Double.NaN : cf.unpack(raw)));
            }
          }
          ArrowBuf valid = validity == null ? allocator.getEmpty() : validity;
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

  private static double rawValue(long address, DataType type) {
    return switch (type.kind()) {
      case BOOL -> MemoryUtil.getByte(address);
      case INT -> switch (type.bits()) {
        case 8 -> MemoryUtil.getByte(address);
        case 16 -> MemoryUtil.getShort(address);
        case 32 -> MemoryUtil.getInt(address);
        default -> (double) MemoryUtil.getLong(address);
      };
      case UINT -> switch (type.bits()) {
        case 8 -> MemoryUtil.getByte(address) & 0xff;
        case 16 -> MemoryUtil.getShort(address) & 0xffff;
        case 32 -> MemoryUtil.getInt(address) & 0xffffffffL;
        default -> unsignedLong(MemoryUtil.getLong(address));
      };
      case FLOAT -> switch (type.bits()) {
        case 16 -> dev.zaro.arrow.metadata.HalfFloat.toFloat(MemoryUtil.getShort(address));
        case 32 -> Float.intBitsToFloat(MemoryUtil.getInt(address));
        default -> Double.longBitsToDouble(MemoryUtil.getLong(address));
      };
      default -> Double.NaN;
    };
  }

  private static double unsignedLong(long v) {
    return v >= 0 ? v : (v >>> 1) * 2.0 + (v & 1);
  }

  /** Decoded bytes of the values read so far (zero when the value column is not produced). */
  @Override
  public long bytesRead() {
    return bytesRead;
  }

  @Override
  protected void closeReadSource() {
    // the coordinate values were copied to the heap; nothing else to release
  }
}
