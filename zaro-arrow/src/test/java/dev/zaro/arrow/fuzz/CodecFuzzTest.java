package dev.zaro.arrow.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.codec.Scratch;
import dev.zaro.arrow.codec.blosc.BloscCodec;
import dev.zaro.arrow.codec.core.GzipCodec;
import dev.zaro.arrow.codec.core.ZstdCodec;
import dev.zaro.arrow.codec.numcodecs.Lz4Codec;
import java.util.function.Consumer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Bytes codecs decoding any bytes into bounded outputs, through each of their decode paths. Input:
 * a mode byte, a 3-byte big-endian decoded size (taken modulo {@link FuzzChecks#MAX_DECODED} + 1),
 * then the encoded bytes. Modes (mode byte modulo 6): 0 {@code decode} at the size, 1 {@code
 * decode} of unknown size (-1: the size comes from the stream's own header and must not be trusted
 * blindly), 2 {@code decodeInto} a region, 3 the same with a worker's {@link Scratch}, 4 {@code
 * decodeStreaming} through a small window, 5 {@code decodeRange} of a part. Writes outside the
 * region asked for are findings.
 *
 * <p>blosc frames carry blosclz, lz4, lz4hc, snappy, zlib and zstd streams (its corpus is seeded
 * with c-blosc's frames of each); the raw LZ decoders are also fuzzed on their own ({@code
 * dev.zaro.arrow.codec.blosc.LzStreamFuzzTest}).
 */
class CodecFuzzTest {
  /** Guard bytes on either side of a decodeInto region. */
  private static final int GUARD = 8;

  @FuzzTest
  void blosc(byte[] input) {
    decode(new BloscCodec("lz4", 5, BloscCodec.Shuffle.SHUFFLE, 4, 0), input);
  }

  @FuzzTest
  void lz4(byte[] input) {
    decode(new Lz4Codec(1), input);
  }

  @FuzzTest
  void zstd(byte[] input) {
    decode(new ZstdCodec(0, false), input);
  }

  @FuzzTest
  void gzip(byte[] input) {
    decode(new GzipCodec(6), input);
  }

  static void decode(BytesToBytesCodec codec, byte[] input) {
    if (input.length < 4) {
      return;
    }
    int mode = input[0] & 0xff;
    long size = FuzzChecks.unsigned(input, 1, 3) % (FuzzChecks.MAX_DECODED + 1);
    FuzzChecks.run(
        allocator -> {
          try (ArrowBuf encoded = FuzzChecks.buffer(allocator, input, 4, input.length)) {
            switch (mode % 6) {
              case 0 -> {
                try (ArrowBuf out = codec.decode(encoded, size, allocator)) {
                  assertEquals(size, out.writerIndex(), "decoded size");
                }
              }
              case 1 -> {
                try (ArrowBuf out = codec.decode(encoded, -1, allocator)) {
                  assertTrue(out.writerIndex() >= 0 && out.writerIndex() <= out.capacity());
                }
              }
              case 2 ->
                  guarded(
                      allocator, size, target -> codec.decodeInto(encoded, target, GUARD, size));
              case 3 -> {
                try (Scratch scratch = new Scratch(allocator)) {
                  guarded(
                      allocator,
                      size,
                      target -> codec.decodeInto(encoded, target, GUARD, size, scratch));
                }
              }
              case 4 -> stream(codec, encoded, size, mode, allocator);
              default -> {
                long from = size * ((mode >> 3) & 7) / 8;
                long to = from + (size - from) * (1 + ((mode >> 6) & 3)) / 4;
                try (ArrowBuf target = allocator.buffer(Math.max(1, size))) {
                  codec.decodeRange(encoded, target, size, from, to, null);
                }
              }
            }
          }
        });
  }

  /** Decodes into {@code [GUARD, GUARD + size)} of a larger target and checks the guards. */
  private static void guarded(BufferAllocator allocator, long size, Consumer<ArrowBuf> decode) {
    try (ArrowBuf target = allocator.buffer(size + 2 * GUARD)) {
      target.setOne(0, size + 2 * GUARD);
      try {
        decode.accept(target);
      } finally {
        for (long i = 0; i < GUARD; i++) {
          assertEquals(-1, target.getByte(i), "byte written before the region");
          assertEquals(-1, target.getByte(GUARD + size + i), "byte written after the region");
        }
      }
    }
  }

  /**
   * Streams through a window of 16..8192 bytes in units of 1..8 bytes (a unit that divides the
   * size, as an element size does), checking what the sink gets.
   */
  private static void stream(
      BytesToBytesCodec codec, ArrowBuf encoded, long size, int mode, BufferAllocator allocator) {
    int unit =
        size % (1 + ((mode >> 3) & 7)) == 0
            ? 1 + ((mode >> 3) & 7)
            : 1; // sizes hold whole elements
    long windowSize = 16L << (((mode >> 6) & 3) * 3);
    long[] next = {0};
    try (ArrowBuf window = allocator.buffer(windowSize)) {
      boolean streamed =
          codec.decodeStreaming(
              encoded,
              size,
              window,
              unit,
              (buf, off, position, length) -> {
                assertEquals(next[0], position, "stream position");
                assertTrue(
                    length % unit == 0
                        && off >= 0
                        && off + length <= buf.capacity()
                        && position + length <= size,
                    "window part " + off + "+" + length + " at " + position + " of " + size);
                next[0] += length;
              });
      if (streamed) {
        assertTrue(size - next[0] < unit, "streamed " + next[0] + " of " + size + " bytes");
      }
    }
  }
}
