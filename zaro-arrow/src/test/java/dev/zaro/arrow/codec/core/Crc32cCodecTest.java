package dev.zaro.arrow.codec.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.codec.AbstractBytesCodecTest;
import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.error.CodecException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.Test;

class Crc32cCodecTest extends AbstractBytesCodecTest {
  @Override
  protected BytesToBytesCodec codec() {
    return new Crc32cCodec();
  }

  @Override
  protected byte[] encode(byte[] data) {
    CRC32C crc = new CRC32C();
    crc.update(data);
    return ByteBuffer.allocate(data.length + 4)
        .order(ByteOrder.LITTLE_ENDIAN)
        .put(data)
        .putInt((int) crc.getValue())
        .array();
  }

  /** The CRC-32C check value of "123456789" is 0xE3069283 (RFC 3720, B.4). */
  @Test
  void acceptsTheStandardCheckValue() {
    byte[] data = "123456789".getBytes(StandardCharsets.US_ASCII);
    byte[] encoded =
        ByteBuffer.allocate(13).order(ByteOrder.LITTLE_ENDIAN).put(data).putInt(0xE3069283).array();
    try (ArrowBuf in = buf(encoded);
        ArrowBuf out = codec().decode(in, 9, allocator)) {
      assertArrayEquals(data, bytes(out));
    }
    encoded[12] ^= 1;
    try (ArrowBuf in = buf(encoded)) {
      CodecException e = assertThrows(CodecException.class, () -> codec().decode(in, 9, allocator));
      assertTrue(e.getMessage().contains("checksum mismatch"), e.getMessage());
    }
  }
}
