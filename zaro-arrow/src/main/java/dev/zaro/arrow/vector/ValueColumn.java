package dev.zaro.arrow.vector;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.internal.HalfFloat;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.read.ZarrArray;
import dev.zaro.arrow.vector.internal.TimeValues;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The value column of a {@link TableReader}'s batches for a non-struct array: rows of the read's
 * slab as Arrow's vector of the value field, sharing the slab's buffer where no conversion is
 * needed, else converted: text types, CF-packed values unpacked to float64, CF masks as nulls, CF
 * times as timestamps, durations or labels, and xarray booleans.
 */
final class ValueColumn {
  private final ZarrArray array;
  private final Field valueField;
  private final CfConventions cf;
  private final DimensionBatches dims;
  private final BufferAllocator allocator;

  /**
   * @param dims where the all-ones validity buffer comes from
   */
  ValueColumn(
      ZarrArray array,
      Field valueField,
      CfConventions cf,
      DimensionBatches dims,
      BufferAllocator allocator) {
    this.array = array;
    this.valueField = valueField;
    this.cf = cf;
    this.dims = dims;
    this.allocator = allocator;
  }

  /** Rows {@code [first, first + rows)} of {@code slab} as a new vector the caller owns. */
  FieldVector vector(Slab slab, long first, long rows) {
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
          ArrowBuf valid = validity == null ? dims.allValid(rows) : validity;
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
}
