package dev.zaro.arrow.codec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * The element copies under {@link SlabView}'s scatters and fills: runs of elements between
 * addresses a fixed step apart, as they are or with the bytes of each unit reversed (big-endian
 * data), and one element's bytes written at an address. Raw memory: the callers check that every
 * address lies inside its buffer.
 */
final class ElementCopy {
  private ElementCopy() {}

  /**
   * Copies {@code n} elements of {@code itemSize} bytes, {@code srcStep} and {@code dstStep} apart.
   *
   * @param swapUnit 0 (or 1) to copy bytes as they are; else reverse the bytes of every unit of
   *     this size
   */
  static void run(
      int itemSize, long src, long srcStep, long dst, long dstStep, long n, int swapUnit) {
    if (swapUnit <= 1 && srcStep == itemSize && dstStep == itemSize) {
      MemoryUtil.copyMemory(src, dst, n * itemSize);
      return;
    }
    if (swapUnit <= 1) {
      switch (itemSize) {
        case 1 -> {
          for (long i = 0; i < n; i++) {
            MemoryUtil.putByte(dst + i * dstStep, MemoryUtil.getByte(src + i * srcStep));
          }
        }
        case 2 -> {
          for (long i = 0; i < n; i++) {
            MemoryUtil.putShort(dst + i * dstStep, MemoryUtil.getShort(src + i * srcStep));
          }
        }
        case 4 -> {
          for (long i = 0; i < n; i++) {
            MemoryUtil.putInt(dst + i * dstStep, MemoryUtil.getInt(src + i * srcStep));
          }
        }
        case 8 -> {
          for (long i = 0; i < n; i++) {
            MemoryUtil.putLong(dst + i * dstStep, MemoryUtil.getLong(src + i * srcStep));
          }
        }
        default -> {
          for (long i = 0; i < n; i++) {
            MemoryUtil.copyMemory(src + i * srcStep, dst + i * dstStep, itemSize);
          }
        }
      }
      return;
    }
    int units = itemSize / swapUnit;
    for (long i = 0; i < n; i++) {
      long se = src + i * srcStep;
      long de = dst + i * dstStep;
      for (int u = 0; u < units; u++) {
        long su = se + (long) u * swapUnit;
        long du = de + (long) u * swapUnit;
        switch (swapUnit) {
          case 2 -> MemoryUtil.putShort(du, Short.reverseBytes(MemoryUtil.getShort(su)));
          case 4 -> MemoryUtil.putInt(du, Integer.reverseBytes(MemoryUtil.getInt(su)));
          case 8 -> MemoryUtil.putLong(du, Long.reverseBytes(MemoryUtil.getLong(su)));
          default -> {
            for (int b = 0; b < swapUnit; b++) {
              MemoryUtil.putByte(du + b, MemoryUtil.getByte(su + swapUnit - 1 - b));
            }
          }
        }
      }
    }
  }

  /** Copies {@code n} runs of {@code run} bytes, {@code srcStep} and {@code dstStep} apart. */
  static void rows(long src, long srcStep, long dst, long dstStep, int n, long run) {
    for (int i = 0; i < n; i++) {
      MemoryUtil.copyMemory(src + i * srcStep, dst + i * dstStep, run);
    }
  }

  /**
   * Writes {@code element}'s bytes at {@code n} addresses {@code step} apart: an element of 1, 2, 4
   * or 8 bytes as one native-order store each (the same bytes), others byte by byte.
   */
  static void fill(long dst, long step, long n, byte[] element) {
    ByteBuffer e = ByteBuffer.wrap(element).order(ByteOrder.nativeOrder());
    switch (element.length) {
      case 1 -> {
        byte v = element[0];
        for (long i = 0; i < n; i++) {
          MemoryUtil.putByte(dst + i * step, v);
        }
      }
      case 2 -> {
        short v = e.getShort(0);
        for (long i = 0; i < n; i++) {
          MemoryUtil.putShort(dst + i * step, v);
        }
      }
      case 4 -> {
        int v = e.getInt(0);
        for (long i = 0; i < n; i++) {
          MemoryUtil.putInt(dst + i * step, v);
        }
      }
      case 8 -> {
        long v = e.getLong(0);
        for (long i = 0; i < n; i++) {
          MemoryUtil.putLong(dst + i * step, v);
        }
      }
      default -> {
        for (long i = 0; i < n; i++) {
          put(dst + i * step, element);
        }
      }
    }
  }

  /** Writes {@code element}'s bytes at {@code address}. */
  static void put(long address, byte[] element) {
    for (int b = 0; b < element.length; b++) {
      MemoryUtil.putByte(address + b, element[b]);
    }
  }
}
