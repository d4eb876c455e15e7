package dev.zaro.arrow.codec.numcodecs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.codec.AbstractBytesCodecTest;
import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.error.CodecException;
import io.airlift.compress.lz4.Lz4Compressor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.Test;

/**
 * numcodecs lz4: a 4-byte little-endian size and an LZ4 block, the block written by aircompressor's
 * LZ4 compressor (independent of zaro's decoder). LZ4 has no checksum.
 */
class Lz4CodecTest extends AbstractBytesCodecTest {
  @Override
  protected BytesToBytesCodec codec() {
    return new Lz4Codec(1);
  }

  @Override
  protected byte[] encode(byte[] data) {
    Lz4Compressor lz4 = new Lz4Compressor();
    byte[] out = new byte[4 + lz4.maxCompressedLength(data.length)];
    int n = lz4.compress(data, 0, data.length, out, 4, out.length - 4);
    ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN).putInt(0, data.length);
    return Arrays.copyOf(out, 4 + n);
  }

  @Override
  protected boolean detectsCorruption() {
    return false;
  }

  @Test
  void overlappingMatchesOfEveryOffset() {
    Random random = new Random(5);
    for (int period = 1; period <= 20; period++) {
      byte[] data = new byte[3000];
      byte[] unit = new byte[period];
      random.nextBytes(unit);
      for (int i = 0; i < data.length; i++) {
        data[i] = unit[i % period];
      }
      try (ArrowBuf in = buf(encode(data));
          ArrowBuf out = codec().decode(in, data.length, allocator)) {
        assertArrayEquals(data, bytes(out), "period " + period);
      }
    }
  }

  @Test
  void aHeaderLargerThanTheBlockCanHoldIsRefusedBeforeAllocating() {
    byte[] encoded = encode(new byte[100]);
    ByteBuffer.wrap(encoded).order(ByteOrder.LITTLE_ENDIAN).putInt(0, Integer.MAX_VALUE);
    try (ArrowBuf in = buf(encoded)) {
      CodecException e =
          assertThrows(CodecException.class, () -> codec().decode(in, -1, allocator).close());
      assertTrue(
          e.getMessage()
              .startsWith("codec numcodecs.lz4: header says 2147483647 decoded bytes, more than"),
          e.getMessage());
    }
  }

  @Test
  void aMatchBeforeTheStartIsAnError() {
    // token: 1 literal, match length 4; literal 'a'; offset 2 (only 1 byte decoded so far)
    byte[] block = {4, 0, 0, 0, 0x10, 'a', 2, 0};
    ByteBuffer.wrap(block).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 5);
    try (ArrowBuf in = buf(block)) {
      CodecException e =
          assertThrows(CodecException.class, () -> codec().decode(in, 5, allocator).close());
      assertEquals(
          "codec numcodecs.lz4: corrupt LZ4 block: match offset 2 at output byte 1 points outside the"
              + " decoded data",
          e.getMessage());
    }
  }

  @Test
  void emptyData() {
    byte[] encoded = encode(new byte[0]);
    try (ArrowBuf in = buf(encoded);
        ArrowBuf out = codec().decode(in, 0, allocator)) {
      assertEquals(0, out.writerIndex());
    }
  }
}
