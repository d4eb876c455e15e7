package dev.zaro.arrow.codec.zfp;

import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.metadata.DataType;
import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;

/**
 * A pure-Java decoder of zfp 1.0 streams (codec version 5): blocks of 4^d values of float32,
 * float64, int32 or int64 in 1 to 4 dimensions, in the fixed-rate, fixed-precision, fixed-accuracy,
 * reversible and expert modes. Decoding follows the published zfp algorithm: per block an optional
 * common exponent, embedded bit-plane coding of negabinary coefficients in sequency order, and the
 * inverse decorrelating (or, reversible, Lorenzo) transform. Stateless; {@link #decode} reads one
 * field.
 */
public final class ZfpDecoder {
  private ZfpDecoder() {}

  /** Element types, as the zfp header numbers them (1..4). */
  public enum Type {
    INT32(32, 0, 0),
    INT64(64, 0, 0),
    FLOAT(32, 8, 127),
    DOUBLE(64, 11, 1023);

    final int bits;
    final int ebits;
    final int ebias;

    Type(int bits, int ebits, int ebias) {
      this.bits = bits;
      this.ebits = ebits;
      this.ebias = ebias;
    }

    /** The type a zfp header's 2-bit type field stores (zfp_type minus one). */
    public static Type ofHeaderCode(int code) {
      return switch (code) {
        case 0 -> INT32;
        case 1 -> INT64;
        case 2 -> FLOAT;
        case 3 -> DOUBLE;
        default -> throw new IllegalArgumentException("zfp type code " + code);
      };
    }

    /**
     * The zfp type of a zarr data type, or null when zfp has none (no promotion of narrower types).
     */
    public static Type of(DataType t) {
      return switch (t.kind()) {
        case INT -> t.bits() == 32 ? INT32 : t.bits() == 64 ? INT64 : null;
        case FLOAT -> t.bits() == 32 ? FLOAT : t.bits() == 64 ? DOUBLE : null;
        default -> null;
      };
    }

    public boolean isFloat() {
      return ebits > 0;
    }

    /** Bytes per element. */
    public int size() {
      return bits / 8;
    }
  }

  /** Compression parameters (zfp_stream): the four modes are settings of these. */
  public record Params(int minbits, int maxbits, int maxprec, int minexp) {
    static final int MIN_EXP = -1074;

    boolean reversible() {
      return minexp < MIN_EXP;
    }
  }

  /** A field: element type and sizes, x fastest ({@code nx} is the last numpy dimension). */
  @SuppressWarnings("ArrayRecordComponent") // an internal decode argument, never compared
  public record Field(Type type, long[] sizes) {
    public long count() {
      long n = 1;
      for (long s : sizes) {
        n *= s;
      }
      return n;
    }
  }

  /** Reads bits least significant first from a byte buffer (zfp's 64-bit little-endian words). */
  public static final class Bits {
    private final ArrowBuf buf;
    private final long bytes;
    private final long limit;
    public long pos;
    private long wordIndex = -1;
    private long word;

    public Bits(ArrowBuf buf, long bytes, long pos) {
      this.buf = buf;
      this.bytes = bytes;
      this.limit = bytes * 8;
      this.pos = pos;
    }

    public int bit() {
      if (pos >= limit) {
        throw new CodecException(
            "codec zfp: stream is truncated (needs bit " + pos + " of " + limit + ")");
      }
      long index = pos >>> 6;
      if (index != wordIndex) {
        load(index);
      }
      int b = (int) (word >>> (pos & 63)) & 1;
      pos++;
      return b;
    }

    private void load(long index) {
      long at = index * 8;
      if (at + 8 <= bytes) {
        word = buf.getLong(at);
      } else {
        word = 0;
        for (long i = at; i < bytes; i++) {
          word |= (buf.getByte(i) & 0xffL) << (8 * (i - at));
        }
      }
      wordIndex = index;
    }

    /** {@code n} (at most 64) bits, the first one lowest. */
    public long bits(int n) {
      if (n == 0) {
        return 0;
      }
      if (pos + n > limit) {
        throw new CodecException(
            "codec zfp: stream is truncated (needs bits "
                + pos
                + ".."
                + (pos + n - 1)
                + " of "
                + limit
                + ")");
      }
      long index = pos >>> 6;
      int offset = (int) (pos & 63);
      if (index != wordIndex) {
        load(index);
      }
      long v = word >>> offset;
      if (64 - offset < n) {
        load(index + 1);
        v |= word << (64 - offset);
      }
      pos += n;
      return n == 64 ? v : v & ((1L << n) - 1);
    }

