package dev.zaro.arrow.codec.lz;

import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Decodes one LZ4 block (the raw block format, no frame: what c-blosc's lz4 and lz4hc write per
 * stream, and numcodecs' LZ4 after its 4-byte size). Every length and offset is checked against the
 * input stream and the output region before memory is touched.
 */
public final class Lz4BlockDecoder {
  private Lz4BlockDecoder() {}

  /**
   * Decodes {@code src[0, srcLength)} into exactly {@code dst[0, dstLength)}.
   *
   * @throws StreamException if the stream is malformed or decodes to another size
   */
  public static void decode(long src, int srcLength, long dst, int dstLength) {
    if (srcLength == 0) {
      throw new StreamException("empty stream");
    }
    long ip = src;
    long ipEnd = src + srcLength;
    long op = dst;
    long opEnd = dst + dstLength;
    while (true) {
      if (ip >= ipEnd) {
        if (op == opEnd) {
          break;
        }
        throw new StreamException(
            "stream ends after a match, " + (op - dst) + " of " + dstLength + " bytes decoded");
      }
      int token = MemoryUtil.getByte(ip++) & 0xff;
      long literals = (long) (token >>> 4);
      if (literals < 15 && ipEnd - ip >= 16 && opEnd - op >= 16) {
        // a short run with room on both sides: copy 16 bytes, advance by the run
        MemoryUtil.putLong(op, MemoryUtil.getLong(ip));
        MemoryUtil.putLong(op + 8, MemoryUtil.getLong(ip + 8));
      } else {
        if (literals == 15) {
          int b;
          do {
            if (ip >= ipEnd) {
              throw new StreamException("stream ends inside a literal length");
            }
            b = MemoryUtil.getByte(ip++) & 0xff;
            literals += b;
          } while (b == 255);
        }
        Copy.literalRun(src, ip, ipEnd, dst, op, opEnd, literals);
      }
      ip += literals;
      op += literals;
      if (ip == ipEnd) {
        break;
      }
      if (ipEnd - ip < 2) {
        throw new StreamException("stream ends inside a match offset");
      }
      int offset = MemoryUtil.getShort(ip) & 0xffff;
      ip += 2;
      if (offset == 0 || offset > op - dst) {
        throw new StreamException(
            "match offset "
                + offset
                + " at output byte "
                + (op - dst)
                + " points outside the decoded data");
      }
      long length = token & 15;
      if (length < 15 && offset >= 8 && opEnd - op >= 24) {
        // a short match (at most 18 bytes) from 8 or more back: copy 24 bytes word by word
        // (each word's source is already written), advance by the match
        long ref = op - offset;
        MemoryUtil.putLong(op, MemoryUtil.getLong(ref));
        MemoryUtil.putLong(op + 8, MemoryUtil.getLong(ref + 8));
        MemoryUtil.putLong(op + 16, MemoryUtil.getLong(ref + 16));
        op += length + 4;
        continue;
      }
      if (length == 15) {
        int b;
        do {
          if (ip >= ipEnd) {
            throw new StreamException("stream ends inside a match length");
          }
          b = MemoryUtil.getByte(ip++) & 0xff;
          length += b;
        } while (b == 255);
      }
      length += 4;
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
      Copy.match(op, offset, length, opEnd);
      op += length;
    }
    if (op != opEnd) {
      throw new StreamException(
          "stream decodes to " + (op - dst) + " bytes, expected " + dstLength);
    }
  }
}
