package dev.zaro.arrow.vector.internal;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.NumpyTime;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * numpy datetime64 and timedelta64 values as Arrow vectors, by {@link NumpyTime}'s one mapping:
 * date32 for days (D, W, and the first day of M and Y), timestamps and durations in seconds for h
 * and m (and W, D for durations), s..ns as stored, a month interval for timedelta M and Y. NaT is a
 * null. Values already in their Arrow unit are loaded by reference (no copy); the others are
 * converted, and a value that does not fit is an error naming the array and the unit.
 */
public final class TimeValues {
  private TimeValues() {}

  /** Whether {@code type} is a datetime64 or timedelta64 type. */
  public static boolean isTime(DataType type) {
    return type.kind() == DataType.Kind.DATETIME || type.kind() == DataType.Kind.TIMEDELTA;
  }

  /** The Arrow type of values of the time type {@code type}. */
  public static ArrowType arrowType(DataType type) {
    boolean datetime = type.kind() == DataType.Kind.DATETIME;
    NumpyTime.Target target = type.time().target(datetime);
    return switch (target) {
      case DAYS -> new ArrowType.Date(DateUnit.DAY);
      case MONTHS -> new ArrowType.Interval(IntervalUnit.YEAR_MONTH);
      default -> {
        TimeUnit unit =
            switch (target) {
              case SECONDS -> TimeUnit.SECOND;
              case MILLIS -> TimeUnit.MILLISECOND;
              case MICROS -> TimeUnit.MICROSECOND;
              default -> TimeUnit.NANOSECOND;
            };
        yield datetime ? new ArrowType.Timestamp(unit, null) : new ArrowType.Duration(unit);
      }
    };
  }

  /**
   * Loads {@code count} contiguous stored values (int64, little endian) starting at byte {@code
   * offset} of {@code data} into {@code vector} (a vector of {@link #arrowType}). Without NaT and
   * already in the Arrow unit, the vector shares {@code data}; else it gets converted buffers.
   *
   * @param where the array, for the error message
   * @throws ZaroException naming the array and the unit when a value does not fit its Arrow type
   */
  public static void load(
      FieldVector vector, DataType type, ArrowBuf data, long offset, long count, String where) {
    long base = data.memoryAddress() + offset;
    if (type.time().isIdentity()) {
      long nat = 0;
      for (long i = 0; i < count; i++) {
        if (MemoryUtil.getLong(base + i * 8) == NumpyTime.NAT) {
          nat++;
        }
      }
      BufferAllocator allocator = vector.getAllocator();
      ArrowBuf slice = data.slice(offset, count * 8);
      if (nat == 0) {
        vector.loadFieldBuffers(new ArrowFieldNode(count, 0), List.of(allocator.getEmpty(), slice));
        return;
      }
      try (ArrowBuf valid = validity(allocator, count, base, 8)) {
        vector.loadFieldBuffers(new ArrowFieldNode(count, nat), List.of(valid, slice));
      }
      return;
    }
    load(
        vector,
        type,
        count,
        visit -> {
          for (long i = 0; i < count; i++) {
            visit.accept(base + i * 8);
          }
        },
        where);
  }

  /**
   * Loads {@code count} stored values, at the addresses {@code addresses} visits in order, into
   * {@code vector} (a vector of {@link #arrowType}), converted; NaT becomes null.
   *
   * @param where the array (and field), for the error message
   * @throws ZaroException naming the array and the unit when a value does not fit its Arrow type
   */
  public static void load(
      FieldVector vector,
      DataType type,
      long count,
      Consumer<LongConsumer> addresses,
      String where) {
    boolean datetime = type.kind() == DataType.Kind.DATETIME;
    NumpyTime unit = type.time();
    int width = unit.target(datetime).bytes();
    BufferAllocator allocator = vector.getAllocator();
    try (ArrowBuf valid = allocator.buffer(Math.max(1, (count + 7) / 8));
        ArrowBuf out = allocator.buffer(Math.max(1, Math.multiplyExact(count, width)))) {
      valid.setZero(0, valid.capacity());
      long[] i = {0};
      long[] nulls = {0};
      long validAddress = valid.memoryAddress();
      long outAddress = out.memoryAddress();
      addresses.accept(
          a -> {
            long v = MemoryUtil.getLong(a);
            long n = i[0]++;
            if (v == NumpyTime.NAT) {
              nulls[0]++;
              // under the null, the smallest value of the width, as numpy keeps NaT
              if (width == 4) {
                MemoryUtil.putInt(outAddress + n * 4, Integer.MIN_VALUE);
              } else {
                MemoryUtil.putLong(outAddress + n * 8, NumpyTime.NAT);
              }
              return;
            }
            long converted;
            try {
              converted = unit.convert(v, datetime);
            } catch (ArithmeticException e) {
              throw new ZaroException(
                  ErrorKind.UNSUPPORTED, where + " (" + type + "): " + e.getMessage(), e);
            }
            if (width == 4) {
              MemoryUtil.putInt(outAddress + n * 4, (int) converted);
            } else {
              MemoryUtil.putLong(outAddress + n * 8, converted);
            }
            long b = validAddress + (n >>> 3);
            MemoryUtil.putByte(b, (byte) (MemoryUtil.getByte(b) | (1 << (n & 7))));
          });
      vector.loadFieldBuffers(new ArrowFieldNode(count, nulls[0]), List.of(valid, out));
    }
  }

  /**
   * A validity bitmap of {@code count} values of {@code stride} bytes at {@code base}: NaT unset.
   */
  private static ArrowBuf validity(BufferAllocator allocator, long count, long base, long stride) {
    ArrowBuf valid = allocator.buffer(Math.max(1, (count + 7) / 8));
    valid.setZero(0, valid.capacity());
    long address = valid.memoryAddress();
    for (long i = 0; i < count; i++) {
      if (MemoryUtil.getLong(base + i * stride) != NumpyTime.NAT) {
        long b = address + (i >>> 3);
        MemoryUtil.putByte(b, (byte) (MemoryUtil.getByte(b) | (1 << (i & 7))));
      }
    }
    return valid;
  }
}