    void skip(long n) {
      pos += n;
    }
  }

  /**
   * Decodes a field from bit {@code bitOffset} of {@code in} (valid bytes {@code [0, writerIndex)})
   * into {@code out} as C-order little-endian elements.
   */
  public static void decode(ArrowBuf in, long bitOffset, Params params, Field field, ArrowBuf out) {
    Bits s = new Bits(in, in.writerIndex(), bitOffset);
    int dims = field.sizes().length;
    long[] n = new long[4];
    for (int d = 0; d < 4; d++) {
      n[d] = d < dims ? field.sizes()[dims - 1 - d] : 1; // n[0] = nx
    }
    int blockSize = 1 << (2 * dims);
    long[] block = new long[blockSize];
    long[] ublock = new long[blockSize];
    int size = field.type().size();
    for (long w = 0; w < n[3]; w += 4) {
      for (long z = 0; z < n[2]; z += 4) {
        for (long y = 0; y < n[1]; y += 4) {
          for (long x = 0; x < n[0]; x += 4) {
            decodeBlock(s, params, field.type(), dims, block, ublock);
            int ex = (int) Math.min(4, n[0] - x);
            int ey = dims > 1 ? (int) Math.min(4, n[1] - y) : 1;
            int ez = dims > 2 ? (int) Math.min(4, n[2] - z) : 1;
            int ew = dims > 3 ? (int) Math.min(4, n[3] - w) : 1;
            for (int l = 0; l < ew; l++) {
              for (int k = 0; k < ez; k++) {
                for (int j = 0; j < ey; j++) {
                  for (int i = 0; i < ex; i++) {
                    long index = (x + i) + n[0] * ((y + j) + n[1] * ((z + k) + n[2] * (w + l)));
                    long v = block[i + 4 * (j + 4 * (k + 4 * l))];
                    if (size == 4) {
                      out.setInt(index * 4, (int) v);
                    } else {
                      out.setLong(index * 8, v);
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }

  /** Decodes one block; {@code block} receives the element bits (float bits for float types). */
  static void decodeBlock(Bits s, Params p, Type type, int dims, long[] block, long[] ublock) {
    if (!type.isFloat()) {
      if (p.reversible()) {
        revDecodeInts(s, p.minbits(), p.maxbits(), type, dims, block, ublock);
      } else {
        decodeInts(s, p.minbits(), p.maxbits(), p.maxprec(), type, dims, block, ublock);
      }
      return;
    }
    int bits = 1;
    if (s.bit() == 0) {
      Arrays.fill(block, 0);
      if (p.minbits() > bits) {
        s.skip(p.minbits() - bits);
      }
      return;
    }
    if (p.reversible()) {
      bits++;
      if (s.bit() == 1) {
        revDecodeInts(
            s,
            p.minbits() - Math.min(bits, p.minbits()),
            p.maxbits() - bits,
            type,
            dims,
            block,
            ublock);
        for (int i = 0; i < block.length; i++) { // two's complement to sign-magnitude bits
          long v = block[i];
          if (v < 0) {
            block[i] = type.bits == 32 ? (v ^ 0x7fffffffL) & 0xffffffffL : v ^ Long.MAX_VALUE;
          } else if (type.bits == 32) {
            block[i] = v & 0xffffffffL;
          }
        }
        return;
      }
      bits += type.ebits;
      int emax = (int) s.bits(type.ebits) - type.ebias;
      revDecodeInts(
          s,
          p.minbits() - Math.min(bits, p.minbits()),
          p.maxbits() - bits,
          type,
          dims,
          block,
          ublock);
      if (emax == -type.ebias) {
        Arrays.fill(block, 0);
      } else {
        toFloats(type, block, emax);
      }
      return;
    }
    bits += type.ebits;
    int emax = (int) s.bits(type.ebits) - type.ebias;
    int maxprec = Math.min(p.maxprec(), Math.max(0, emax - p.minexp() + 2 * dims + 2));
    decodeInts(
        s,
        p.minbits() - Math.min(bits, p.minbits()),
        p.maxbits() - bits,
        maxprec,
        type,
        dims,
        block,
        ublock);
    toFloats(type, block, emax);
  }

  /** Block-floating-point integers to float bits: x * 2^(emax - (bits - 2)). */
  private static void toFloats(Type type, long[] block, int emax) {
    if (type == Type.FLOAT) {
      float scale = Math.scalb(1.0f, emax - 30);
      for (int i = 0; i < block.length; i++) {
        block[i] = Float.floatToRawIntBits(scale * (float) (int) block[i]) & 0xffffffffL;
      }
    } else {
      double scale = Math.scalb(1.0, emax - 62);
      for (int i = 0; i < block.length; i++) {
        block[i] = Double.doubleToRawLongBits(scale * (double) block[i]);
      }
    }
  }

  /** The lossy integer block: embedded coefficients, negabinary, inverse transform. */
  private static int decodeInts(
      Bits s,
      int minbits,
      int maxbits,
      int maxprec,
      Type type,
      int dims,
      long[] block,
      long[] ublock) {
    return transform(
        s,
        embedded(s, maxbits, maxprec, type.bits, ublock),
        minbits,
        type,
        dims,
        block,
        ublock,
        false);
  }

  /** The reversible integer block: precision, embedded coefficients, inverse Lorenzo transform. */
  private static int revDecodeInts(
      Bits s, int minbits, int maxbits, Type type, int dims, long[] block, long[] ublock) {
    int pbits = type.bits == 32 ? 5 : 6;
    int prec = (int) s.bits(pbits) + 1;
    int bits = pbits + embedded(s, maxbits - pbits, prec, type.bits, ublock);
    return transform(s, bits, minbits, type, dims, block, ublock, true);
  }

  /**
   * Skips to {@code minbits} bits read, then turns the decoded coefficients into the block's
   * integers: negabinary to two's complement, sequency order to raster, inverse transform along
   * every axis (the last first). Returns the bits the block used.
   */
  private static int transform(
      Bits s,
      int bits,
      int minbits,
      Type type,
      int dims,
      long[] block,
      long[] ublock,
      boolean reversible) {
    if (bits < minbits) {
      s.skip(minbits - bits);
      bits = minbits;
    }
    ZfpTransform.fromNegabinary(type.bits == 32, dims, ublock, block);
    ZfpTransform.inverse(block, dims, type.bits == 32, reversible);
    return bits;
  }

  /**
   * Embedded decoding of {@code data.length} unsigned coefficients of {@code intprec} bits: bit
   * planes from the most significant, each the bits of the coefficients already significant, then
   * group tests and unary run lengths for the rest, within {@code maxbits} bits and {@code maxprec}
   * planes. Returns the bits read.
   */
  private static int embedded(Bits s, int maxbits, int maxprec, int intprec, long[] data) {
    int size = data.length;
    Arrays.fill(data, 0);
    int kmin = intprec > maxprec ? intprec - maxprec : 0;
    boolean limited = (long) (maxprec + 1) * size - 1 > maxbits;
    long start = s.pos;
    int bits = maxbits;
    int n = 0;
    for (int k = intprec - 1; k >= kmin; k--) {
      if (limited && bits == 0) {
        break;
      }
      int m = limited ? Math.min(n, bits) : n;
      if (limited) {
        bits -= m;
      }
      for (int i = 0; i < m; i += 64) {
        long x = s.bits(Math.min(64, m - i));
        for (int j = i; x != 0; j++, x >>>= 1) {
          data[j] += (x & 1) << k;
        }
      }
      if (limited) {
        for (; bits > 0 && n < size; n++) {
          bits--;
          if (s.bit() == 1) {
            for (; bits > 0 && n < size - 1; n++) {
              bits--;
              if (s.bit() == 1) {
                break;
              }
            }
            data[n] += 1L << k;
          } else {
            break;
          }
        }
      } else {
        for (; n < size && s.bit() == 1; n++) {
          for (; n < size - 1 && s.bit() == 0; n++) {
            // scan for the next one bit
          }
          data[n] += 1L << k;
        }
      }
    }
    return limited ? maxbits - bits : (int) (s.pos - start);
  }
}
