package dev.zaro.arrow.codec.numcodecs;

import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Decodes one LZ4 block (the raw block format) from memory to memory. Every literal run, match
 * offset and match length is checked against both regions before a byte is copied, so corrupt
 * input can neither read nor write out of bounds.
 */
final class Lz4Block {
  private Lz4Block() {}

  /** A malformed block. */
  static final class MalformedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    MalformedException(String message) {
      super(message, null, false, false);
    }
  }

  /** Decodes {@code src[0, srcLength)} into exactly {@code dst[0, dstLength)}. */
  static void decode(long src, long srcLength, long dst, long dstLength) {
    long ip = src;
    long ipEnd = src + srcLength;
    long op = dst;
    long opEnd = dst + dstLength;
    if (srcLength == 0) {
      throw new MalformedException("empty block");
    }
    while (true) {
      if (ip >= ipEnd) {
        throw new MalformedException("block ends before its last literals");
      }
      int token = MemoryUtil.getByte(ip++) & 0xff;
      long literals = token >>> 4;
      if (literals == 15) {
        int b;
        do {
          if (ip >= ipEnd) {
            throw new MalformedException("block ends inside a literal length");
          }
          b = MemoryUtil.getByte(ip++) & 0xff;
          literals += b;
        } while (b == 255);
      }
      if (literals > ipEnd - ip) {
        throw new MalformedException("literal run of " + literals + " bytes at input byte " + (ip - src)
            + " passes the end of the " + srcLength + "-byte block");
      }
      if (literals > opEnd - op) {
        throw new MalformedException("literal run of " + literals + " bytes at output byte " + (op - dst)
            + " passes the end of the " + dstLength + " decoded bytes");
      }
      MemoryUtil.copyMemory(ip, op, literals);
      ip += literals;
      op += literals;
      if (ip == ipEnd) {
        if (op != opEnd) {
          throw new MalformedException("block decodes to " + (op - dst) + " bytes, expected " + dstLength);
        }
        return;
      }
      if (ipEnd - ip < 2) {
        throw new MalformedException("block ends inside a match offset");
      }
      int offset = (MemoryUtil.getByte(ip) & 0xff) | (MemoryUtil.getByte(ip + 1) & 0xff) << 8;
      ip += 2;
      if (offset == 0 || offset > op - dst) {
        throw new MalformedException("match offset " + offset + " at output byte " + (op - dst)
            + " points outside the decoded data");
      }
      long length = token & 15;
      if (length == 15) {
        int b;
        do {
          if (ip >= ipEnd) {
            throw new MalformedException("block ends inside a match length");
          }
          b = MemoryUtil.getByte(ip++) & 0xff;
          length += b;
        } while (b == 255);
      }
      length += 4;
      if (length > opEnd - op) {
        throw new MalformedException("match of " + length + " bytes at output byte " + (op - dst)
            + " passes the end of the " + dstLength + " decoded bytes");
      }
      long ref = op - offset;
      if (offset >= length) {
        MemoryUtil.copyMemory(ref, op, length);
      } else if (offset >= 8) {
        for (long k = 0; k < length; k += 8) {
          long n = Math.min(8, length - k);
          if (n == 8) {
            MemoryUtil.putLong(op + k, MemoryUtil.getLong(ref + k));
          } else {
            for (long m = 0; m < n; m++) {
              MemoryUtil.putByte(op + k + m, MemoryUtil.getByte(ref + k + m));
            }
          }
        }
      } else {
        for (long k = 0; k < length; k++) {
          MemoryUtil.putByte(op + k, MemoryUtil.getByte(ref + k));
        }
      }
      op += length;
    }
  }
}
