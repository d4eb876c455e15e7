package dev.zaro.trino;

import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.trino.spi.block.Block;
import io.trino.spi.block.ByteArrayBlock;
import io.trino.spi.block.Fixed12Block;
import io.trino.spi.block.Int128ArrayBlock;
import io.trino.spi.block.IntArrayBlock;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.block.ShortArrayBlock;
import io.trino.spi.block.VariableWidthBlock;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.BooleanType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.RealType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarbinaryType;
import io.trino.spi.type.VarcharType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The Trino side of zaro's table layout: the Trino type of each Arrow column, and the Trino block
 * of an Arrow vector. Types are DuckDB's for the same Arrow column ({@code zaro sql}) where Trino
 * has them: signed integers, REAL, DOUBLE, BOOLEAN, VARCHAR, VARBINARY, DATE and TIMESTAMP(p) for
 * time zone-less timestamps (CF times, numpy datetime64: p = 0, 3, 6 or 9 by unit). Trino has no
 * unsigned integers, so uint8/16/32 widen to SMALLINT/INTEGER/BIGINT and uint64 is DECIMAL(20, 0)
 * (as Spark reads them); float16 widens to REAL.
 *
 * <p>Blocks are copied out of the Arrow buffers (Trino's blocks live on the heap): fixed-width
 * values and validity bitmaps (Trino's bitmap is Arrow's, least significant bit first) in bulk.
 */
final class TrinoColumns {
  private TrinoColumns() {}

  /** Every type {@link #type(Field)} gives. */
  private static final List<Type> TYPES =
      List.of(
          TinyintType.TINYINT,
          SmallintType.SMALLINT,
          IntegerType.INTEGER,
          BigintType.BIGINT,
          DecimalType.createDecimalType(20, 0),
          RealType.REAL,
          DoubleType.DOUBLE,
          BooleanType.BOOLEAN,
          VarcharType.VARCHAR,
          VarbinaryType.VARBINARY,
          DateType.DATE,
          TimestampType.TIMESTAMP_SECONDS,
          TimestampType.TIMESTAMP_MILLIS,
          TimestampType.TIMESTAMP_MICROS,
          TimestampType.TIMESTAMP_NANOS);

  /**
   * The type a column handle's JSON names by its id ({@code bigint}, {@code timestamp(6)}...).
   *
   * @throws IllegalArgumentException for a type no column of the connector has
   */
  static Type type(String id) {
    for (Type t : TYPES) {
      if (t.getTypeId().getId().equals(id) || t.getDisplayName().equals(id)) {
        return t;
      }
    }
    throw new IllegalArgumentException("zarr: no column has type '" + id + "'");
  }

  /** The Trino type of an Arrow column, or empty when Trino has none for it. */
  static Optional<Type> type(Field field) {
    ArrowType t = field.getType();
    if (t instanceof ArrowType.Int i) {
      return Optional.of(
          switch (i.getBitWidth()) {
            case 8 -> i.getIsSigned() ? TinyintType.TINYINT : SmallintType.SMALLINT;
            case 16 -> i.getIsSigned() ? SmallintType.SMALLINT : IntegerType.INTEGER;
            case 32 -> i.getIsSigned() ? IntegerType.INTEGER : BigintType.BIGINT;
            default -> i.getIsSigned() ? BigintType.BIGINT : DecimalType.createDecimalType(20, 0);
          });
    }
    if (t instanceof ArrowType.FloatingPoint f) {
      return Optional.of(
          f.getPrecision() == FloatingPointPrecision.DOUBLE ? DoubleType.DOUBLE : RealType.REAL);
    }
    if (t instanceof ArrowType.Bool) {
      return Optional.of(BooleanType.BOOLEAN);
    }
    if (t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8) {
      return Optional.of(VarcharType.VARCHAR);
    }
    if (t instanceof ArrowType.Binary
        || t instanceof ArrowType.LargeBinary
        || t instanceof ArrowType.FixedSizeBinary) {
      return Optional.of(VarbinaryType.VARBINARY);
    }
    if (t instanceof ArrowType.Timestamp ts && ts.getTimezone() == null) {
      return Optional.of(
          switch (ts.getUnit()) {
            case SECOND -> TimestampType.TIMESTAMP_SECONDS;
            case MILLISECOND -> TimestampType.TIMESTAMP_MILLIS;
            case MICROSECOND -> TimestampType.TIMESTAMP_MICROS;
            case NANOSECOND -> TimestampType.TIMESTAMP_NANOS;
          });
    }
    if (t instanceof ArrowType.Date d && d.getUnit() == DateUnit.DAY) {
      return Optional.of(DateType.DATE);
    }
    return Optional.empty();
  }

  /** The block of the first {@code rows} values of {@code vector}, as {@link #type} types it. */
  static Block block(FieldVector vector, int rows) {
    ArrowType t = vector.getField().getType();
    Optional<long[]> valid = validity(vector, rows);
    if (t instanceof ArrowType.Int i) {
      return switch (i.getBitWidth()) {
        case 8 ->
            i.getIsSigned()
                ? new ByteArrayBlock(rows, valid, bytes(vector, rows))
                : new ShortArrayBlock(rows, valid, widenBytes(vector, rows));
        case 16 ->
            i.getIsSigned()
                ? new ShortArrayBlock(rows, valid, shorts(vector, rows))
                : new IntArrayBlock(rows, valid, widenShorts(vector, rows));
        case 32 ->
            i.getIsSigned()
                ? new IntArrayBlock(rows, valid, ints(vector, rows))
                : new LongArrayBlock(rows, valid, widenInts(vector, rows));
        default ->
            i.getIsSigned()
                ? new LongArrayBlock(rows, valid, longs(vector, rows))
                : new Int128ArrayBlock(rows, valid, unsigned128(vector, rows));
      };
    }
    if (t instanceof ArrowType.FloatingPoint f) {
      return switch (f.getPrecision()) {
        case DOUBLE -> new LongArrayBlock(rows, valid, longs(vector, rows)); // raw double bits
        case SINGLE -> new IntArrayBlock(rows, valid, ints(vector, rows)); // raw float bits
        case HALF -> new IntArrayBlock(rows, valid, halfToFloatBits((Float2Vector) vector, rows));
      };
    }
    if (t instanceof ArrowType.Bool) {
      BitVector bits = (BitVector) vector;
      byte[] out = new byte[rows];
      for (int r = 0; r < rows; r++) {
        out[r] = (byte) (bits.isNull(r) ? 0 : bits.get(r));
      }
      return new ByteArrayBlock(rows, valid, out);
    }
    if (t instanceof ArrowType.Timestamp ts) {
      long[] values = longs(vector, rows);
      if (ts.getUnit() == TimeUnit.NANOSECOND) {
        int[] fixed = new int[rows * 3];
        for (int r = 0; r < rows; r++) {
          long micros = Math.floorDiv(values[r], 1000L);
          int picos = (int) Math.floorMod(values[r], 1000L) * 1000;
          Fixed12Block.encodeFixed12(micros, picos, fixed, r);
        }
        return new Fixed12Block(rows, valid, fixed);
      }
      long scale =
          switch (ts.getUnit()) {
            case SECOND -> 1_000_000L;
            case MILLISECOND -> 1_000L;
            default -> 1L;
          };
      if (scale != 1) {
        for (int r = 0; r < rows; r++) {
          values[r] *= scale; // short timestamps are epoch microseconds whatever the precision
        }
      }
      return new LongArrayBlock(rows, valid, values);
    }
    if (t instanceof ArrowType.Date) {
      return new IntArrayBlock(rows, valid, ints(vector, rows));
    }
    if (vector instanceof BaseVariableWidthVector v) {
      int[] offsets = new int[rows + 1];
      v.getOffsetBuffer()
          .nioBuffer(0, (rows + 1) * 4)
          .order(ByteOrder.LITTLE_ENDIAN)
          .asIntBuffer()
          .get(offsets);
      int length = offsets[rows] - offsets[0];
      byte[] data = new byte[length];
      v.getDataBuffer().getBytes(offsets[0], data);
      if (offsets[0] != 0) {
        int first = offsets[0];
        for (int r = 0; r <= rows; r++) {
          offsets[r] -= first;
        }
      }
      return new VariableWidthBlock(rows, Slices.wrappedBuffer(data), offsets, valid);
    }
    if (vector instanceof BaseLargeVariableWidthVector v) {
      ArrowBuf offsetBuffer = v.getOffsetBuffer();
      long first = offsetBuffer.getLong(0);
      long last = offsetBuffer.getLong((long) rows * 8);
      int[] offsets = new int[rows + 1];
      for (int r = 0; r <= rows; r++) {
        offsets[r] = Math.toIntExact(offsetBuffer.getLong((long) r * 8) - first);
      }
      byte[] data = new byte[Math.toIntExact(last - first)];
      v.getDataBuffer().getBytes(first, data);
      return new VariableWidthBlock(rows, Slices.wrappedBuffer(data), offsets, valid);
    }
    if (vector instanceof FixedSizeBinaryVector v) {
      int width = v.getByteWidth();
      byte[] data = new byte[Math.multiplyExact(width, rows)];
      v.getDataBuffer().getBytes(0, data);
      int[] offsets = new int[rows + 1];
      for (int r = 0; r <= rows; r++) {
        offsets[r] = r * width;
      }
      Slice slice = Slices.wrappedBuffer(data);
      return new VariableWidthBlock(rows, slice, offsets, valid);
    }
    throw new IllegalArgumentException(
        "zarr: column '"
            + vector.getField().getName()
            + "' has Arrow type "
            + t
            + ", no Trino type");
  }

  /** Arrow's validity bitmap as Trino's (the same bits), or empty when no value is null. */
  private static Optional<long[]> validity(FieldVector vector, int rows) {
    if (vector.getNullCount() == 0) {
      return Optional.empty();
    }
    long[] bits = new long[(rows + 63) >>> 6];
    ArrowBuf validity = vector.getValidityBuffer();
    int bytes = (rows + 7) >>> 3;
    ByteBuffer buffer = ByteBuffer.allocate(bits.length * 8).order(ByteOrder.LITTLE_ENDIAN);
    validity.getBytes(0, buffer.array(), 0, bytes);
    buffer.asLongBuffer().get(bits);
    int tail = rows & 63;
    if (tail != 0) {
      bits[bits.length - 1] &= (1L << tail) - 1; // bits past the last row: not valid
    }
    return Optional.of(bits);
  }

  private static ByteBuffer data(FieldVector vector, int rows, int width) {
    return vector
        .getDataBuffer()
        .nioBuffer(0, Math.multiplyExact(rows, width))
        .order(ByteOrder.LITTLE_ENDIAN);
  }

  private static byte[] bytes(FieldVector vector, int rows) {
    byte[] out = new byte[rows];
    data(vector, rows, 1).get(out);
    return out;
  }

  private static short[] shorts(FieldVector vector, int rows) {
    short[] out = new short[rows];
    data(vector, rows, 2).asShortBuffer().get(out);
    return out;
  }

  private static int[] ints(FieldVector vector, int rows) {
    int[] out = new int[rows];
    data(vector, rows, 4).asIntBuffer().get(out);
    return out;
  }

  private static long[] longs(FieldVector vector, int rows) {
    long[] out = new long[rows];
    data(vector, rows, 8).asLongBuffer().get(out);
    return out;
  }

  private static short[] widenBytes(FieldVector vector, int rows) {
    byte[] in = bytes(vector, rows);
    short[] out = new short[rows];
    for (int r = 0; r < rows; r++) {
      out[r] = (short) (in[r] & 0xff);
    }
    return out;
  }

  private static int[] widenShorts(FieldVector vector, int rows) {
    short[] in = shorts(vector, rows);
    int[] out = new int[rows];
    for (int r = 0; r < rows; r++) {
      out[r] = in[r] & 0xffff;
    }
    return out;
  }

  private static long[] widenInts(FieldVector vector, int rows) {
    int[] in = ints(vector, rows);
    long[] out = new long[rows];
    for (int r = 0; r < rows; r++) {
      out[r] = in[r] & 0xffffffffL;
    }
    return out;
  }

  /** uint64 as Trino's Int128 (high word, then low word, per value): never negative. */
  private static long[] unsigned128(FieldVector vector, int rows) {
    long[] in = longs(vector, rows);
    long[] out = new long[rows * 2];
    for (int r = 0; r < rows; r++) {
      out[2 * r + 1] = in[r];
    }
    return out;
  }

  private static int[] halfToFloatBits(Float2Vector vector, int rows) {
    int[] out = new int[rows];
    for (int r = 0; r < rows; r++) {
      out[r] = vector.isNull(r) ? 0 : Float.floatToRawIntBits(vector.getValueAsFloat(r));
    }
    return out;
  }
}
