package dev.zaro.arrow.codec.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.zaro.arrow.codec.AbstractBytesCodecTest;
import dev.zaro.arrow.codec.BytesToBytesCodec;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPOutputStream;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.Test;

class GzipCodecTest extends AbstractBytesCodecTest {
  @Override
  protected BytesToBytesCodec codec() {
    return new GzipCodec(5);
  }

  @Override
  protected byte[] encode(byte[] data) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(data);
    }
    return out.toByteArray();
  }

  @Test
  void readsConcatenatedMembers() throws Exception {
    byte[] a = "first member ".getBytes(StandardCharsets.UTF_8);
    byte[] b = "second member".getBytes(StandardCharsets.UTF_8);
    byte[] ea = encode(a);
    byte[] eb = encode(b);
    byte[] both = new byte[ea.length + eb.length];
    System.arraycopy(ea, 0, both, 0, ea.length);
    System.arraycopy(eb, 0, both, ea.length, eb.length);
    try (ArrowBuf in = buf(both);
        ArrowBuf out = codec().decode(in, a.length + b.length, allocator)) {
      assertArrayEquals("first member second member".getBytes(StandardCharsets.UTF_8), bytes(out));
    }
  }
}
