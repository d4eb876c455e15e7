package dev.zaro.arrow.vector;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.internal.HalfFloat;
import dev.zaro.arrow.plan.CoordinateValues;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.vector.internal.ArrowTypes;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * One dimension column of the table layout: the int64 index, or the values of the dimension's 1-D
 * coordinate array (copied to the heap once), or CF times as epoch microseconds (durations in their
 * unit), or labels (text coordinates, 360_day times). The one place that decides what a dimension
 * column holds: the table layout writes it, and {@code plan.DimensionFilter} compares predicates
 * against it.
 */
public final class DimensionColumn implements CoordinateValues {
  /** What the column holds. */
  public enum Kind {
    /** The int64 index along the dimension. */
    INDEX,
    /** The coordinate array's stored values (little endian, {@link #width()} bytes each). */
    VALUES,
    /** CF times converted to epoch microseconds (CF durations: their Duration unit). */
    TIMES,
    /** Labels, one byte string per position: text coordinates (Utf8 or Binary), 360_day times. */
    LABELS
  }

  private final int dim;
  private final Field field;
  private final Kind kind;
  private final int width;
  private final DataType type;

  /** The values, once read; null until then (and always for the index). */
  private volatile Values values;

  /** Reads the values until they are read; null after, and for index columns. */
  private Supplier<Values> reader;

  /** What a column holds beside its field: one of the three is set, by {@link #kind}. */
  private static final class Values {
    private final byte[] values;
    private final long[] times;
    private final byte[][] labels;

    Values(byte[] values, long[] times, byte[][] labels) {
      this.values = values;
      this.times = times;
      this.labels = labels;
    }

    byte[] values() {
      return values;
    }

    long[] times() {
      return times;
    }

    byte[][] labels() {
      return labels;
    }
  }

  private DimensionColumn(
      int dim, Field field, Kind kind, int width, DataType type, Supplier<Values> reader) {
    this.dim = dim;
    this.field = field;
    this.kind = kind;
    this.width = width;
    this.type = type;
    this.reader = reader;
  }

  /** The index column of dimension {@code dim}. */
  public static DimensionColumn index(int dim, String name) {
    return new DimensionColumn(
        dim,
        new Field(name, FieldType.notNullable(new ArrowType.Int(64, true)), null),
        Kind.INDEX,
        8,
        null,
        null);
  }

  /**
   * The column of dimension {@code dim} from its coordinate array, or the index column when {@code
   * coordinate} is null or of a type no column can hold (bool, complex).
   *
   * @param meta the coordinate array's metadata (CF time units in its attributes)
   * @param cf whether CF times become timestamps
   * @throws ZaroException for a CF time with no timestamp (see {@code CfConventions})
   */
  public static DimensionColumn of(
      int dim, String name, Slab coordinate, ArrayMetadata meta, boolean cf) {
    if (coordinate == null) {
      return index(dim, name);
    }
    DimensionColumn column = create(dim, name, meta, cf, convert -> convert.apply(coordinate));
    column.values();
    return column;
  }

  /**
   * The column of dimension {@code dim} from its coordinate array, whose values {@code read} reads
   * when they are first needed (by a table read writing the column, by a filter comparing against
   * it), not before: the field, kind and width come from the metadata alone. The returned column
   * owns no memory: {@code read}'s slab is closed once its values are copied to the heap. A failed
   * read is tried again at the next use.
   *
   * @param meta the coordinate array's metadata (CF time units in its attributes)
   * @param cf whether CF times become timestamps
   * @param read reads the coordinate array's values into the allocator it is given (a new root
   *     allocator per read, closed with the slab once the values are copied)
   * @throws ZaroException for a CF time with no timestamp (see {@code CfConventions})
   */
  public static DimensionColumn lazy(
      int dim, String name, ArrayMetadata meta, boolean cf, Function<BufferAllocator, Slab> read) {
    return create(
        dim,
        name,
        meta,
        cf,
        convert -> {
          try (BufferAllocator allocator = new RootAllocator();
              Slab coordinate = read.apply(allocator)) {
            return convert.apply(coordinate);
          }
        });
  }

