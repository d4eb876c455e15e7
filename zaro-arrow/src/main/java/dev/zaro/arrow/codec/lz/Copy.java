package dev.zaro.arrow.codec.lz;

import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Byte copies for the LZ-style decoders, on raw addresses. Callers check every range first; the
 * fast paths here read and write whole 8-byte words, and only do so when the caller's limits leave
 * room for the rounding.
 */
public final class Copy {
  private Copy() {}

  /**
   * A literal run of {@code n} bytes from {@code ip} to {@code op}, checked first against the input
   * stream {@code [src, ipEnd)} and the output block {@code [dst, opEnd)}.
   *
   * @throws StreamException if the run passes the end of either
   */
  public static void literalRun(
      long src, long ip, long ipEnd, long dst, long op, long opEnd, long n) {
    if (n > ipEnd - ip) {
      throw new StreamException(
          "literal run of "
              + n
              + " bytes at input byte "
              + (ip - src)
              + " passes the end of the "
              + (ipEnd - src)
              + "-byte stream");
    }
    if (n > opEnd - op) {
      throw new StreamException(
          "literal run of "
              + n
              + " bytes at output byte "
              + (op - dst)
              + " passes the end of the "
              + (opEnd - dst)
              + "-byte block");
    }
    literals(ip, ipEnd, op, opEnd, n);
  }

  /**
   * Copies {@code n} bytes from {@code src} to {@code dst} (not overlapping). Up to 7 bytes past
   * {@code src + n} may be read if that stays below {@code srcLimit}, and past {@code dst + n}
   * written if that stays below {@code dstLimit}.
   */
  public static void literals(long src, long srcLimit, long dst, long dstLimit, long n) {
    if (n <= 64 && srcLimit - src >= n + 8 && dstLimit - dst >= n + 8) {
      long end = dst + n;
      do {
        MemoryUtil.putLong(dst, MemoryUtil.getLong(src));
        dst += 8;
        src += 8;
      } while (dst < end);
    } else if (n > 0) {
      MemoryUtil.copyMemory(src, dst, n);
    }
  }

  /**
   * An LZ77 match: writes {@code len} bytes at {@code op}, each equal to the byte {@code distance}
   * before it (so a match overlapping its own output repeats a pattern). The caller has checked
   * {@code 1 <= distance <= op - blockStart} and {@code op + len <= opLimit}; up to 7 bytes past
   * the match may be written when they stay below {@code opLimit} (later output overwrites them).
   */
  public static void match(long op, long distance, long len, long opLimit) {
    long ref = op - distance;
    long end = op + len;
    boolean room = opLimit - end >= 8;
    if (distance >= 32 && opLimit - end >= 32) {
      // 32 bytes per step: every source word lies 32 or more bytes back, so it is already written
      do {
        MemoryUtil.putLong(op, MemoryUtil.getLong(ref));
        MemoryUtil.putLong(op + 8, MemoryUtil.getLong(ref + 8));
        MemoryUtil.putLong(op + 16, MemoryUtil.getLong(ref + 16));
        MemoryUtil.putLong(op + 24, MemoryUtil.getLong(ref + 24));
        op += 32;
        ref += 32;
      } while (op < end);
      return;
    }
    if (distance >= 8) {
      if (room) {
        do {
          MemoryUtil.putLong(op, MemoryUtil.getLong(ref));
          op += 8;
          ref += 8;
        } while (op < end);
        return;
      }
      while (end - op >= 8) {
        MemoryUtil.putLong(op, MemoryUtil.getLong(ref));
        op += 8;
        ref += 8;
      }
    } else if (distance == 1 && len >= 64) {
      MemoryUtil.setMemory(op, len, MemoryUtil.getByte(ref));
      return;
    } else if ((distance & (distance - 1)) == 0 && room) {
      // distance 1, 2 or 4: the match repeats a word-aligned pattern
      long pattern =
          switch ((int) distance) {
            case 1 -> (MemoryUtil.getByte(ref) & 0xffL) * 0x0101010101010101L;
            case 2 -> (MemoryUtil.getShort(ref) & 0xffffL) * 0x0001000100010001L;
            default -> (MemoryUtil.getInt(ref) & 0xffffffffL) * 0x0000000100000001L;
          };
      do {
        MemoryUtil.putLong(op, pattern);
        op += 8;
      } while (op < end);
      return;
    } else if (len >= 8 && room) {
      // Write the first 8 bytes one by one, then copy words from a multiple of the period
      // that lies at least 8 bytes back: the same bytes, no word overlapping its source.
      for (int i = 0; i < 8; i++) {
        MemoryUtil.putByte(op + i, MemoryUtil.getByte(ref + i));
      }
      op += 8;
      long step = distance * ((8 + distance - 1) / distance);
      ref = op - step;
      while (op < end) {
        MemoryUtil.putLong(op, MemoryUtil.getLong(ref));
        op += 8;
        ref += 8;
      }
      return;
    }
    while (op < end) {
      MemoryUtil.putByte(op++, MemoryUtil.getByte(ref++));
    }
  }
}
