package dev.zaro.arrow.codec.numcodecs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HexFormat;
import java.util.zip.Adler32;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The numcodecs checksums: fletcher32 and jenkins_lookup3 equal numcodecs' own values
 * (testdata/codecs/checksums.json, written by numcodecs); crc32, adler32 and crc32c at either end
 * verify against the JDK's checksums; mismatches, short inputs and bad configurations are errors
 * naming the codec. Whole arrays: testdata/codecs and testdata/v2checksums.
 */
class ChecksumCodecTest extends AllocatorTest {

  static JsonNode vectors() throws Exception {
    return Json.readTree(Files.readAllBytes(Fixtures.testdata().resolve("codecs/checksums.json")));
  }

  @Test
  void fletcher32EqualsNumcodecs() throws Exception {
    JsonNode all = vectors().get("fletcher32");
    assertTrue(all.size() > 40);
    for (JsonNode v : all) {
      byte[] data = HexFormat.of().parseHex(v.get(0).asText());
      assertEquals(
          v.get(1).asLong(),
          ChecksumCodec.fletcher32(ByteBuffer.wrap(data)) & 0xffffffffL,
          data.length + " bytes");
    }
  }

  @Test
  void jenkinsLookup3EqualsNumcodecs() throws Exception {
    JsonNode all = vectors().get("jenkins_lookup3");
    assertTrue(all.size() > 40);
    for (JsonNode v : all) {
      byte[] data = HexFormat.of().parseHex(v.get(0).asText());
      int initval = (int) v.get(1).asLong();
      assertEquals(
          v.get(2).asLong(),
          ChecksumCodec.lookup3(ByteBuffer.wrap(data), initval) & 0xffffffffL,
          data.length + " bytes, initval " + initval);
    }
  }

