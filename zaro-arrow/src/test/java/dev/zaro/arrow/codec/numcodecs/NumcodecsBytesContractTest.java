package dev.zaro.arrow.codec.numcodecs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.codec.AbstractBytesCodecTest;
import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Nested;

/**
 * The numcodecs bytes codecs not framed by the JDK through the bytes-codec contract, each decoding
 * what numcodecs itself wrote for the contract's payloads ({@code testdata/bytescodecs}, found by
 * the SHA-256 of the payload; its generator rebuilds the payloads as the contract test does).
 */
class NumcodecsBytesContractTest {
  private static final Path DIR = Fixtures.testdata().resolve("bytescodecs");

  private static BytesToBytesCodec codec(String name, String config, DataType type) {
    try {
      return (BytesToBytesCodec)
          CodecRegistry.defaults()
              .create(
                  new CodecSpec(name, Json.readTree(config)),
                  new ChunkSpec(new int[] {4}, type, FillValue.zero(type)));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static String sha256(byte[] data) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
  }

  /** numcodecs' whole output for {@code data}, from {@code <dir>/<sha256>.bin.gz}. */
  static byte[] written(String dir, byte[] data) throws Exception {
    Path file = DIR.resolve(dir).resolve(sha256(data) + ".bin.gz");
    if (!Files.exists(file)) {
      throw new AssertionError(
          file + " missing: rerun testdata/bytescodecs/generate_bytescodecs.py");
    }
    try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
      return in.readAllBytes();
    }
  }

  /** {@code data} with the 4 bytes numcodecs' {@code key} checksum adds, where it adds them. */
  static byte[] checksummed(String key, byte[] data) throws Exception {
    JsonNode entry =
        Json.readTree(Files.readString(DIR.resolve("checksums.json"))).path(key).path(sha256(data));
    if (entry.isMissingNode()) {
      throw new AssertionError(
          key + " of a payload missing: rerun testdata/bytescodecs/generate_bytescodecs.py");
    }
    byte[] sum = HexFormat.of().parseHex(entry.get("checksum").asText());
    byte[] out = new byte[data.length + 4];
    boolean atStart = entry.get("at").asText().equals("start");
    System.arraycopy(sum, 0, out, atStart ? 0 : data.length, 4);
    System.arraycopy(data, 0, out, atStart ? 4 : 0, data.length);
    return out;
  }

  @Nested
  class Shuffle extends AbstractBytesCodecTest {
    @Override
    protected BytesToBytesCodec codec() {
      return NumcodecsBytesContractTest.codec(
          "numcodecs.shuffle", "{\"elementsize\":4}", DataType.UINT8);
    }

    @Override
    protected byte[] encode(byte[] data) throws Exception {
      return written("shuffle4", data);
    }

    @Override
    protected boolean encodes(byte[] data) {
      return data.length % 4 == 0;
    }

    @Override
    protected boolean framed() {
      return false;
    }

    @Override
    protected boolean detectsCorruption() {
      return false;
    }
  }

  @Nested
  class Base64 extends AbstractBytesCodecTest {
    @Override
    protected BytesToBytesCodec codec() {
      return NumcodecsBytesContractTest.codec("numcodecs.base64", "{}", DataType.UINT8);
    }

    @Override
    protected byte[] encode(byte[] data) throws Exception {
      return written("base64", data);
    }

    /** A flipped character may be another base64 character: only the alphabet is checked. */
    @Override
    protected boolean detectsCorruption() {
      return false;
    }
  }

  @Nested
  class Fletcher32 extends AbstractBytesCodecTest {
    @Override
    protected BytesToBytesCodec codec() {
      return NumcodecsBytesContractTest.codec("numcodecs.fletcher32", "{}", DataType.UINT8);
    }

    @Override
    protected byte[] encode(byte[] data) throws Exception {
      return checksummed("numcodecs.fletcher32", data);
    }
  }

  @Nested
  class JenkinsLookup3 extends AbstractBytesCodecTest {
    @Override
    protected BytesToBytesCodec codec() {
      return NumcodecsBytesContractTest.codec(
          "numcodecs.jenkins_lookup3",
          "{\"initval\":7,\"prefix\":[122,97,114,111]}", // prefix b"zaro"
          DataType.UINT8);
    }

    @Override
    protected byte[] encode(byte[] data) throws Exception {
      return checksummed("numcodecs.jenkins_lookup3", data);
    }
  }

  @Nested
  class ZfpyInt32 extends AbstractBytesCodecTest {
    @Override
    protected BytesToBytesCodec codec() {
      return NumcodecsBytesContractTest.codec("numcodecs.zfpy", "{\"mode\":5}", DataType.INT32);
    }

    @Override
    protected byte[] encode(byte[] data) throws Exception {
      return written("zfpy_int32", data);
    }

    /** zfp streams carry no checksum: a flipped bit inside decodes to other values. */
    @Override
    protected boolean detectsCorruption() {
      return false;
    }

    @Override
    protected boolean encodes(byte[] data) {
      return data.length % 4 == 0;
    }
  }
}
