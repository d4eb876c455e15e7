package dev.zaro.arrow.codec.numcodecs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.error.CodecException;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * numcodecs shuffle: byte planes back into elements (the encoder here follows numcodecs'
 * _doShuffle).
 */
class ShuffleCodecTest extends AllocatorTest {

  static byte[] shuffle(byte[] data, int elementSize) {
    if (elementSize <= 1) {
      return data.clone();
    }
    int n = data.length / elementSize;
    byte[] out = new byte[data.length];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < elementSize; j++) {
        out[j * n + i] = data[i * elementSize + j];
      }
    }
    return out;
  }

  ArrowBuf buf(byte[] bytes) {
    ArrowBuf buf = allocator.buffer(Math.max(1, bytes.length));
    buf.setBytes(0, bytes);
    buf.writerIndex(bytes.length);
    return buf;
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2, 3, 4, 8, 16})
  void unshuffles(int elementSize) {
    byte[] data = new byte[48 * 7];
    new Random(elementSize).nextBytes(data);
    ShuffleCodec codec = new ShuffleCodec(elementSize);
    try (ArrowBuf in = buf(shuffle(data, elementSize));
        ArrowBuf out = codec.decode(in, data.length, allocator)) {
      byte[] got = new byte[data.length];
      out.getBytes(0, got);
      assertArrayEquals(data, got);
    }
    try (ArrowBuf in = buf(shuffle(data, elementSize));
        ArrowBuf target = allocator.buffer(data.length + 8)) {
      for (long i = 0; i < target.capacity(); i++) {
        target.setByte(i, 0xff);
      }
      assertTrue(codec.decodeInto(in, target, 4, data.length));
      byte[] got = new byte[data.length];
      target.getBytes(4, got);
      assertArrayEquals(data, got);
      assertEquals((byte) 0xff, target.getByte(3));
      assertEquals((byte) 0xff, target.getByte(4 + data.length));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {5, 7})
  void aPartialElementIsAnError(int elementSize) {
    try (ArrowBuf in = buf(new byte[48])) {
      CodecException e =
          assertThrows(
              CodecException.class,
              () -> new ShuffleCodec(elementSize).decode(in, 48, allocator).close());
      assertEquals(
          "codec numcodecs.shuffle: 48 bytes are not a whole number of "
              + elementSize
              + "-byte elements",
          e.getMessage());
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {47, 49})
  void aWrongSizeIsAnError(int expected) {
    try (ArrowBuf in = buf(new byte[48])) {
      CodecException e =
          assertThrows(
              CodecException.class,
              () -> new ShuffleCodec(4).decode(in, expected, allocator).close());
      assertEquals(
          "codec numcodecs.shuffle: data has 48 bytes, expected " + expected, e.getMessage());
    }
  }
}
