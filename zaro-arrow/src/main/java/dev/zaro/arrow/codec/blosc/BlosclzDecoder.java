package dev.zaro.arrow.codec.blosc;

import dev.zaro.arrow.codec.lz.Copy;
import dev.zaro.arrow.codec.lz.StreamException;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Decodes one blosclz stream (c-blosc's FastLZ derivative, {@code blosclz_decompress}).
 *
 * <p>A control byte below 32 starts a literal run of {@code ctrl + 1} bytes. Otherwise it starts a
 * match: length {@code (ctrl >> 5) + 2} (when {@code ctrl >> 5} is 7, further bytes are added until
 * one is not 255), distance {@code ((ctrl & 31) << 8) + next byte + 1}; a distance byte of 255 with
 * high bits 31 means a far match whose distance is the next two bytes (big endian) plus 8192. The
 * first control byte carries a format marker in bit 5, which is masked off.
 */
final class BlosclzDecoder {
  private static final int MAX_DISTANCE = 8191;

  private BlosclzDecoder() {}

  /**
   * Decodes {@code src[0, srcLength)} into exactly {@code dst[0, dstLength)}.
   *
   * @throws StreamException if the stream is malformed or decodes to another size
   */
  static void decode(long src, int srcLength, long dst, int dstLength) {
    if (srcLength == 0) {
      throw new StreamException("empty stream");
    }
    long ip = src;
    long ipEnd = src + srcLength;
    long op = dst;
    long opEnd = dst + dstLength;
    int ctrl = MemoryUtil.getByte(ip++) & 31;
    while (true) {
      if (ctrl >= 32) {
        long length = (long) (ctrl >>> 5) - 1;
        long high = (long) (ctrl & 31) << 8;
        int code;
        if (length == 6) {
          do {
            if (ip >= ipEnd) {
              throw new StreamException("stream ends inside a match length");
            }
            code = MemoryUtil.getByte(ip++) & 0xff;
            length += code;
          } while (code == 255);
        }
        if (ip >= ipEnd) {
          throw new StreamException("stream ends inside a match distance");
        }
        code = MemoryUtil.getByte(ip++) & 0xff;
        length += 3;
        long distance = high + code + 1;
        if (code == 255 && high == (31 << 8)) {
          if (ipEnd - ip < 2) {
            throw new StreamException("stream ends inside a far match distance");
          }
          distance =
              (long) ((MemoryUtil.getByte(ip) & 0xff) << 8 | (MemoryUtil.getByte(ip + 1) & 0xff))
                  + MAX_DISTANCE
                  + 1;
          ip += 2;
        }
        if (length > opEnd - op) {
          throw new StreamException(
              "match of "
                  + length
                  + " bytes at output byte "
                  + (op - dst)
                  + " passes the end of the "
                  + dstLength
                  + "-byte block");
        }
        if (distance > op - dst) {
          throw new StreamException(
              "match distance "
                  + distance
                  + " at output byte "
                  + (op - dst)
                  + " points before the block");
        }
        Copy.match(op, distance, length, opEnd);
        op += length;
      } else {
        long length = (long) ctrl + 1;
        Copy.literalRun(src, ip, ipEnd, dst, op, opEnd, length);
        ip += length;
        op += length;
      }
      if (ip >= ipEnd) {
        break;
      }
      ctrl = MemoryUtil.getByte(ip++) & 0xff;
    }
    if (op != opEnd) {
      throw new StreamException(
          "stream decodes to " + (op - dst) + " bytes, expected " + dstLength);
    }
  }
}
