package dev.zaro.arrow.codec.blosc;

import dev.zaro.arrow.codec.lz.Copy;
import dev.zaro.arrow.codec.lz.StreamException;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Decodes one raw snappy stream (a varint decoded length, then literal and copy elements), as
 * c-blosc's snappy compressor writes per stream. Every length and offset is checked before memory
 * is touched.
 */
final class SnappyDecoder {
  private SnappyDecoder() {}

  /**
   * The decoded length a stream declares in its varint preamble.
   *
   * @throws StreamException if the preamble is malformed
   */
  static long declaredLength(long src, int srcLength) {
    long value = 0;
    for (int i = 0; i < 5; i++) {
      if (i >= srcLength) {
        throw new StreamException("stream ends inside its length preamble");
      }
      int b = MemoryUtil.getByte(src + i) & 0xff;
      value |= (long) (b & 0x7f) << (7 * i);
      if (b < 0x80) {
        return value;
      }
    }
    throw new StreamException("length preamble is longer than 5 bytes");
  }

  private static int preambleLength(long src) {
    int n = 1;
    while ((MemoryUtil.getByte(src + n - 1) & 0x80) != 0) {
      n++;
    }
    return n;
  }

  /**
   * Decodes {@code src[0, srcLength)} into exactly {@code dst[0, dstLength)}.
   *
   * @throws StreamException if the stream is malformed or decodes to another size
   */
  static void decode(long src, int srcLength, long dst, int dstLength) {
    long declared = declaredLength(src, srcLength);
    if (declared != dstLength) {
      throw new StreamException(
          "stream declares " + declared + " decoded bytes, expected " + dstLength);
    }
    long ip = src + preambleLength(src);
    long ipEnd = src + srcLength;
    long op = dst;
    long opEnd = dst + dstLength;
    while (ip < ipEnd) {
      int tag = MemoryUtil.getByte(ip++) & 0xff;
      long length;
      long offset;
      switch (tag & 3) {
        case 0 -> {
          length = (long) (tag >>> 2) + 1;
          if (length > 60) {
            int n = (int) length - 60;
            if (ipEnd - ip < n) {
              throw new StreamException("stream ends inside a literal length");
            }
            length = 0;
            for (int i = 0; i < n; i++) {
              length |= (long) (MemoryUtil.getByte(ip + i) & 0xff) << (8 * i);
            }
            length += 1;
            ip += n;
          }
          Copy.literalRun(src, ip, ipEnd, dst, op, opEnd, length);
          ip += length;
          op += length;
          continue;
        }
        case 1 -> {
          if (ip >= ipEnd) {
            throw new StreamException("stream ends inside a copy");
          }
          length = (long) ((tag >>> 2) & 7) + 4;
          offset = ((long) (tag >>> 5) << 8) | (MemoryUtil.getByte(ip++) & 0xff);
        }
        case 2 -> {
          if (ipEnd - ip < 2) {
            throw new StreamException("stream ends inside a copy");
          }
          length = (long) (tag >>> 2) + 1;
          offset =
              (long) ((MemoryUtil.getByte(ip) & 0xff) | (MemoryUtil.getByte(ip + 1) & 0xff) << 8);
          ip += 2;
        }
        default -> {
          if (ipEnd - ip < 4) {
            throw new StreamException("stream ends inside a copy");
          }
          length = (long) (tag >>> 2) + 1;
          offset = 0;
          for (int i = 0; i < 4; i++) {
            offset |= (long) (MemoryUtil.getByte(ip + i) & 0xff) << (8 * i);
          }
          ip += 4;
        }
      }
      if (offset == 0 || offset > op - dst) {
        throw new StreamException(
            "copy offset "
                + offset
                + " at output byte "
                + (op - dst)
                + " points outside the block");
      }
      if (length > opEnd - op) {
        throw new StreamException(
            "copy of "
                + length
                + " bytes at output byte "
                + (op - dst)
                + " passes the end of the "
                + dstLength
                + "-byte block");
      }
      Copy.match(op, offset, length, opEnd);
      op += length;
    }
    if (op != opEnd) {
      throw new StreamException(
          "stream decodes to " + (op - dst) + " bytes, expected " + dstLength);
    }
  }
}