  /**
   * The column of dimension {@code dim}, its values made by the converter its kind needs applied to
   * the coordinate {@code source} gives, when first needed.
   */
  private static DimensionColumn create(
      int dim,
      String name,
      ArrayMetadata meta,
      boolean cf,
      Function<Function<Slab, Values>, Values> source) {
    Field field = field(name, meta, cf);
    if (field == null) {
      return index(dim, name);
    }
    DataType type = meta.dataType();
    if (isText(type)) {
      return new DimensionColumn(
          dim,
          field,
          Kind.LABELS,
          0,
          type,
          () -> source.apply(c -> new Values(null, null, textLabels(c))));
    }
    CfConventions.CfTime time = cfTime(name, type, meta, cf);
    if (time == null) {
      boolean datetime = type.kind() == DataType.Kind.DATETIME;
      // numpy time units Arrow has no type for (D, W, M, Y, h, m, counts): the Arrow values
      boolean convert =
          (datetime || type.kind() == DataType.Kind.TIMEDELTA) && !type.time().isIdentity();
      return new DimensionColumn(
          dim,
          field,
          Kind.VALUES,
          convert ? type.time().target(datetime).bytes() : type.byteSize(),
          type,
          () -> {
            byte[] values = source.apply(c -> new Values(stored(c), null, null)).values();
            if (!convert) {
              return new Values(values, null, null);
            }
            try {
              return new Values(type.time().convertAll(values, datetime), null, null);
            } catch (ArithmeticException e) {
              throw new ZaroException(
                  ErrorKind.UNSUPPORTED,
                  "coordinate '" + name + "' (" + type + "): " + e.getMessage(),
                  e);
            }
          });
    }
    return new DimensionColumn(
        dim,
        field,
        time.labels() ? Kind.LABELS : Kind.TIMES,
        8,
        type,
        () -> {
          byte[] stored = source.apply(c -> new Values(stored(c), null, null)).values();
          int n = stored.length / type.byteSize();
          ByteBuffer b = ByteBuffer.wrap(stored).order(ByteOrder.LITTLE_ENDIAN);
          long[] times = time.labels() ? null : new long[n];
          byte[][] labels = time.labels() ? new byte[n][] : null;
          for (int i = 0; i < n; i++) {
            boolean integral = type.kind() != DataType.Kind.FLOAT;
            long raw = integral ? integer(b, i, type) : 0;
            double v =
                integral ? raw : (type.bits() == 32 ? b.getFloat(i * 4) : b.getDouble(i * 8));
            if (labels != null) {
              labels[i] = time.label(v, integral, raw).getBytes(StandardCharsets.UTF_8);
            } else {
              times[i] = time.toLong(v, integral, raw);
            }
          }
          return new Values(null, times, labels);
        });
  }

  /** The coordinate's stored values, copied to the heap. */
  private static byte[] stored(Slab coordinate) {
    byte[] values = new byte[(int) coordinate.byteSize()];
    coordinate.data().getBytes(0, values);
    return values;
  }

  /** The values, read now if they were not yet (index columns have none). */
  private Values values() {
    Values v = values;
    if (v != null || kind == Kind.INDEX) {
      return v;
    }
    synchronized (this) {
      if (values == null) {
        values = reader.get();
        reader = null;
      }
      return values;
    }
  }

  private static long integer(ByteBuffer b, int i, DataType type) {
    boolean unsigned = type.kind() == DataType.Kind.UINT;
    return switch (type.bits()) {
      case 8 -> unsigned ? b.get(i) & 0xff : b.get(i);
      case 16 -> unsigned ? b.getShort(i * 2) & 0xffff : b.getShort(i * 2);
      case 32 -> unsigned ? b.getInt(i * 4) & 0xffffffffL : b.getInt(i * 4);
      default -> b.getLong(i * 8);
    };
  }

  private static boolean isText(DataType type) {
    return type.kind() == DataType.Kind.FIXED_UTF32
        || type.kind() == DataType.Kind.STRING
        || type.kind() == DataType.Kind.BYTES;
  }

  /** The values of a text coordinate, each as its UTF-8 (or raw) bytes. */
  private static byte[][] textLabels(Slab coordinate) {
    DataType type = coordinate.dataType();
    int n = (int) coordinate.elementCount();
    try (BufferAllocator allocator =
            coordinate
                .data()
                .getReferenceManager()
                .getAllocator()
                .newChildAllocator("labels", 0, Long.MAX_VALUE);
        BaseVariableWidthVector vector =
            type.kind() == DataType.Kind.BYTES
                ? new VarBinaryVector("labels", allocator)
                : new VarCharVector("labels", allocator)) {
      if (type.kind() == DataType.Kind.FIXED_UTF32) {
        SlabVectors.fillFromUtf32(vector, coordinate.data(), 0, n, type.byteSize());
      } else {
        SlabVectors.fillVariableWidth(vector, coordinate.data(), 0, n);
      }
      byte[][] out = new byte[n][];
      for (int i = 0; i < n; i++) {
        out[i] = vector.isNull(i) ? new byte[0] : vector.get(i);
      }
      return out;
    }
  }

  /** The coordinate's CF time when CF decoding makes one of it, else null. */
  private static CfConventions.CfTime cfTime(
      String name, DataType type, ArrayMetadata meta, boolean cf) {
    boolean numeric =
        type.kind() == DataType.Kind.INT
            || type.kind() == DataType.Kind.UINT
            || type.kind() == DataType.Kind.FLOAT;
    if (!cf || !numeric || type.fallbackFormat().isPresent() || type.bits() < 8) {
      return null;
    }
    return CfConventions.CfTime.of(meta.attributes(), "coordinate '" + name + "'").orElse(null);
  }

