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

  static final int[] PERM1 = {0, 1, 2, 3};
  static final int[] PERM2 = {0, 1, 4, 5, 2, 8, 6, 9, 3, 12, 10, 7, 13, 11, 14, 15};
  static final int[] PERM3 = {
    0, 1, 4, 16, 20, 17, 5, 2, 8, 32, 21, 6, 18, 24, 9, 33, 36, 3, 12, 48, 22, 25, 37, 40, 34, 10,
    7, 19, 28, 13, 49, 52, 41, 38, 26, 23, 29, 53, 11, 35, 44, 14, 50, 56, 42, 27, 39, 45, 30, 54,
    57, 60, 51, 15, 43, 46, 58, 61, 55, 31, 62, 59, 47, 63
  };
  static final int[] PERM4 = {
    0, 1, 4, 16, 64, 5, 80, 17, 68, 65, 20, 2, 8, 32, 128, 84, 81, 69, 21, 6, 18, 66, 24, 72, 9, 96,
    33, 36, 129, 132, 144, 3, 12, 48, 192, 85, 82, 70, 22, 73, 25, 88, 37, 100, 97, 148, 145, 133,
    10, 160, 34, 136, 130, 40, 7, 19, 67, 28, 76, 13, 112, 49, 52, 193, 196, 208, 86, 89, 101, 149,
    161, 137, 41, 134, 38, 164, 26, 152, 146, 104, 98, 74, 83, 71, 23, 77, 29, 92, 53, 116, 113,
    212, 209, 197, 11, 35, 131, 44, 140, 14, 176, 50, 56, 194, 200, 224, 90, 165, 102, 153, 150,
    105, 168, 162, 138, 42, 87, 93, 117, 213, 27, 75, 99, 39, 135, 147, 108, 45, 141, 156, 30, 78,
    177, 180, 54, 114, 120, 57, 198, 210, 216, 201, 225, 228, 15, 240, 51, 204, 195, 60, 169, 166,
    154, 106, 91, 103, 151, 109, 157, 94, 181, 118, 121, 214, 217, 229, 163, 139, 43, 142, 46, 172,
    58, 184, 178, 232, 226, 202, 241, 205, 61, 199, 55, 244, 31, 220, 211, 124, 115, 79, 170, 167,
    155, 107, 158, 110, 173, 122, 185, 182, 233, 230, 218, 95, 245, 119, 221, 215, 125, 242, 206,
    62, 203, 59, 248, 47, 236, 227, 188, 179, 143, 171, 174, 186, 234, 246, 222, 126, 219, 123, 249,
    111, 237, 231, 189, 183, 159, 252, 243, 207, 63, 175, 250, 187, 238, 235, 190, 253, 247, 223,
    127, 254, 251, 239, 191, 255
  };

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

  private static int[] perm(int dims) {
    return switch (dims) {
      case 1 -> PERM1;
      case 2 -> PERM2;
      case 3 -> PERM3;
      default -> PERM4;
    };
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
    fromNegabinary(type, dims, ublock, block);
    for (int axis = dims - 1; axis >= 0; axis--) {
      lift(block, dims, axis, type.bits == 32, reversible);
    }
    return bits;
  }

  private static void fromNegabinary(Type type, int dims, long[] ublock, long[] block) {
    int[] perm = perm(dims);
    for (int i = 0; i < ublock.length; i++) {
      long u = ublock[i];
      block[perm[i]] =
          type.bits == 32
              ? ((int) u ^ 0xaaaaaaaa) - 0xaaaaaaaa
              : (u ^ 0xaaaaaaaaaaaaaaaaL) - 0xaaaaaaaaaaaaaaaaL;
    }
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

  /** The inverse transform along {@code axis} (0 = x) of every row of the block. */
  private static void lift(long[] p, int dims, int axis, boolean narrow, boolean reversible) {
    int stride = 1 << (2 * axis);
    int rows = 1 << (2 * (dims - 1));
    for (int r = 0; r < rows; r++) {
      // the row's first element: r's base-4 digits, with a 0 inserted at position axis
      int low = r & (stride - 1);
      int base = low + ((r - low) << 2);
      if (reversible) {
        lorenzo(p, base, stride, narrow);
      } else {
        inverseLift(p, base, stride, narrow);
      }
    }
  }

  private static void inverseLift(long[] p, int i, int s, boolean narrow) {
    if (narrow) {
      int x = (int) p[i];
      int y = (int) p[i + s];
      int z = (int) p[i + 2 * s];
      int w = (int) p[i + 3 * s];
      y += w >> 1;
      w -= y >> 1;
      y += w;
      w -= y - w;
      z += x;
      x -= z - x;
      y += z;
      z -= y - z;
      w += x;
      x -= w - x;
      p[i] = x;
      p[i + s] = y;
      p[i + 2 * s] = z;
      p[i + 3 * s] = w;
    } else {
      long x = p[i];
      long y = p[i + s];
      long z = p[i + 2 * s];
      long w = p[i + 3 * s];
      y += w >> 1;
      w -= y >> 1;
      y += w;
      w -= y - w;
      z += x;
      x -= z - x;
      y += z;
      z -= y - z;
      w += x;
      x -= w - x;
      p[i] = x;
      p[i + s] = y;
      p[i + 2 * s] = z;
      p[i + 3 * s] = w;
    }
  }

  private static void lorenzo(long[] p, int i, int s, boolean narrow) {
    long x = p[i];
    long y = p[i + s];
    long z = p[i + 2 * s];
    long w = p[i + 3 * s];
    w += z;
    z += y;
    w += z;
    y += x;
    z += y;
    w += z;
    if (narrow) {
      p[i] = (int) x;
      p[i + s] = (int) y;
      p[i + 2 * s] = (int) z;
      p[i + 3 * s] = (int) w;
    } else {
      p[i] = x;
      p[i + s] = y;
      p[i + 2 * s] = z;
      p[i + 3 * s] = w;
    }
  }
}
