package dev.zaro.arrow.codec.blosc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.zaro.arrow.codec.lz.Lz4BlockDecoder;
import dev.zaro.arrow.codec.lz.StreamException;
import dev.zaro.arrow.fuzz.FuzzChecks;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The raw LZ-family stream decoders blosc uses (blosclz, snappy, lz4) on any bytes: each must
 * either fill exactly the output asked for or throw its {@link StreamException}, and touch no
 * memory outside the stream and the output. Beside the decoders because two of them are
 * package-private. Input: a 3-byte big-endian output size (modulo {@link FuzzChecks#MAX_DECODED} +
 * 1), then the stream.
 *
 * <p>Out-of-bounds reads are caught by decoding each input twice, with the bytes around the stream
 * set to 0x00 and then to 0xFF: a decoder that reads outside the stream gives another result.
 * Writes outside the output are caught by guard bytes around it.
 */
class LzStreamFuzzTest {
  private static final int GUARD = 32;

  /** A raw decoder: {@code src[0, srcLength)} into exactly {@code dst[0, dstLength)}. */
  private interface Decoder {
    void decode(long src, int srcLength, long dst, int dstLength);
  }

  @FuzzTest
  void blosclz(byte[] input) {
    check(BlosclzDecoder::decode, input);
  }

  @FuzzTest
  void snappy(byte[] input) {
    check(SnappyDecoder::decode, input);
  }

  @FuzzTest
  void lz4(byte[] input) {
    check(Lz4BlockDecoder::decode, input);
  }

  private static void check(Decoder decoder, byte[] input) {
    if (input.length < 3) {
      return;
    }
    int size = FuzzChecks.unsigned(input, 0, 3) % (FuzzChecks.MAX_DECODED + 1);
    try (BufferAllocator allocator = new RootAllocator(FuzzChecks.MEMORY_LIMIT)) {
      Object zeros = decode(decoder, input, size, (byte) 0, allocator);
      Object ones = decode(decoder, input, size, (byte) -1, allocator);
      if (zeros instanceof byte[] a && ones instanceof byte[] b) {
        assertArrayEquals(a, b, "output depends on bytes outside the stream");
      } else {
        assertEquals(zeros, ones, "outcome depends on bytes outside the stream");
      }
    }
  }

  /** The decoded bytes, or the StreamException's message; anything else propagates. */
  private static Object decode(
      Decoder decoder, byte[] input, int size, byte outside, BufferAllocator allocator) {
    int length = input.length - 3;
    try (ArrowBuf src = allocator.buffer(length + 2L * GUARD);
        ArrowBuf dst = allocator.buffer(size + 2L * GUARD)) {
      for (int i = 0; i < GUARD; i++) {
        src.setByte(i, outside);
        src.setByte(GUARD + length + i, outside);
      }
      src.setBytes(GUARD, input, 3, length);
      dst.setOne(0, size + 2L * GUARD);
      String error = null;
      try {
        decoder.decode(src.memoryAddress() + GUARD, length, dst.memoryAddress() + GUARD, size);
      } catch (StreamException e) {
        error = e.getMessage();
      }
      for (int i = 0; i < GUARD; i++) {
        assertEquals(-1, dst.getByte(i), "byte written before the output");
        assertEquals(-1, dst.getByte(GUARD + size + i), "byte written after the output");
      }
      if (error != null) {
        return error;
      }
      byte[] out = new byte[size];
      dst.getBytes(GUARD, out);
      return out;
    }
  }
}
