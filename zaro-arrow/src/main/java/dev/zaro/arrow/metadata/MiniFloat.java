package dev.zaro.arrow.metadata;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A binary floating-point format of at most 16 bits (IEEE binary16, bfloat16, the float8 families
 * of ml_dtypes), described by its field widths, exponent bias and how it spells infinity and NaN.
 * Converts doubles to its bit patterns with one correct rounding (to nearest, ties to even), as
 * numpy and ml_dtypes do.
 *
 * @param name the Zarr v3 data type name
 * @param exponentBits exponent field width
 * @param mantissaBits mantissa field width
 * @param bias exponent bias
 * @param style how infinities, NaN and negative zero are encoded
 */
public record MiniFloat(String name, int exponentBits, int mantissaBits, int bias, Style style) {

  /** The encodings of special values a format family uses. */
  public enum Style {
    /** IEEE 754: all-ones exponent is infinity (mantissa 0) or NaN; signed zeros. */
    IEEE,
    /** "fn" (finite): no infinities; all-ones exponent and mantissa is NaN; signed zeros. */
    FINITE,
    /**
     * "fnuz" (finite, unsigned zero): no infinities, no negative zero; NaN is the sign bit alone.
     */
    FINITE_UNSIGNED_ZERO,
    /**
     * The OCP MX 4- and 6-bit formats ("fn" without NaN): every pattern is a finite number, signed
     * zeros; overflow and infinity saturate to the largest magnitude and NaN becomes -0, as
     * ml_dtypes converts.
     */
    EXTENDED,
    /**
     * OCP MX E8M0 ("fnu", float8_e8m0fnu): no sign bit and no mantissa, every pattern a power of
     * two 2^(e - bias) but 0xff, which is NaN; no zero, no infinity. A double rounds as ml_dtypes
     * converts it: through float32, then to the nearer power of two by its mantissa (1.5 and above
     * round up; float32 subnormals above 2^-127 round up to 2^-126); zero, negatives, infinities
     * and overflow give NaN.
     */
    EXPONENT_ONLY
  }

  /** IEEE binary16 (float16). */
  public static final MiniFloat BINARY16 = new MiniFloat("float16", 5, 10, 15, Style.IEEE);

  /** bfloat16: float32's exponent with 7 mantissa bits. */
  public static final MiniFloat BFLOAT16 = new MiniFloat("bfloat16", 8, 7, 127, Style.IEEE);

  /**
   * The formats zaro knows by v3 name, besides float16: bfloat16, the float8 types and the OCP MX
   * float6/float4 types of zarr-extensions (stored one value a byte, in the low bits).
   */
  private static final Map<String, MiniFloat> NAMED =
      Stream.of(
              BFLOAT16,
              new MiniFloat("float8_e5m2", 5, 2, 15, Style.IEEE),
              new MiniFloat("float8_e4m3fn", 4, 3, 7, Style.FINITE),
              new MiniFloat("float8_e4m3fnuz", 4, 3, 8, Style.FINITE_UNSIGNED_ZERO),
              new MiniFloat("float8_e4m3b11fnuz", 4, 3, 11, Style.FINITE_UNSIGNED_ZERO),
              new MiniFloat("float8_e5m2fnuz", 5, 2, 16, Style.FINITE_UNSIGNED_ZERO),
              new MiniFloat("float8_e4m3", 4, 3, 7, Style.IEEE),
              new MiniFloat("float8_e3m4", 3, 4, 3, Style.IEEE),
              new MiniFloat("float8_e8m0fnu", 8, 0, 127, Style.EXPONENT_ONLY),
              new MiniFloat("float6_e2m3fn", 2, 3, 1, Style.EXTENDED),
              new MiniFloat("float6_e3m2fn", 3, 2, 3, Style.EXTENDED),
              new MiniFloat("float4_e2m1fn", 2, 1, 1, Style.EXTENDED))
          .collect(Collectors.toUnmodifiableMap(MiniFloat::name, f -> f));

  /**
   * The format called {@code name} in Zarr v3 (bfloat16, float8_e4m3fn, ...), other than float16.
   */
  public static Optional<MiniFloat> named(String name) {
    return Optional.ofNullable(NAMED.get(name));
  }

  /** The names of {@link #named} formats, sorted. */
  public static List<String> names() {
    return NAMED.keySet().stream().sorted().toList();
  }

  /** Total width in bits (4, 6, 8 or 16 for the named formats). */
  public int bits() {
    return (style == Style.EXPONENT_ONLY ? 0 : 1) + exponentBits + mantissaBits;
  }

  /**
   * The float32 bits of the value of {@code pattern} (its low {@link #bits()} bits), exactly: every
   * value of these formats is a float32 value. Signed zeros and infinities stay themselves; NaN
   * becomes float32's quiet NaN of the pattern's sign (bfloat16 keeps its payload: its bits are the
   * top half of a float32's), as ml_dtypes widens with {@code astype(np.float32)}.
   */
  public int toFloatBits(int pattern) {
    int p = pattern & ((1 << bits()) - 1);
    if (exponentBits == 8 && mantissaBits == 7) {
      return p << 16; // bfloat16: the top half of a float32
    }
    int maxExponentField = (1 << exponentBits) - 1;
    int mantissaMask = (1 << mantissaBits) - 1;
    if (style == Style.EXPONENT_ONLY) {
      return p == maxExponentField
          ? 0x7fc00000
          : Float.floatToRawIntBits((float) Math.scalb(1.0, p - bias));
    }
    boolean negative = (p >>> (exponentBits + mantissaBits)) != 0;
    int exponentField = (p >>> mantissaBits) & maxExponentField;
    int mantissa = p & mantissaMask;
    int signBit = negative ? 0x80000000 : 0;
    boolean nan =
        switch (style) {
          case IEEE -> exponentField == maxExponentField && mantissa != 0;
          case FINITE -> exponentField == maxExponentField && mantissa == mantissaMask;
          case FINITE_UNSIGNED_ZERO -> negative && exponentField == 0 && mantissa == 0;
          default -> false;
        };
    if (nan) {
      return signBit | 0x7fc00000;
    }
    if (style == Style.IEEE && exponentField == maxExponentField) {
      return signBit | 0x7f800000;
    }
    double magnitude =
        exponentField == 0
            ? Math.scalb((double) mantissa, 1 - bias - mantissaBits)
            : Math.scalb(
                (double) ((1 << mantissaBits) | mantissa), exponentField - bias - mantissaBits);
    return signBit | Float.floatToRawIntBits((float) magnitude);
  }

