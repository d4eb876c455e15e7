package dev.zaro.arrow.codec.blosc;

import org.apache.arrow.memory.util.MemoryUtil;

/**
 * The inverses of c-blosc's shuffle filters, on raw addresses (little-endian words).
 *
 * <p>Byte shuffle stores a block of {@code n = size / typesize} elements as {@code typesize} planes
 * of {@code n} bytes (plane {@code j} holds byte {@code j} of every element), followed by the
 * {@code size % typesize} trailing bytes unchanged.
 *
 * <p>Bit shuffle (c-blosc 1.x, format version 2) stores {@code 8 * typesize} rows of {@code n / 8}
 * bytes: bit {@code m} of byte {@code g} of row {@code 8 * b + k} is bit {@code k} of byte {@code
 * b} of element {@code 8 * g + m}; trailing bytes follow unchanged. A block whose element count is
 * not a multiple of 8 is stored unshuffled.
 */
final class Unshuffle {
  private static final long M8 = 0x00FF00FF00FF00FFL;
  private static final long M16 = 0x0000FFFF0000FFFFL;
  private static final long M32 = 0x00000000FFFFFFFFL;

  private Unshuffle() {}

  /** Undoes byte shuffle of a {@code size}-byte block from {@code src} into {@code dst}. */
  static void bytes(int typesize, int size, long src, long dst) {
    int n = size / typesize;
    switch (typesize) {
      case 1 -> MemoryUtil.copyMemory(src, dst, n);
      case 2 -> two(src, dst, n);
      case 4 -> four(src, dst, n);
      case 8 -> eight(src, dst, n);
      default -> generic(typesize, src, dst, n);
    }
    long done = (long) n * typesize;
    if (done < size) {
      MemoryUtil.copyMemory(src + done, dst + done, size - done);
    }
  }

  /*
   * Interleaving byte planes is a byte transpose done with word-wide swaps (as in eight's 8x8
   * transpose): swapping the odd bytes of one word with the even bytes of another pairs byte j of
   * two planes, and the same on 16-bit units then pairs those pairs. About one operation per
   * byte, a third of spreading each byte to its place.
   */

  /**
   * The bits that swap {@code lo}'s odd bytes with {@code hi}'s even ones: {@code hi ^= t} and
   * {@code lo ^= t << 8}.
   */
  private static long swap8(long lo, long hi) {
    return ((lo >>> 8) ^ hi) & M8;
  }

  /** {@link #swap8} for 16-bit units: {@code hi ^= t} and {@code lo ^= t << 16}. */
  private static long swap16(long lo, long hi) {
    return ((lo >>> 16) ^ hi) & M16;
  }

  /** typesize 2: interleaves two byte planes, 8 elements per step. */
  private static void two(long src, long dst, int n) {
    long p0 = src;
    long p1 = src + n;
    int i = 0;
    for (; i + 8 <= n; i += 8) {
      long a = MemoryUtil.getLong(p0 + i); // byte 0 of elements 0..7
      long b = MemoryUtil.getLong(p1 + i); // byte 1
      long t = swap8(a, b);
      b ^= t; // elements 1, 3, 5, 7
      a ^= t << 8; // elements 0, 2, 4, 6
      t = swap16(a, b);
      b ^= t; // elements 2, 3, 6, 7
      a ^= t << 16; // elements 0, 1, 4, 5
      long d = dst + 2L * i;
      MemoryUtil.putLong(d, (a & M32) | (b << 32));
      MemoryUtil.putLong(d + 8, (a >>> 32) | (b & ~M32));
    }
    for (; i < n; i++) {
      long d = dst + 2L * i;
      MemoryUtil.putByte(d, MemoryUtil.getByte(p0 + i));
      MemoryUtil.putByte(d + 1, MemoryUtil.getByte(p1 + i));
    }
  }

