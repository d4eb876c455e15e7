package dev.zaro.arrow.codec.numcodecs;

import dev.zaro.arrow.codec.AbstractBytesCodecTest;
import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import java.util.zip.Adler32;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Nested;

/**
 * The numcodecs checksums through the bytes-codec contract, framed independently with the JDK's
 * checksums (little endian, at numcodecs' default end for each): crc32 before the data, adler32
 * after it (configured), as numcodecs writes them.
 */
class ChecksumContractTest {
  private static BytesToBytesCodec codec(String name, String config) throws Exception {
    return (BytesToBytesCodec)
        CodecRegistry.defaults()
            .create(
                new CodecSpec(name, Json.readTree(config)),
                new ChunkSpec(new int[] {4}, DataType.UINT8, FillValue.zero(DataType.UINT8)));
  }

  @Nested
  class Crc32AtStart extends AbstractBytesCodecTest {
    @Override
    protected BytesToBytesCodec codec() {
      try {
        return ChecksumContractTest.codec("numcodecs.crc32", "{}");
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }

    @Override
    protected byte[] encode(byte[] data) {
      return ChecksumCodecTest.framed(data, new CRC32(), true);
    }
  }

  @Nested
  class Adler32AtEnd extends AbstractBytesCodecTest {
    @Override
    protected BytesToBytesCodec codec() {
      try {
        return ChecksumContractTest.codec("numcodecs.adler32", "{\"location\":\"end\"}");
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }

    @Override
    protected byte[] encode(byte[] data) {
      return ChecksumCodecTest.framed(data, new Adler32(), false);
    }
  }
}
