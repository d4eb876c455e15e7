package dev.zaro.arrow.metadata.internal;

import dev.zaro.arrow.metadata.MiniFloat;

/** IEEE 754 binary16 conversions (Java 17 has no {@code Float.floatToFloat16}). */
public final class HalfFloat {
  private HalfFloat() {}

  /**
   * Rounds a double to the nearest binary16 (ties to even) in one step, as numpy does (no
   * intermediate rounding to float), and returns its bits.
   */
  public static short fromDouble(double d) {
    return (short) MiniFloat.BINARY16.encode(d);
  }

  /** The value of binary16 bits. */
  public static float toFloat(short h) {
    int bits = h & 0xffff;
    int sign = (bits & 0x8000) << 16;
    int exp = (bits >>> 10) & 0x1f;
    int mant = bits & 0x3ff;
    if (exp == 0x1f) {
      return Float.intBitsToFloat(sign | 0x7f800000 | (mant << 13));
    }
    if (exp == 0) {
      float v = mant / 1024f / 16384f;
      return sign != 0 ? -v : v;
    }
    return Float.intBitsToFloat(sign | ((exp - 15 + 127) << 23) | (mant << 13));
  }
}