  /** typesize 4: interleaves four byte planes, 8 elements per step. */
  private static void four(long src, long dst, int n) {
    long p0 = src;
    long p1 = src + n;
    long p2 = src + 2L * n;
    long p3 = src + 3L * n;
    int i = 0;
    for (; i + 8 <= n; i += 8) {
      long a = MemoryUtil.getLong(p0 + i); // byte 0 of elements 0..7
      long b = MemoryUtil.getLong(p1 + i);
      long c = MemoryUtil.getLong(p2 + i);
      long e = MemoryUtil.getLong(p3 + i);
      long t = swap8(a, b);
      b ^= t; // bytes 0-1 of elements 1, 3, 5, 7
      a ^= t << 8; // bytes 0-1 of elements 0, 2, 4, 6
      t = swap8(c, e);
      e ^= t; // bytes 2-3 of elements 1, 3, 5, 7
      c ^= t << 8; // bytes 2-3 of elements 0, 2, 4, 6
      t = swap16(a, c);
      c ^= t; // elements 2, 6
      a ^= t << 16; // elements 0, 4
      t = swap16(b, e);
      e ^= t; // elements 3, 7
      b ^= t << 16; // elements 1, 5
      long d = dst + 4L * i;
      MemoryUtil.putLong(d, (a & M32) | (b << 32));
      MemoryUtil.putLong(d + 8, (c & M32) | (e << 32));
      MemoryUtil.putLong(d + 16, (a >>> 32) | (b & ~M32));
      MemoryUtil.putLong(d + 24, (c >>> 32) | (e & ~M32));
    }
    for (; i < n; i++) {
      long d = dst + 4L * i;
      MemoryUtil.putByte(d, MemoryUtil.getByte(p0 + i));
      MemoryUtil.putByte(d + 1, MemoryUtil.getByte(p1 + i));
      MemoryUtil.putByte(d + 2, MemoryUtil.getByte(p2 + i));
      MemoryUtil.putByte(d + 3, MemoryUtil.getByte(p3 + i));
    }
  }

  /** typesize 8: an 8x8 byte transpose of 8 elements at a time. */
  private static void eight(long src, long dst, int n) {
    int i = 0;
    for (; i + 8 <= n; i += 8) {
      long r0 = MemoryUtil.getLong(src + i);
      long r1 = MemoryUtil.getLong(src + n + i);
      long r2 = MemoryUtil.getLong(src + 2L * n + i);
      long r3 = MemoryUtil.getLong(src + 3L * n + i);
      long r4 = MemoryUtil.getLong(src + 4L * n + i);
      long r5 = MemoryUtil.getLong(src + 5L * n + i);
      long r6 = MemoryUtil.getLong(src + 6L * n + i);
      long r7 = MemoryUtil.getLong(src + 7L * n + i);
      // 8x8 byte transpose: swap 1-byte, then 2-byte, then 4-byte blocks
      long t;
      t = ((r0 >>> 8) ^ r1) & M8;
      r1 ^= t;
      r0 ^= t << 8;
      t = ((r2 >>> 8) ^ r3) & M8;
      r3 ^= t;
      r2 ^= t << 8;
      t = ((r4 >>> 8) ^ r5) & M8;
      r5 ^= t;
      r4 ^= t << 8;
      t = ((r6 >>> 8) ^ r7) & M8;
      r7 ^= t;
      r6 ^= t << 8;
      t = ((r0 >>> 16) ^ r2) & M16;
      r2 ^= t;
      r0 ^= t << 16;
      t = ((r1 >>> 16) ^ r3) & M16;
      r3 ^= t;
      r1 ^= t << 16;
      t = ((r4 >>> 16) ^ r6) & M16;
      r6 ^= t;
      r4 ^= t << 16;
      t = ((r5 >>> 16) ^ r7) & M16;
      r7 ^= t;
      r5 ^= t << 16;
      t = ((r0 >>> 32) ^ r4) & M32;
      r4 ^= t;
      r0 ^= t << 32;
      t = ((r1 >>> 32) ^ r5) & M32;
      r5 ^= t;
      r1 ^= t << 32;
      t = ((r2 >>> 32) ^ r6) & M32;
      r6 ^= t;
      r2 ^= t << 32;
      t = ((r3 >>> 32) ^ r7) & M32;
      r7 ^= t;
      r3 ^= t << 32;
      long d = dst + 8L * i;
      MemoryUtil.putLong(d, r0);
      MemoryUtil.putLong(d + 8, r1);
      MemoryUtil.putLong(d + 16, r2);
      MemoryUtil.putLong(d + 24, r3);
      MemoryUtil.putLong(d + 32, r4);
      MemoryUtil.putLong(d + 40, r5);
      MemoryUtil.putLong(d + 48, r6);
      MemoryUtil.putLong(d + 56, r7);
    }
    for (; i < n; i++) {
      long d = dst + 8L * i;
      for (int j = 0; j < 8; j++) {
        MemoryUtil.putByte(d + j, MemoryUtil.getByte(src + (long) j * n + i));
      }
    }
  }

  /** Any typesize: reads 8 elements of a plane as one word, scatters its bytes. */
  private static void generic(int typesize, long src, long dst, int n) {
    int i = 0;
    for (; i + 8 <= n; i += 8) {
      long d = dst + (long) i * typesize;
      for (int j = 0; j < typesize; j++) {
        long w = MemoryUtil.getLong(src + (long) j * n + i);
        long o = d + j;
        for (int k = 0; k < 8; k++) {
          MemoryUtil.putByte(o + (long) k * typesize, (byte) (w >>> (8 * k)));
        }
      }
    }
    for (; i < n; i++) {
      long d = dst + (long) i * typesize;
      for (int j = 0; j < typesize; j++) {
        MemoryUtil.putByte(d + j, MemoryUtil.getByte(src + (long) j * n + i));
      }
    }
  }

