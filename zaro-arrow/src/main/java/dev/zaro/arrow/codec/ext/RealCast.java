package dev.zaro.arrow.codec.ext;

import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.MiniFloat;
import dev.zaro.arrow.metadata.internal.HalfFloat;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Casts elements of one real number type (int8..uint64, float16/32/64) to another by value, with
 * the rules of zarr-extensions' {@code cast_value}: a scalar map first, then exact values, then
 * rounding (one of five modes, in an unbounded exponent range) followed by the out-of-range rule;
 * anything else is an error. NaN and infinities stay themselves between float types and are errors
 * for integer targets unless mapped. Immutable.
 *
 * <p>The ML float types (bfloat16, float8_*, float6_*, float4_e2m1fn: {@link
 * DataType#fallbackFormat}) take part as float types. As a source every value is exact in a double;
 * as a target zaro casts only values the format holds exactly (and NaN where it has one): anything
 * else is an error, never a rounding zaro has no oracle for.
 */
final class RealCast {

  /** How a value between two representable ones is rounded. */
  enum Rounding {
    NEAREST_EVEN,
    TOWARDS_ZERO,
    TOWARDS_POSITIVE,
    TOWARDS_NEGATIVE,
    NEAREST_AWAY
  }

  /** What happens to a rounded value outside the target's range. */
  enum OutOfRange {
    ERROR,
    CLAMP,
    WRAP
  }

  /** A scalar-map entry: an input value (an integer or a float) and the output element's bits. */
  record Mapping(long key, double floatKey, long output) {}

  private static final double TWO_63 = 0x1p63;

  private final String codec;
  private final DataType from;
  private final DataType to;
  private final Rounding rounding;
  private final OutOfRange outOfRange;
  private final List<Mapping> map;

  /**
   * The float32 bits of every pattern of an ML float source when the cast is that exact widening
   * (to float32, no scalar map), else null; bfloat16 needs no table (a shift).
   */
  private final int[] widening;

  RealCast(
      String codec,
      DataType from,
      DataType to,
      Rounding rounding,
      OutOfRange outOfRange,
      List<Mapping> map) {
    this.codec = codec;
    this.from = from;
    this.to = to;
    this.rounding = rounding;
    this.outOfRange = outOfRange;
    this.map = List.copyOf(map);
    MiniFloat source = from.fallbackFormat().orElse(null);
    if (source != null && to.kind() == DataType.Kind.FLOAT && to.bits() == 32 && map.isEmpty()) {
      widening = new int[source.bits() > 8 ? 0 : 256];
      for (int p = 0; p < widening.length; p++) {
        widening[p] = source.toFloatBits(p);
      }
    } else {
      widening = null;
    }
  }

  /**
   * Casts {@code count} elements of {@code in} to {@code out}: a table lookup (a shift for
   * bfloat16) when this is the exact widening of an ML float type to float32.
   */
  void castAll(ArrowBuf in, ArrowBuf out, long count) {
    if (widening == null) {
      for (long i = 0; i < count; i++) {
        cast(in, out, i);
      }
      return;
    }
    // checked once here, so the loops read and write by address (ArrowBuf checks every access)
    in.checkBytes(0, count * from.byteSize());
    out.checkBytes(0, count * 4);
    long src = in.memoryAddress();
    long dst = out.memoryAddress();
    if (widening.length == 0) {
      for (long i = 0; i < count; i++) {
        MemoryUtil.putInt(dst + i * 4, (MemoryUtil.getShort(src + i * 2) & 0xffff) << 16);
      }
    } else {
      for (long i = 0; i < count; i++) {
        MemoryUtil.putInt(dst + i * 4, widening[MemoryUtil.getByte(src + i) & 0xff]);
      }
    }
  }

  /** Whether the casts handle elements of {@code type}. */
  static boolean isReal(DataType type) {
    return switch (type.kind()) {
      case INT, UINT -> type.fallbackFormat().isEmpty();
      case FLOAT -> true;
      default -> false;
    };
  }

  /** Whether {@link #cast} handles elements of {@code type}: the real types and the ML floats. */
  static boolean isCastable(DataType type) {
    return isReal(type)
        || (type.kind() != DataType.Kind.STRUCT && type.fallbackFormat().isPresent());
  }

  /** Whether elements of {@code type} are floating-point values (ML float types included). */
  static boolean isFloat(DataType type) {
    return type.kind() == DataType.Kind.FLOAT || type.fallbackFormat().isPresent();
  }

  /**
   * A mapping from the element bits {@code key} of {@code from} to the element bits {@code output}.
   */
  static Mapping mapping(DataType from, long key, long output) {
    boolean isFloat = isFloat(from);
    return new Mapping(
        isFloat ? 0 : signed(from, key), isFloat ? floatValue(from, key) : 0, output);
  }

  /** The little-endian bits of element {@code i} ({@code size} bytes, at most 8), zero-extended. */
  static long bits(ArrowBuf buf, long i, int size) {
    return switch (size) {
      case 1 -> buf.getByte(i) & 0xffL;
      case 2 -> buf.getShort(i * 2) & 0xffffL;
      case 4 -> buf.getInt(i * 4) & 0xffffffffL;
      default -> buf.getLong(i * 8);
    };
  }

  /** Writes the low {@code size} bytes of {@code bits} as element {@code i}. */
  static void put(ArrowBuf buf, long i, int size, long bits) {
    switch (size) {
      case 1 -> buf.setByte(i, (byte) bits);
      case 2 -> buf.setShort(i * 2, (short) bits);
      case 4 -> buf.setInt(i * 4, (int) bits);
      default -> buf.setLong(i * 8, bits);
    }
  }

  /** An element's little-endian bytes as its bits. */
  static long bits(byte[] element) {
    long v = 0;
    for (int i = element.length - 1; i >= 0; i--) {
      v = (v << 8) | (element[i] & 0xff);
    }
    return v;
  }

  /** Element bits as little-endian bytes. */
  static byte[] bytes(long bits, int size) {
    byte[] out = new byte[size];
    for (int i = 0; i < size; i++) {
      out[i] = (byte) (bits >>> (8 * i));
    }
    return out;
  }

  /** Integer element bits sign-extended (signed types) or as they are (uint64 stays raw). */
  private static long signed(DataType type, long bits) {
    return type.kind() == DataType.Kind.INT && type.bits() < 64
        ? bits << (64 - type.bits()) >> (64 - type.bits())
        : bits;
  }

  private static double floatValue(DataType type, long bits) {
    if (type.kind() != DataType.Kind.FLOAT) {
      return type.fallbackFormat().orElseThrow().toFloat((int) bits);
    }
    return switch (type.bits()) {
      case 16 -> HalfFloat.toFloat((short) bits);
      case 32 -> Float.intBitsToFloat((int) bits);
      default -> Double.longBitsToDouble(bits);
    };
  }

  /** Casts element {@code i} of {@code in} to element {@code i} of {@code out}. */
  void cast(ArrowBuf in, ArrowBuf out, long i) {
    put(out, i, to.byteSize(), cast(bits(in, i, from.byteSize())));
  }

  /** The bits of {@code bits} (an element of the source type) cast to the target type. */
  long cast(long bits) {
    boolean isFloat = isFloat(from);
    long integer = isFloat ? 0 : signed(from, bits);
    double value = isFloat ? floatValue(from, bits) : 0;
    for (Mapping m : map) {
      boolean match =
          isFloat
              ? (Double.isNaN(m.floatKey) ? Double.isNaN(value) : value == m.floatKey)
              : integer == m.key;
      if (match) {
        return m.output;
      }
    }
    Optional<MiniFloat> target = to.fallbackFormat();
    if (target.isPresent()) {
      double exact = isFloat ? value : isUint64Big(integer) ? Double.NaN : (double) integer;
      if (target.get().holdsExactly(exact) && (isFloat || (long) exact == integer)) {
        return target.get().encode(exact);
      }
      throw new CodecException(
          "codec "
              + codec
              + ": "
              + describe(
                  isUint64Big(integer) ? Long.toUnsignedString(integer) : isFloat ? value : integer)
              + " is not exactly a value of "
              + to
              + " (zaro casts to ML float types only the values they hold; map it with"
              + " scalar_map)");
    }
    if (to.kind() == DataType.Kind.FLOAT) {
      Format format = Format.of(to);
      if (isFloat) {
        if (Double.isNaN(value) || Double.isInfinite(value) || format.nearest(value) == value) {
          return format.bits(value);
        }
        return format.bits(toFloat(format, new BigDecimal(value), value));
      }
      if (integer >= -format.exactIntegers
          && integer <= format.exactIntegers
          && !isUint64Big(integer)) {
        return format.bits((double) integer); // exact: within the format's integer range
      }
      return format.bits(
          toFloat(
              format,
              exact(integer),
              isUint64Big(integer) ? Long.toUnsignedString(integer) : integer));
    }
    return isFloat ? toInteger(value) : intToInteger(integer);
  }

  private boolean isUint64Big(long bits) {
    return from.kind() == DataType.Kind.UINT && from.bits() == 64 && bits < 0;
  }

  private BigDecimal exact(long bits) {
    return isUint64Big(bits)
        ? new BigDecimal(new BigInteger(Long.toUnsignedString(bits)))
        : BigDecimal.valueOf(bits);
  }

  private String describe(Object value) {
    return "value " + value + " of " + from;
  }

  private CodecException outOfRange(Object value) {
    return new CodecException(
        "codec "
            + codec
            + ": "
            + describe(value)
            + " is out of the range of "
            + to
            + " (configure out_of_range, or map it with scalar_map)");
  }

  /** An integer source to an integer target. */
  private long intToInteger(long bits) {
    boolean negative = from.kind() == DataType.Kind.INT && bits < 0;
    boolean fits;
    if (to.kind() == DataType.Kind.UINT) {
      fits = !negative && (to.bits() == 64 || (!isUint64Big(bits) && bits < 1L << to.bits()));
    } else {
      fits =
          !isUint64Big(bits)
              && (to.bits() == 64
                  || (bits >= -(1L << (to.bits() - 1)) && bits < 1L << (to.bits() - 1)));
    }
    if (fits || outOfRange == OutOfRange.WRAP) {
      return bits;
    } else if (outOfRange == OutOfRange.CLAMP) {
      return negative ? min(to) : max(to);
    }
    throw outOfRange(isUint64Big(bits) ? Long.toUnsignedString(bits) : bits);
  }

  /** A float source to an integer target. */
  private long toInteger(double value) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      throw new CodecException(
          "codec "
              + codec
              + ": "
              + describe(value)
              + " has no "
              + to
              + " value (map it with scalar_map)");
    }
    double r = roundToIntegral(value);
    double lo = to.kind() == DataType.Kind.INT ? -Math.scalb(1.0, to.bits() - 1) : 0;
    double hi =
        to.kind() == DataType.Kind.INT
            ? Math.scalb(1.0, to.bits() - 1)
            : Math.scalb(1.0, to.bits());
    if (r >= lo && r < hi) {
      return r >= TWO_63 ? (long) (r - TWO_63) + Long.MIN_VALUE : (long) r;
    } else if (outOfRange == OutOfRange.WRAP) {
      return new BigDecimal(r).toBigInteger().longValue();
    } else if (outOfRange == OutOfRange.CLAMP) {
      return r < 0 ? min(to) : max(to);
    }
    throw outOfRange(value);
  }

  private static long min(DataType t) {
    return t.kind() == DataType.Kind.UINT ? 0 : -(1L << (t.bits() - 1));
  }

  private static long max(DataType t) {
    if (t.kind() == DataType.Kind.UINT) {
      return t.bits() == 64 ? -1L : (1L << t.bits()) - 1;
    }
    return t.bits() == 64 ? Long.MAX_VALUE : (1L << (t.bits() - 1)) - 1;
  }

  private double roundToIntegral(double x) {
    return switch (rounding) {
      case NEAREST_EVEN -> Math.rint(x);
      case TOWARDS_ZERO -> x < 0 ? Math.ceil(x) : Math.floor(x);
      case TOWARDS_POSITIVE -> Math.ceil(x);
      case TOWARDS_NEGATIVE -> Math.floor(x);
      case NEAREST_AWAY -> {
        double a = Math.abs(x);
        double t = Math.floor(a);
        double r = a - t >= 0.5 ? t + 1 : t;
        yield Math.copySign(r, x);
      }
    };
  }

  /**
   * A finite value that {@code format} does not hold exactly, rounded by the configured mode;
   * values beyond the largest finite one follow the out-of-range rule (clamp gives infinity).
   */
  private double toFloat(Format format, BigDecimal x, Object shown) {
    boolean negative = x.signum() < 0;
    BigDecimal ax = x.abs();
    BigDecimal max = new BigDecimal(format.max);
    if (ax.compareTo(max) > 0) {
      boolean towardsSmaller =
          rounding == Rounding.TOWARDS_ZERO
              || (rounding == Rounding.TOWARDS_NEGATIVE && !negative)
              || (rounding == Rounding.TOWARDS_POSITIVE && negative);
      boolean nearest = rounding == Rounding.NEAREST_EVEN || rounding == Rounding.NEAREST_AWAY;
      BigDecimal ulp = new BigDecimal(format.maxUlp);
      boolean fits =
          towardsSmaller
              ? ax.compareTo(max.add(ulp)) < 0
              : nearest && ax.compareTo(max.add(ulp.divide(BigDecimal.valueOf(2)))) < 0;
      if (fits) {
        return negative ? -format.max : format.max;
      }
      if (outOfRange == OutOfRange.CLAMP) {
        return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
      }
      throw outOfRange(shown);
    }
    double c = format.nearest(x.doubleValue());
    double lower = c;
    double upper = c;
    while (new BigDecimal(lower).compareTo(x) > 0) {
      lower = format.down(lower);
    }
    while (new BigDecimal(upper).compareTo(x) < 0) {
      upper = format.up(upper);
    }
    if (new BigDecimal(lower).compareTo(x) == 0) {
      return lower;
    }
    return switch (rounding) {
      case TOWARDS_ZERO -> negative ? upper : lower;
      case TOWARDS_POSITIVE -> upper;
      case TOWARDS_NEGATIVE -> lower;
      case NEAREST_EVEN, NEAREST_AWAY -> {
        int side = x.subtract(new BigDecimal(lower)).compareTo(new BigDecimal(upper).subtract(x));
        if (side != 0) {
          yield side < 0 ? lower : upper;
        }
        if (rounding == Rounding.NEAREST_AWAY) {
          yield negative ? lower : upper;
        }
        yield format.isEven(lower) ? lower : upper;
      }
    };
  }

  /** A binary floating-point format, its values carried as doubles. */
  enum Format {
    F16(HalfFloat.toFloat((short) 0x7bff), 32, 2048),
    F32(Float.MAX_VALUE, Math.ulp(Float.MAX_VALUE), 1L << 24),
    F64(Double.MAX_VALUE, Math.ulp(Double.MAX_VALUE), 1L << 53);

    final double max;
    final double maxUlp;

    /** Integers of at most this magnitude are exact. */
    final long exactIntegers;

    Format(double max, double maxUlp, long exactIntegers) {
      this.max = max;
      this.maxUlp = maxUlp;
      this.exactIntegers = exactIntegers;
    }

    static Format of(DataType type) {
      return switch (type.bits()) {
        case 16 -> F16;
        case 32 -> F32;
        default -> F64;
      };
    }

    /** The nearest value of this format (ties to even). */
    double nearest(double d) {
      return switch (this) {
        case F16 -> HalfFloat.toFloat(HalfFloat.fromDouble(d));
        case F32 -> (float) d;
        case F64 -> d;
      };
    }

    /** The next larger value of this format. */
    double up(double v) {
      return switch (this) {
        case F16 -> {
          if (v == 0) {
            yield HalfFloat.toFloat((short) 1);
          }
          short h = HalfFloat.fromDouble(v);
          yield HalfFloat.toFloat((short) (v > 0 ? h + 1 : h - 1));
        }
        case F32 -> Math.nextUp((float) v);
        case F64 -> Math.nextUp(v);
      };
    }

    /** The next smaller value of this format. */
    double down(double v) {
      return -up(-v);
    }

    boolean isEven(double v) {
      return switch (this) {
        case F16 -> (HalfFloat.fromDouble(v) & 1) == 0;
        case F32 -> (Float.floatToRawIntBits((float) v) & 1) == 0;
        case F64 -> (Double.doubleToRawLongBits(v) & 1) == 0;
      };
    }

    /** The bits of {@code v} (a value of this format, NaN or an infinity). */
    long bits(double v) {
      return switch (this) {
        case F16 -> HalfFloat.fromDouble(v) & 0xffffL;
        case F32 -> Float.floatToRawIntBits((float) v) & 0xffffffffL;
        case F64 -> Double.doubleToRawLongBits(v);
      };
    }
  }
}
