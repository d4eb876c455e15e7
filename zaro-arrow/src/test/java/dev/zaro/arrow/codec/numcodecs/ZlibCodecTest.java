package dev.zaro.arrow.codec.numcodecs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.zaro.arrow.codec.AbstractBytesCodecTest;
import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.error.CodecException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.Test;

/** numcodecs zlib: RFC 1950 streams written by java.util.zip.Deflater (Adler-32 checked). */
class ZlibCodecTest extends AbstractBytesCodecTest {
  @Override
  protected BytesToBytesCodec codec() {
    return new ZlibCodec(1);
  }

  @Override
  protected byte[] encode(byte[] data) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (DeflaterOutputStream z = new DeflaterOutputStream(out, new Deflater(6))) {
      z.write(data);
    }
    return out.toByteArray();
  }

  @Test
  void bytesAfterTheStreamAreRefused() throws Exception {
    byte[] data = "some data some data some data".getBytes(StandardCharsets.UTF_8);
    byte[] encoded = encode(data);
    byte[] padded = Arrays.copyOf(encoded, encoded.length + 3);
    try (ArrowBuf in = buf(padded)) {
      CodecException e =
          assertThrows(
              CodecException.class, () -> codec().decode(in, data.length, allocator).close());
      assertEquals(
          "codec numcodecs.zlib: 3 bytes after the end of the zlib stream", e.getMessage());
    }
    try (ArrowBuf in = buf(encoded);
        ArrowBuf out = codec().decode(in, data.length, allocator)) {
      assertArrayEquals(data, bytes(out));
    }
  }

  @Test
  void aGzipStreamIsNotZlib() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(new byte[100]);
    }
    try (ArrowBuf in = buf(out.toByteArray())) {
      CodecException e =
          assertThrows(CodecException.class, () -> codec().decode(in, 100, allocator).close());
      assertEquals(
          true,
          e.getMessage().startsWith("codec numcodecs.zlib: corrupt deflate data"),
          e.getMessage());
    }
  }
}
