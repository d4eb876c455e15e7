package dev.zaro.arrow.codec.numcodecs;

import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.internal.HalfFloat;
import org.apache.arrow.memory.ArrowBuf;

/**
 * Element access and numpy's casts ({@code astype}) on zaro's in-memory layout (little-endian
 * elements, bool as one byte 0/1), for the numcodecs filters. Integers travel as {@code long} bits
 * (uint64 included), floats as {@code double}.
 */
final class Elements {
  private Elements() {}

  private static final double TWO_63 = 0x1p63;

  /** Whether the filters can work on elements of {@code type}. */
  static boolean isNumeric(DataType type) {
    return switch (type.kind()) {
      case BOOL, INT, UINT, FLOAT -> true;
      default -> false;
    };
  }

  static boolean isInteger(DataType type) {
    return type.kind() == DataType.Kind.INT
        || type.kind() == DataType.Kind.UINT
        || type.kind() == DataType.Kind.BOOL;
  }

  /** Element {@code i} of an integer or bool type, sign- or zero-extended. */
  static long getLong(ArrowBuf buf, long i, DataType type) {
    boolean signed = type.kind() == DataType.Kind.INT;
    return switch (type.bits()) {
      case 8 -> signed ? buf.getByte(i) : buf.getByte(i) & 0xffL;
      case 16 -> signed ? buf.getShort(i * 2) : buf.getShort(i * 2) & 0xffffL;
      case 32 -> signed ? buf.getInt(i * 4) : buf.getInt(i * 4) & 0xffffffffL;
      default -> buf.getLong(i * 8);
    };
  }

  /** Element {@code i} of a float type. */
  static double getFloat(ArrowBuf buf, long i, DataType type) {
    return switch (type.bits()) {
      case 16 -> HalfFloat.toFloat(buf.getShort(i * 2));
      case 32 -> buf.getFloat(i * 4);
      default -> buf.getDouble(i * 8);
    };
  }

  /** Element {@code i} as a double, as numpy converts it (uint64 as unsigned). */
  static double getDouble(ArrowBuf buf, long i, DataType type) {
    return type.kind() == DataType.Kind.FLOAT
        ? getFloat(buf, i, type)
        : toDouble(getLong(buf, i, type), type);
  }

  /** An integer of {@code type} (bits as from {@link #getLong}) as the nearest double. */
  static double toDouble(long v, DataType type) {
    if (type.kind() == DataType.Kind.UINT && type.bits() == 64 && v < 0) {
      return ((v >>> 1) | (v & 1)) * 2.0;
    }
    return v;
  }

  /** An integer of {@code type} as the nearest float (one rounding, as numpy casts). */
  static float toFloat(long v, DataType type) {
    if (type.kind() == DataType.Kind.UINT && type.bits() == 64 && v < 0) {
      return ((v >>> 1) | (v & 1)) * 2.0f;
    }
    return v;
  }

  /** Writes the low bytes of {@code v} as element {@code i} (bool: nonzero is 1). */
  static void putLong(ArrowBuf buf, long i, DataType type, long v) {
    if (type.kind() == DataType.Kind.BOOL) {
      buf.setByte(i, v != 0 ? 1 : 0);
      return;
    }
    switch (type.bits()) {
      case 8 -> buf.setByte(i, (byte) v);
      case 16 -> buf.setShort(i * 2, (short) v);
      case 32 -> buf.setInt(i * 4, (int) v);
      default -> buf.setLong(i * 8, v);
    }
  }

  /** Writes {@code v} as element {@code i}, cast as numpy casts a float64. */
  static void putDouble(ArrowBuf buf, long i, DataType type, double v) {
    switch (type.kind()) {
      case FLOAT -> {
        switch (type.bits()) {
          case 16 -> buf.setShort(i * 2, halfFromDouble(v));
          case 32 -> buf.setFloat(i * 4, (float) v);
          default -> buf.setDouble(i * 8, v);
        }
      }
      case BOOL -> buf.setByte(i, v != 0 || Double.isNaN(v) ? 1 : 0);
      default -> putLong(buf, i, type, doubleToLong(v, type));
    }
  }

  /**
   * A float cast to an integer: truncation toward zero, as C casts. NaN and values outside int64
   * give int64's minimum, as x86 does (numpy leaves them undefined).
   */
  static long doubleToLong(double v, DataType type) {
    if (type.kind() == DataType.Kind.UINT && type.bits() == 64 && v >= TWO_63 && v < 2 * TWO_63) {
      return (long) (v - TWO_63) + Long.MIN_VALUE;
    }
    if (Double.isNaN(v) || v >= TWO_63 || v < -TWO_63) {
      return Long.MIN_VALUE;
    }
    return (long) v;
  }

  /** Rounds a double to the nearest binary16 (ties to even) in one step, as numpy does. */
  static short halfFromDouble(double d) {
    return HalfFloat.fromDouble(d);
  }

  /** Rounds a float-precision result to binary16, as numpy's half arithmetic does. */
  static double roundHalf(double v) {
    return HalfFloat.toFloat(halfFromDouble(v));
  }

  /**
   * Casts element {@code i} of {@code from} in {@code in} to {@code to}, written as element {@code
   * i} of {@code out}: numpy's {@code astype}.
   */
  static void cast(ArrowBuf in, DataType from, ArrowBuf out, DataType to, long i) {
    if (isInteger(from)) {
      long v = getLong(in, i, from);
      if (isInteger(to)) {
        putLong(out, i, to, v);
      } else if (to.bits() == 32) {
        out.setFloat(i * 4, toFloat(v, from));
      } else {
        putDouble(out, i, to, toDouble(v, from));
      }
    } else {
      putDouble(out, i, to, getFloat(in, i, from));
    }
  }
}