  /**
   * Undoes bit shuffle of a {@code size}-byte block from {@code src} into {@code dst}, using {@code
   * tmp} ({@code size} bytes, only when typesize &gt; 1) for the byte planes.
   */
  static void bits(int typesize, int size, long src, long dst, long tmp) {
    int n = size / typesize;
    if (n % 8 != 0) {
      MemoryUtil.copyMemory(src, dst, size);
      return;
    }
    long planes = typesize == 1 ? dst : tmp;
    int rowBytes = n / 8;
    for (int b = 0; b < typesize; b++) {
      long rows = src + (long) b * 8 * rowBytes;
      long out = planes + (long) b * n;
      int g = 0;
      for (; g + 8 <= rowBytes; g += 8) {
        // bytes g..g+7 of the 8 bit rows of byte b: transpose bytes, then bits in each word
        long r0 = MemoryUtil.getLong(rows + g);
        long r1 = MemoryUtil.getLong(rows + rowBytes + g);
        long r2 = MemoryUtil.getLong(rows + 2L * rowBytes + g);
        long r3 = MemoryUtil.getLong(rows + 3L * rowBytes + g);
        long r4 = MemoryUtil.getLong(rows + 4L * rowBytes + g);
        long r5 = MemoryUtil.getLong(rows + 5L * rowBytes + g);
        long r6 = MemoryUtil.getLong(rows + 6L * rowBytes + g);
        long r7 = MemoryUtil.getLong(rows + 7L * rowBytes + g);
        long t;
        t = ((r0 >>> 8) ^ r1) & M8;
        r1 ^= t;
        r0 ^= t << 8;
        t = ((r2 >>> 8) ^ r3) & M8;
        r3 ^= t;
        r2 ^= t << 8;
        t = ((r4 >>> 8) ^ r5) & M8;
        r5 ^= t;
        r4 ^= t << 8;
        t = ((r6 >>> 8) ^ r7) & M8;
        r7 ^= t;
        r6 ^= t << 8;
        t = ((r0 >>> 16) ^ r2) & M16;
        r2 ^= t;
        r0 ^= t << 16;
        t = ((r1 >>> 16) ^ r3) & M16;
        r3 ^= t;
        r1 ^= t << 16;
        t = ((r4 >>> 16) ^ r6) & M16;
        r6 ^= t;
        r4 ^= t << 16;
        t = ((r5 >>> 16) ^ r7) & M16;
        r7 ^= t;
        r5 ^= t << 16;
        t = ((r0 >>> 32) ^ r4) & M32;
        r4 ^= t;
        r0 ^= t << 32;
        t = ((r1 >>> 32) ^ r5) & M32;
        r5 ^= t;
        r1 ^= t << 32;
        t = ((r2 >>> 32) ^ r6) & M32;
        r6 ^= t;
        r2 ^= t << 32;
        t = ((r3 >>> 32) ^ r7) & M32;
        r7 ^= t;
        r3 ^= t << 32;
        long o = out + 8L * g;
        MemoryUtil.putLong(o, transposeBits(r0));
        MemoryUtil.putLong(o + 8, transposeBits(r1));
        MemoryUtil.putLong(o + 16, transposeBits(r2));
        MemoryUtil.putLong(o + 24, transposeBits(r3));
        MemoryUtil.putLong(o + 32, transposeBits(r4));
        MemoryUtil.putLong(o + 40, transposeBits(r5));
        MemoryUtil.putLong(o + 48, transposeBits(r6));
        MemoryUtil.putLong(o + 56, transposeBits(r7));
      }
      for (; g < rowBytes; g++) {
        long x = 0;
        for (int k = 0; k < 8; k++) {
          x |= (MemoryUtil.getByte(rows + (long) k * rowBytes + g) & 0xffL) << (8 * k);
        }
        MemoryUtil.putLong(out + 8L * g, transposeBits(x));
      }
    }
    if (typesize > 1) {
      bytes(typesize, n * typesize, tmp, dst);
    }
    long done = (long) n * typesize;
    if (done < size) {
      MemoryUtil.copyMemory(src + done, dst + done, size - done);
    }
  }

  /** Transposes the 8x8 bit matrix in {@code x} (byte r, bit c) to (byte c, bit r). */
  static long transposeBits(long x) {
    long t = (x ^ (x >>> 7)) & 0x00AA00AA00AA00AAL;
    x = x ^ t ^ (t << 7);
    t = (x ^ (x >>> 14)) & 0x0000CCCC0000CCCCL;
    x = x ^ t ^ (t << 14);
    t = (x ^ (x >>> 28)) & 0x00000000F0F0F0F0L;
    return x ^ t ^ (t << 28);
  }
}
