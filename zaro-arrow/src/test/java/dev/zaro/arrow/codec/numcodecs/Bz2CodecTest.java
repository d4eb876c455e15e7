package dev.zaro.arrow.codec.numcodecs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.zaro.arrow.codec.AbstractBytesCodecTest;
import dev.zaro.arrow.codec.BytesToBytesCodec;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorOutputStream;
import org.junit.jupiter.api.Test;

/** numcodecs bz2: streams written by Commons Compress' bzip2 encoder (block and stream CRCs). */
class Bz2CodecTest extends AbstractBytesCodecTest {
  @Override
  protected BytesToBytesCodec codec() {
    return new Bz2Codec(9);
  }

  @Override
  protected byte[] encode(byte[] data) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (BZip2CompressorOutputStream bz = new BZip2CompressorOutputStream(out, 1)) {
      bz.write(data);
    }
    return out.toByteArray();
  }

  @Test
  void readsConcatenatedStreams() throws Exception {
    byte[] a = encode("first ".getBytes(StandardCharsets.UTF_8));
    byte[] b = encode("second".getBytes(StandardCharsets.UTF_8));
    byte[] both = new byte[a.length + b.length];
    System.arraycopy(a, 0, both, 0, a.length);
    System.arraycopy(b, 0, both, a.length, b.length);
    try (ArrowBuf in = buf(both);
        ArrowBuf out = codec().decode(in, 12, allocator)) {
      assertArrayEquals("first second".getBytes(StandardCharsets.UTF_8), bytes(out));
    }
  }
}