  private BytesToBytesCodec codec(String name, String config) {
    try {
      return (BytesToBytesCodec)
          CodecRegistry.defaults()
              .create(
                  new CodecSpec(name, Json.readTree(config)),
                  new ChunkSpec(new int[] {4}, DataType.UINT8, FillValue.zero(DataType.UINT8)));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private ArrowBuf buf(byte[] bytes) {
    ArrowBuf buf = allocator.buffer(Math.max(1, bytes.length));
    buf.setBytes(0, bytes);
    buf.writerIndex(bytes.length);
    return buf;
  }

  /** data with a JDK checksum of it before or after, little endian. */
  static byte[] framed(byte[] data, Checksum checksum, boolean atStart) {
    checksum.update(data);
    ByteBuffer out = ByteBuffer.allocate(data.length + 4).order(ByteOrder.LITTLE_ENDIAN);
    if (atStart) {
      out.putInt((int) checksum.getValue()).put(data);
    } else {
      out.put(data).putInt((int) checksum.getValue());
    }
    return out.array();
  }

  static Checksum jdk(String name) {
    return switch (name) {
      case "numcodecs.crc32" -> new CRC32();
      case "numcodecs.adler32" -> new Adler32();
      default -> new CRC32C();
    };
  }

  @ParameterizedTest
  @CsvSource({
    "numcodecs.crc32, {}, true", "numcodecs.crc32, '{\"location\":\"end\"}', false",
    "numcodecs.adler32, {}, true", "numcodecs.adler32, '{\"location\":\"end\"}', false",
    "numcodecs.crc32c, {}, false", "numcodecs.crc32c, '{\"location\":\"start\"}', true"
  })
  void zipChecksumsAtEitherEnd(String name, String config, boolean atStart) {
    byte[] data = "checksummed chunk bytes".getBytes(StandardCharsets.UTF_8);
    BytesToBytesCodec codec = codec(name, config);
    assertEquals(data.length + 4, codec.encodedSize(data.length));
    byte[] good = framed(data, jdk(name), atStart);
    try (ArrowBuf in = buf(good)) {
      for (long size : new long[] {data.length, -1}) {
        try (ArrowBuf out = codec.decode(in, size, allocator)) {
          byte[] got = new byte[(int) out.writerIndex()];
          out.getBytes(0, got);
          assertArrayEquals(data, got);
        }
      }
      CodecException e =
          assertThrows(
              CodecException.class, () -> codec.decode(in, data.length + 1, allocator).close());
      assertTrue(e.getMessage().startsWith("codec " + name + ": data has"), e.getMessage());
    }
    for (int flip : new int[] {0, good.length / 2, good.length - 1}) {
      byte[] bad = good.clone();
      bad[flip] ^= 0x10;
      try (ArrowBuf in = buf(bad)) {
        CodecException e =
            assertThrows(CodecException.class, () -> codec.decode(in, -1, allocator).close());
        assertTrue(
            e.getMessage().startsWith("codec " + name + ": checksum mismatch: stored 0x"),
            e.getMessage());
      }
    }
    byte[] moved = framed(data, jdk(name), !atStart);
    try (ArrowBuf in = buf(moved)) {
      assertThrows(CodecException.class, () -> codec.decode(in, -1, allocator).close());
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "numcodecs.crc32",
        "numcodecs.adler32",
        "numcodecs.crc32c",
        "numcodecs.fletcher32",
        "numcodecs.jenkins_lookup3"
      })
  void inputsTooShortForAChecksum(String name) {
    BytesToBytesCodec codec = codec(name, "{}");
    for (int n = 0; n < 4; n++) {
      try (ArrowBuf in = buf(new byte[n])) {
        CodecException e =
            assertThrows(CodecException.class, () -> codec.decode(in, -1, allocator).close());
        assertEquals(
            "codec " + name + ": " + n + " bytes is too short to hold a checksum", e.getMessage());
      }
    }
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "numcodecs.crc32|{\"location\":\"middle\"}|location must be \"start\" or \"end\"",
        "numcodecs.adler32|{\"level\":1}|unknown configuration field 'level'",
        "numcodecs.fletcher32|{\"location\":\"start\"}|unknown configuration field 'location'",
        "numcodecs.jenkins_lookup3|{\"initval\":-1}|initval must be an integer 0..4294967295",
        "numcodecs.jenkins_lookup3|{\"initval\":\"x\"}|initval must be an integer",
        "numcodecs.jenkins_lookup3|{\"prefix\":\"abc\"}|prefix must be null or a list of byte values",
        "numcodecs.jenkins_lookup3|{\"prefix\":[1,256]}|prefix[1] must be a byte value 0..255",
        "numcodecs.base64|{\"altchars\":1}|unknown configuration field 'altchars'"
      })
  void badConfigurationsNameTheCodecAndField(String name, String config, String message) {
    CodecException e = assertThrows(CodecException.class, () -> codec(name, config));
    assertTrue(e.getMessage().startsWith("codec " + name + ": "), e.getMessage());
    assertTrue(e.getMessage().contains(message), e.getMessage());
  }

  @Test
  void jenkinsHashesItsPrefixBeforeTheData() {
    byte[] data = {1, 2, 3, 4, 5};
    BytesToBytesCodec codec =
        codec("numcodecs.jenkins_lookup3", "{\"initval\":9,\"prefix\":[122,97]}");
    int expected = ChecksumCodec.lookup3(ByteBuffer.wrap(new byte[] {122, 97, 1, 2, 3, 4, 5}), 9);
    byte[] framed =
        ByteBuffer.allocate(9).order(ByteOrder.LITTLE_ENDIAN).put(data).putInt(expected).array();
    try (ArrowBuf in = buf(framed);
        ArrowBuf out = codec.decode(in, 5, allocator)) {
      assertEquals(5, out.writerIndex());
      assertEquals(5, out.getByte(4));
    }
  }

  @Test
  void base64DecodesPythonsStandardAlphabet() {
    BytesToBytesCodec codec = codec("numcodecs.base64", "{}");
    byte[] data = {(byte) 0xfb, (byte) 0xff, 0, 1, 2};
    // base64.standard_b64encode(bytes([0xfb, 0xff, 0, 1, 2])) == b'+/8AAQI='
    try (ArrowBuf in = buf("+/8AAQI=".getBytes(StandardCharsets.UTF_8));
        ArrowBuf out = codec.decode(in, 5, allocator)) {
      byte[] got = new byte[5];
      out.getBytes(0, got);
      assertArrayEquals(data, got);
    }
    for (String bad : new String[] {"-_8AAQI=", "+/8AAQ", "+/8A AQI="}) {
      try (ArrowBuf in = buf(bad.getBytes(StandardCharsets.UTF_8))) {
        CodecException e =
            assertThrows(CodecException.class, () -> codec.decode(in, -1, allocator).close());
        assertTrue(
            e.getMessage().startsWith("codec numcodecs.base64: not base64 text"), e.getMessage());
      }
    }
    try (ArrowBuf in = buf("+/8AAQI=".getBytes(StandardCharsets.UTF_8))) {
      CodecException e =
          assertThrows(CodecException.class, () -> codec.decode(in, 4, allocator).close());
      assertEquals("codec numcodecs.base64: decoded 5 bytes, expected 4", e.getMessage());
    }
  }
}
