package dev.zaro.arrow.metadata;

/** IEEE 754 binary16 conversions (Java 17 has no {@code Float.floatToFloat16}). */
public final class HalfFloat {
  private HalfFloat() {}

  /**
   * Rounds a double to the nearest binary16 (ties to even) in one step, as numpy does (no
   * intermediate rounding to float), and returns its bits.
   */
  public static short fromDouble(double d) {
    long bits = Double.doubleToRawLongBits(d);
    int sign = (int) ((bits >>> 48) & 0x8000);
    int exp = (int) ((bits >>> 52) & 0x7ff);
    long mant = bits & 0xfffffffffffffL;
    if (exp == 0x7ff) {
      return (short) (sign | 0x7c00 | (mant != 0 ? 0x200 | (int) (mant >>> 42) : 0));
    }
    int e = exp - 1023 + 15;
    if (e >= 0x1f) {
      return (short) (sign | 0x7c00);
    }
    int shift;
    long significand;
    int base;
    if (e <= 0) {
      if (e < -10) {
        return (short) sign;
      }
      significand = mant | (1L << 52);
      shift = 43 - e;
      base = 0;
    } else {
      significand = mant;
      shift = 42;
      base = e << 10;
    }
    long half = significand >>> shift;
    long rem = significand & ((1L << shift) - 1);
    long mid = 1L << (shift - 1);
    long out = base + half;
    if (rem > mid || (rem == mid && (out & 1) != 0)) {
      out++;
    }
    return (short) (sign | out);
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