  /** The value of {@code pattern} as a float (see {@link #toFloatBits}). */
  public float toFloat(int pattern) {
    return Float.intBitsToFloat(toFloatBits(pattern));
  }

  /**
   * Whether {@code value} (a double) is exactly the value of some pattern, signed zeros
   * distinguished: what a cast to this format can take without rounding. NaN counts when the format
   * has a NaN.
   */
  public boolean holdsExactly(double value) {
    if (Double.isNaN(value)) {
      return style != Style.EXTENDED;
    }
    double back = toFloat(encode(value));
    return Double.doubleToLongBits(back) == Double.doubleToLongBits(value);
  }

  /**
   * The bit pattern nearest to {@code d}: overflow gives infinity (IEEE) or NaN (finite formats).
   */
  public int encode(double d) {
    if (style == Style.EXPONENT_ONLY) {
      return encodeExponentOnly(d);
    }
    long raw = Double.doubleToRawLongBits(d);
    int sign = raw < 0 ? 1 << (exponentBits + mantissaBits) : 0;
    int maxExponentField = (1 << exponentBits) - 1;
    int mantissaMask = (1 << mantissaBits) - 1;
    if (Double.isNaN(d)) {
      long payload = raw & 0xfffffffffffffL;
      return switch (style) {
        case IEEE ->
            sign
                | maxExponentField << mantissaBits
                | 1 << (mantissaBits - 1)
                | ((int) (payload >>> (52 - mantissaBits)) & mantissaMask);
        case FINITE -> sign | maxExponentField << mantissaBits | mantissaMask;
        case FINITE_UNSIGNED_ZERO, EXTENDED, EXPONENT_ONLY -> nanUnsignedZero();
      };
    }
    double a = Math.abs(d);
    if (Double.isInfinite(a)) {
      return overflow(sign);
    }
    if (a == 0) {
      return style == Style.FINITE_UNSIGNED_ZERO ? 0 : sign;
    }
    int minExponent = 1 - bias;
    int quantum = Math.max(Math.getExponent(a), minExponent) - mantissaBits;
    long r = (long) Math.rint(Math.scalb(a, -quantum));
    if (r == 0) {
      return style == Style.FINITE_UNSIGNED_ZERO ? 0 : sign;
    }
    if (r == 1L << (mantissaBits + 1)) {
      r >>= 1;
      quantum++;
    }
    int exponentField;
    int mantissa;
    if (r < 1L << mantissaBits) {
      exponentField = 0;
      mantissa = (int) r;
    } else {
      exponentField = quantum + mantissaBits + bias;
      mantissa = (int) (r - (1L << mantissaBits));
    }
    int largestFinite = style == Style.IEEE ? maxExponentField - 1 : maxExponentField;
    if (exponentField > largestFinite
        || (style == Style.FINITE
            && exponentField == maxExponentField
            && mantissa == mantissaMask)) {
      return overflow(sign);
    }
    return sign | exponentField << mantissaBits | mantissa;
  }

  private int overflow(int sign) {
    int maxExponentField = (1 << exponentBits) - 1;
    return switch (style) {
      case IEEE -> sign | maxExponentField << mantissaBits;
      case FINITE -> sign | maxExponentField << mantissaBits | (1 << mantissaBits) - 1;
      case FINITE_UNSIGNED_ZERO -> nanUnsignedZero();
      case EXTENDED -> sign | maxExponentField << mantissaBits | (1 << mantissaBits) - 1;
      case EXPONENT_ONLY -> maxExponentField;
    };
  }

  private int encodeExponentOnly(double value) {
    int nan = (1 << exponentBits) - 1;
    double d = (float) value; // as ml_dtypes: through float32 first
    if (!(d > 0) || Double.isInfinite(d)) {
      return nan; // NaN, zeros, negatives and infinities have no pattern but NaN
    }
    int e = Math.getExponent(d);
    if (e < Float.MIN_EXPONENT) {
      // below float32's normal range ml_dtypes rounds up: above 2^-127 is 2^-126
      return d > Math.scalb(1.0, -bias) ? 1 : 0;
    }
    if (Math.scalb(d, -e) >= 1.5) {
      e++;
    }
    int field = e + bias;
    return field < 0 ? 0 : Math.min(field, nan);
  }

  /**
   * Whether the format has patterns for infinity or NaN (the OCP MX float4/float6 types have
   * neither).
   */
  public boolean hasSpecialValues() {
    return style != Style.EXTENDED;
  }

  private int nanUnsignedZero() {
    return 1 << (exponentBits + mantissaBits);
  }
}