  /**
   * The field of a dimension column whose coordinate array has metadata {@code meta}, from metadata
   * alone (no values read); null when the column is the index instead (a type no column can hold:
   * bool, complex, narrow or bit-pattern types).
   */
  public static Field field(String name, ArrayMetadata meta, boolean cf) {
    DataType type = meta.dataType();
    if (isText(type)) {
      return new Field(
          name,
          FieldType.notNullable(
              type.kind() == DataType.Kind.BYTES
                  ? ArrowType.Binary.INSTANCE
                  : ArrowType.Utf8.INSTANCE),
          null);
    }
    boolean orderable =
        switch (type.kind()) {
          case INT, UINT, FLOAT, DATETIME, TIMEDELTA -> true;
          default -> false;
        };
    if (!orderable || type.fallbackFormat().isPresent() || type.bits() < 8) {
      return null;
    }
    CfConventions.CfTime time = cfTime(name, type, meta, cf);
    if (time != null) {
      return new Field(
          name, new FieldType(false, time.arrowType(), null, time.fieldMetadata()), null);
    }
    return new Field(name, FieldType.notNullable(ArrowTypes.valueType(type)), null);
  }

  @Override
  public int dim() {
    return dim;
  }

  @Override
  public String name() {
    return field.getName();
  }

  /** True for CF times (kind TIMES), which predicates may compare with dates. */
  @Override
  public boolean isEpochMicros() {
    return kind() == Kind.TIMES && field.getType() instanceof ArrowType.Timestamp;
  }

  @Override
  public boolean isLabels() {
    return kind() == Kind.LABELS;
  }

  /** The column's Arrow field. */
  public Field field() {
    return field;
  }

  /** Bytes per row of the column's data buffer. */
  public int width() {
    return width;
  }

  /** What the column holds: indices, coordinate values, times or labels. */
  public Kind kind() {
    return kind;
  }

  /** The label at array index {@code i} (kind LABELS): UTF-8 text, or bytes for a Binary column. */
  @Override
  public byte[] labelAt(long i) {
    return labels()[(int) i].clone();
  }

  /** The number of labels (kind LABELS), else 0. */
  public int labelCount() {
    return kind == Kind.LABELS ? labels().length : 0;
  }

  /** Labels (kind LABELS), else null. Not copied: do not modify. */
  byte[][] labels() {
    return kind == Kind.LABELS ? values().labels() : null;
  }

  /**
   * The coordinate values as stored, or as Arrow's time unit (kind VALUES), else null. Not copied:
   * do not modify.
   */
  byte[] storedValues() {
    return kind == Kind.VALUES ? values().values() : null;
  }

  /** Epoch microseconds (kind TIMES), else null. Not copied: do not modify. */
  long[] times() {
    return kind == Kind.TIMES ? values().times() : null;
  }

  /** The coordinate's data type (kinds VALUES, TIMES and LABELS), else null. */
  public DataType type() {
    return type;
  }

  /**
   * The column's value at array index {@code i} as a number for ordering: the index itself, epoch
   * microseconds, or the coordinate value (unsigned 64-bit values above 2^63 lose precision); NaN
   * for labels, which have no numeric order.
   */
  @Override
  public double valueAt(long i) {
    if (kind() == Kind.LABELS) {
      return Double.NaN;
    }
    if (kind() == Kind.INDEX) {
      return i;
    }
    if (kind() == Kind.TIMES) {
      return times()[(int) i];
    }
    ByteBuffer b = ByteBuffer.wrap(storedValues()).order(ByteOrder.LITTLE_ENDIAN);
    int at = (int) (i * width);
    return switch (type.kind()) {
      case FLOAT ->
          switch (type.bits()) {
            case 16 -> HalfFloat.toFloat(b.getShort(at));
            case 32 -> b.getFloat(at);
            default -> b.getDouble(at);
          };
      case UINT ->
          switch (type.bits()) {
            case 8 -> b.get(at) & 0xff;
            case 16 -> b.getShort(at) & 0xffff;
            case 32 -> b.getInt(at) & 0xffffffffL;
            default -> {
              long v = b.getLong(at);
              yield v >= 0 ? v : (v >>> 1) * 2.0 + (v & 1);
            }
          };
      default ->
          switch (8 * width) { // a converted time coordinate's Arrow width (date32: 4 bytes)
            case 8 -> b.get(at);
            case 16 -> b.getShort(at);
            case 32 -> b.getInt(at);
            default -> (double) b.getLong(at);
          };
    };
  }
}
