package dev.zaro.arrow.codec.ext;

import dev.zaro.arrow.codec.ArrayToArrayCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.codec.numcodecs.Filters;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import dev.zaro.arrow.metadata.internal.HalfFloat;
import java.math.BigInteger;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * {@code scale_offset} {offset, scale} (zarr-extensions): stored values are {@code (x - offset) *
 * scale}; decoding is {@code y / scale + offset} in the arithmetic of the array's own type (float16
 * rounds after each operation, as numpy does). A value the type cannot hold, an integer not
 * divisible by {@code scale} included, is an error naming it. The stored fill value is the array's,
 * encoded the same way.
 */
public final class ScaleOffsetCodec implements ArrayToArrayCodec {
  private final DataType type;
  private final long offset;
  private final long scale;
  private final FillValue storedFill;

  private ScaleOffsetCodec(DataType type, long offset, long scale, FillValue storedFill) {
    this.type = type;
    this.offset = offset;
    this.scale = scale;
    this.storedFill = storedFill;
  }

  static ScaleOffsetCodec create(CodecSpec spec, ChunkSpec input) {
    CodecConfig config = new CodecConfig(spec).only("offset", "scale");
    DataType type = input.dataType();
    if (!RealCast.isReal(type)) {
      throw config.error("works on integer and float values, not " + type + " elements");
    }
    boolean isFloat = type.kind() == DataType.Kind.FLOAT;
    RealCast.Format format = isFloat ? RealCast.Format.of(type) : null;
    long zero = 0;
    long one = isFloat ? format.bits(1.0) : 1;
    long offset =
        config.node("offset") == null
            ? zero
            : Scalars.parse(config, "offset", config.node("offset"), type);
    long scale =
        config.node("scale") == null
            ? one
            : Scalars.parse(config, "scale", config.node("scale"), type);
    ScaleOffsetCodec codec = new ScaleOffsetCodec(type, offset, scale, null);
    if (isFloat ? codec.value(scale) == 0 || !Double.isFinite(codec.value(scale)) : scale == 0) {
      throw config.error(
          "scale must be a nonzero finite number, not " + (isFloat ? codec.value(scale) : scale));
    }
    long fill;
    try {
      fill = codec.encode(RealCast.bits(input.fillValue().bytes()));
    } catch (ZaroException e) {
      throw config.error(
          "the array's fill value cannot be encoded: "
              + e.getMessage().replaceFirst("^codec [^:]+: ", ""));
    }
    return new ScaleOffsetCodec(
        type, offset, scale, new FillValue(RealCast.bytes(fill, type.byteSize())));
  }

  @Override
  public String name() {
    return "scale_offset";
  }

  @Override
  public ChunkSpec encodedSpec(ChunkSpec decoded) {
    return new ChunkSpec(decoded.shape(), type, storedFill);
  }

  @Override
  public ArrowBuf decode(ArrowBuf encoded, ChunkSpec decoded, BufferAllocator allocator) {
    long n = Filters.elements(name(), encoded, decoded, type);
    int size = type.byteSize();
    return Filters.decodeTo(
        allocator,
        decoded,
        out -> {
          for (long i = 0; i < n; i++) {
            RealCast.put(out, i, size, decode(RealCast.bits(encoded, i, size)));
          }
        });
  }

  /** A float element's value. */
  private double value(long bits) {
    return switch (type.bits()) {
      case 16 -> HalfFloat.toFloat((short) bits);
      case 32 -> Float.intBitsToFloat((int) bits);
      default -> Double.longBitsToDouble(bits);
    };
  }

  private CodecException unrepresentable(String what) {
    return new CodecException("codec " + name() + ": " + what + " is not representable as " + type);
  }

  /** {@code y / scale + offset} of one element's bits. */
  long decode(long y) {
    return switch (type.kind()) {
      case FLOAT -> {
        double v = value(y);
        double r =
            switch (type.bits()) {
              case 16 ->
                  RealCast.Format.F16.nearest(
                      (float) RealCast.Format.F16.nearest((float) v / (float) value(scale))
                          + (float) value(offset));
              case 32 -> (float) v / (float) value(scale) + (float) value(offset);
              default -> v / value(scale) + value(offset);
            };
        if (Double.isInfinite(r) && Double.isFinite(v)) {
          throw unrepresentable(v + " / " + value(scale) + " + " + value(offset));
        }
        yield RealCast.Format.of(type).bits(r);
      }
      case UINT -> {
        if ((type.bits() == 64 ? Long.remainderUnsigned(y, scale) : y % scale) != 0) {
          throw unrepresentable(Long.toUnsignedString(y) + " / " + Long.toUnsignedString(scale));
        }
        long q = type.bits() == 64 ? Long.divideUnsigned(y, scale) : y / scale;
        long r = q + offset;
        boolean overflow =
            type.bits() == 64 ? Long.compareUnsigned(r, q) < 0 : r >= 1L << type.bits();
        if (overflow) {
          throw unrepresentable(Long.toUnsignedString(q) + " + " + Long.toUnsignedString(offset));
        }
        yield r;
      }
      default -> {
        int shift = 64 - type.bits();
        long v = y << shift >> shift;
        long s = scale << shift >> shift;
        long o = offset << shift >> shift;
        if (v % s != 0 || (v == Long.MIN_VALUE && s == -1)) {
          throw unrepresentable(v + " / " + s);
        }
        long q = v / s;
        long r = q + o;
        boolean overflow = type.bits() == 64 ? ((q ^ r) & (o ^ r)) < 0 : (r << shift >> shift) != r;
        if (overflow) {
          throw unrepresentable(q + " + " + o);
        }
        yield r;
      }
    };
  }

  /** {@code (x - offset) * scale} of one element's bits (the fill value). */
  long encode(long x) {
    if (type.kind() == DataType.Kind.FLOAT) {
      double v = value(x);
      double r =
          switch (type.bits()) {
            case 16 ->
                RealCast.Format.F16.nearest(
                    (float) RealCast.Format.F16.nearest((float) v - (float) value(offset))
                        * (float) value(scale));
            case 32 -> ((float) v - (float) value(offset)) * (float) value(scale);
            default -> (v - value(offset)) * value(scale);
          };
      if (Double.isInfinite(r) && Double.isFinite(v)) {
        throw unrepresentable("(" + v + " - " + value(offset) + ") * " + value(scale));
      }
      return RealCast.Format.of(type).bits(r);
    }
    BigInteger v = integer(x);
    BigInteger r = v.subtract(integer(offset)).multiply(integer(scale));
    BigInteger min =
        type.kind() == DataType.Kind.UINT
            ? BigInteger.ZERO
            : BigInteger.ONE.shiftLeft(type.bits() - 1).negate();
    BigInteger max =
        type.kind() == DataType.Kind.UINT
            ? BigInteger.ONE.shiftLeft(type.bits()).subtract(BigInteger.ONE)
            : BigInteger.ONE.shiftLeft(type.bits() - 1).subtract(BigInteger.ONE);
    if (r.compareTo(min) < 0 || r.compareTo(max) > 0) {
      throw unrepresentable(
          "(" + v + " - " + integer(offset) + ") * " + integer(scale) + " = " + r);
    }
    return r.longValue();
  }

  private BigInteger integer(long bits) {
    if (type.kind() == DataType.Kind.UINT) {
      return new BigInteger(Long.toUnsignedString(bits));
    }
    int shift = 64 - type.bits();
    return BigInteger.valueOf(bits << shift >> shift);
  }
}
