package dev.zaro.arrow.read;

import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.error.MetadataException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.store.MemoryStore;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.zip.Adler32;
import java.util.zip.CRC32;
import java.util.zip.Checksum;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Broken chunks and configurations for the numcodecs checksums and the zarr-extensions codecs
 * (packbits, scale_offset, cast_value, reshape, bitround), zfp, and codecs zaro does not read: each
 * is a typed error naming the array, chunk key and codec (or configuration field), never a wrong
 * answer; the allocator is checked for leaks after each test.
 */
class CodecBadInputTest extends AllocatorTest {

  static final String BYTES = BadInputReadTest.BYTES;

  static String meta(String type, Object fill, String codecs) {
    return BadInputReadTest.meta(codecs)
        .replace("\"int32\"", "\"" + type + "\"")
        .replace("\"fill_value\":7", "\"fill_value\":" + fill);
  }

  static String zarray(String filters, String compressor) {
    return "{\"zarr_format\":2,\"shape\":[4,4],\"chunks\":[2,2],\"dtype\":\"<i4\",\"fill_value\":7,\"order\":\"C\","
        + "\"filters\":"
        + filters
        + ",\"compressor\":"
        + compressor
        + "}";
  }

  static byte[] le(int... values) {
    return BadInputReadTest.chunk(values);
  }

  static byte[] withStart(byte[] data, Checksum checksum) {
    checksum.update(data);
    return ByteBuffer.allocate(data.length + 4)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putInt((int) checksum.getValue())
        .put(data)
        .array();
  }

  private <T extends ZaroException> T readFails(Class<T> type, MemoryStore store, String path) {
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults().withThreads(2))) {
      return assertThrows(type, () -> zaro.read(path, "", allocator).close());
    }
  }

  private static void assertNames(ZaroException e, String... parts) {
    BadInputReadTest.assertNames(e, parts);
  }

  @ParameterizedTest
  @ValueSource(strings = {"crc32", "adler32"})
  void v3NumcodecsChecksumMismatchNamesCodecAndChunk(String id) {
    Checksum checksum = id.equals("crc32") ? new CRC32() : new Adler32();
    byte[] good = withStart(le(1, 2, 3, 4), checksum);
    byte[] bad = good.clone();
    bad[6] ^= 4;
    MemoryStore store =
        new MemoryStore()
            .put(
                "a/zarr.json",
                meta("int32", 7, "[" + BYTES + ",{\"name\":\"numcodecs." + id + "\"}]"))
            .put("a/c/0/0", good)
            .put("a/c/1/1", bad);
    assertNames(
        readFails(CodecException.class, store, "a"),
        "array '/a'",
        "chunk [1, 1]",
        "key 'a/c/1/1'",
        "codec numcodecs." + id,
        "checksum mismatch");
  }

  @ParameterizedTest
  @ValueSource(strings = {"fletcher32", "jenkins_lookup3", "crc32c"})
  void endChecksumMismatches(String id) {
    byte[] bad = Arrays.copyOf(le(1, 2, 3, 4), 20);
    MemoryStore store =
        new MemoryStore()
            .put(
                "a/zarr.json",
                meta("int32", 7, "[" + BYTES + ",{\"name\":\"numcodecs." + id + "\"}]"))
            .put("a/c/0/1", bad);
    assertNames(
        readFails(CodecException.class, store, "a"),
        "chunk [0, 1]",
        "key 'a/c/0/1'",
        "codec numcodecs." + id,
        "checksum mismatch");
  }

  @Test
  void v2ChecksumFilterAndCompressorMismatches() {
    byte[] good = withStart(le(1, 2, 3, 4), new CRC32());
    byte[] bad = good.clone();
    bad[0] ^= 1;
    MemoryStore filter =
        new MemoryStore()
            .put("a/.zarray", zarray("[{\"id\":\"crc32\"}]", "null"))
            .put("a/0.0", good)
            .put("a/1.0", bad);
    assertNames(
        readFails(CodecException.class, filter, "a"),
        "chunk [1, 0]",
        "key 'a/1.0'",
        "codec numcodecs.crc32",
        "checksum mismatch");
    MemoryStore compressor =
        new MemoryStore()
            .put("a/.zarray", zarray("null", "{\"id\":\"adler32\"}"))
            .put("a/0.1", Arrays.copyOf(good, 10));
    assertNames(
        readFails(CodecException.class, compressor, "a"),
        "chunk [0, 1]",
        "key 'a/0.1'",
        "codec numcodecs.adler32",
        "chunk has 10 bytes, expected 20");
  }

  @Test
  void truncatedChunks() {
    MemoryStore crc =
        new MemoryStore()
            .put("a/zarr.json", meta("int32", 7, "[" + BYTES + ",{\"name\":\"numcodecs.crc32\"}]"))
            .put("a/c/0/0", new byte[] {1, 2, 3});
    assertNames(
        readFails(CodecException.class, crc, "a"),
        "key 'a/c/0/0'",
        "codec numcodecs.crc32",
        "chunk has 3 bytes, expected 20");
    MemoryStore packbits =
        new MemoryStore()
            .put(
                "a/zarr.json",
                meta("int32", 7, "[{\"name\":\"packbits\",\"configuration\":{\"last_bit\":11}}]"))
            .put("a/c/1/0", new byte[5]);
    assertNames(
        readFails(CodecException.class, packbits, "a"),
        "key 'a/c/1/0'",
        "codec packbits",
        "chunk has 5 bytes, expected 6");
    MemoryStore base64 =
        new MemoryStore()
            .put("a/.zarray", zarray("null", "{\"id\":\"base64\"}"))
            .put("a/0.0", "AQAAAAIAAAADAAAABAAAA".getBytes(StandardCharsets.UTF_8));
    assertNames(
        readFails(CodecException.class, base64, "a"),
        "key 'a/0.0'",
        "codec numcodecs.base64",
        "not base64 text");
    MemoryStore cast =
        new MemoryStore()
            .put(
                "a/zarr.json",
                meta(
                    "int32",
                    7,
                    "[{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"int16\"}},"
                        + BYTES
                        + "]"))
            .put("a/c/1/1", new byte[6]);
    assertNames(
        readFails(CodecException.class, cast, "a"),
        "key 'a/c/1/1'",
        "codec bytes",
        "6 bytes, expected 8");
  }

  @Test
  void packbitsPaddingByteIsChecked() {
    // 4 int32 elements of 12 bits = 48 bits: 6 bytes and no padding, but the byte says 3
    byte[] chunk = {3, 0, 0, 0, 0, 0, 0};
    MemoryStore store =
        new MemoryStore()
            .put(
                "a/zarr.json",
                meta(
                    "int32",
                    7,
                    "[{\"name\":\"packbits\",\"configuration\":{\"last_bit\":11,\"padding_encoding\":\"first_byte\"}}]"))
            .put("a/c/0/0", chunk);
    assertNames(
        readFails(CodecException.class, store, "a"),
        "key 'a/c/0/0'",
        "codec packbits",
        "padding byte says 3 bits, expected 0");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        // stored int32 5 is not a multiple of the scale 2
        "int32|0|{\"name\":\"scale_offset\",\"configuration\":{\"scale\":2}}|5|codec scale_offset: 5 / 2 is not"
            + " representable as int32",
        // 2147483647 + 1 overflows int32
        "int32|1|{\"name\":\"scale_offset\",\"configuration\":{\"offset\":1}}|2147483647|2147483647 + 1 is not"
            + " representable as int32"
      })
  void scaleOffsetValuesTheTypeCannotHold(
      String type, String fill, String codec, int stored, String message) {
    MemoryStore store =
        new MemoryStore()
            .put("a/zarr.json", meta(type, fill, "[" + codec + "," + BYTES + "]"))
            .put("a/c/0/0", le(2, stored, 4, 6));
    assertNames(readFails(CodecException.class, store, "a"), "key 'a/c/0/0'", message);
  }

  @Test
  void castValueRefusesWhatItCannotCast() {
    String cast = "{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"float32\"}}";
    ByteBuffer nan =
        ByteBuffer.allocate(16)
            .order(ByteOrder.LITTLE_ENDIAN)
            .putFloat(1)
            .putFloat(Float.NaN)
            .putFloat(2)
            .putFloat(3);
    MemoryStore store =
        new MemoryStore()
            .put("a/zarr.json", meta("int32", 7, "[" + cast + "," + BYTES + "]"))
            .put("a/c/0/0", nan.array());
    assertNames(
        readFails(CodecException.class, store, "a"),
        "key 'a/c/0/0'",
        "codec cast_value",
        "value NaN of float32 has no int32 value (map it with scalar_map)");
    ByteBuffer big =
        ByteBuffer.allocate(16)
            .order(ByteOrder.LITTLE_ENDIAN)
            .putFloat(1)
            .putFloat(3e9f)
            .putFloat(2)
            .putFloat(3);
    MemoryStore outOfRange =
        new MemoryStore()
            .put("a/zarr.json", meta("int32", 7, "[" + cast + "," + BYTES + "]"))
            .put("a/c/1/0", big.array());
    assertNames(
        readFails(CodecException.class, outOfRange, "a"),
        "key 'a/c/1/0'",
        "codec cast_value",
        "is out of the range of int32 (configure out_of_range, or map it with scalar_map)");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "int32|7|{\"name\":\"packbits\",\"configuration\":{\"last_bit\":32}}|bits 0..32 are not a range",
        "int32|7|{\"name\":\"packbits\",\"configuration\":{\"first_bit\":5,\"last_bit\":4}}|bits 5..4",
        "int32|7|{\"name\":\"packbits\",\"configuration\":{\"padding_encoding\":\"middle\"}}|padding_encoding must be",
        "int32|7|{\"name\":\"packbits\",\"configuration\":{\"first_bit\":1,\"start_bit\":1}}|both first_bit and start_bit",
        "int32|7|{\"name\":\"packbits\",\"configuration\":{\"bits\":3}}|unknown configuration field 'bits'",
        "int32|7|{\"name\":\"scale_offset\",\"configuration\":{\"scale\":0}},"
            + "BYTES|scale must be a nonzero",
        "int32|7|{\"name\":\"scale_offset\",\"configuration\":{\"scale\":1.5}},BYTES|scale",
        "float32|7|{\"name\":\"scale_offset\",\"configuration\":{\"factor\":1}},BYTES|unknown configuration field",
        "int8|100|{\"name\":\"scale_offset\",\"configuration\":{\"scale\":2}},BYTES|fill value cannot be encoded",
        "int32|7|{\"name\":\"cast_value\"},BYTES|configuration field 'data_type' is missing",
        "int32|7|{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"complex64\"}},BYTES|integer or float type",
        "int32|7|{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"int9\"}},BYTES|unknown data type 'int9'",
        "int32|7|{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"int8\",\"rounding\":\"up\"}},BYTES"
            + "|rounding must be one of",
        "int32|7|{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"float32\",\"out_of_range\":\"wrap\"}},"
            + "BYTES|out_of_range \"wrap\" needs integer types",
        "int32|-1|{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"uint8\"}},BYTES"
            + "|fill value cannot be stored as uint8",
        "int32|7|{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"uint8\",\"scalar_map\":{\"decode\":[[0]]}}},"
            + "BYTES|scalar_map.decode[0] must be an [input, output] pair",
        "int32|7|{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"uint8\",\"scalar_map\":{\"decode\":"
            + "[[\"NaN\",0]]}}},BYTES|scalar_map.decode[0][0]",
        "bool|true|{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"uint8\"}},BYTES|casts integer and float",
        "float32|0.1|{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"bfloat16\"}},BYTES"
            + "|is not exactly a value of bfloat16",
        "float32|\"NaN\"|{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"float4_e2m1fn\"}},"
            + "BYTES|fill value cannot be stored as float4_e2m1fn",
        "int32|7|{\"name\":\"reshape\",\"configuration\":{\"shape\":[-1,-1]}},BYTES|-1 more than once",
        "int32|7|{\"name\":\"reshape\",\"configuration\":{\"shape\":[3]}},BYTES|holds 3 elements",
        "int32|7|{\"name\":\"reshape\",\"configuration\":{\"shape\":[-1,3]}},BYTES|no size for -1",
        "int32|7|{\"name\":\"reshape\",\"configuration\":{\"shape\":[[1],[0]]}},BYTES|must increase",
        "int32|7|{\"name\":\"reshape\",\"configuration\":{\"shape\":[[2]]}},BYTES|is not a dimension",
        "int32|7|{\"name\":\"reshape\",\"configuration\":{\"shape\":[[1],2]}},BYTES|does not line up",
        "int32|7|{\"name\":\"reshape\",\"configuration\":{\"shape\":[0]}},BYTES|must be a positive size",
        "int32|7|{\"name\":\"reshape\"},BYTES|configuration field 'shape' is missing",
        "int32|7|{\"name\":\"bitround\",\"configuration\":{\"keepbits\":33}},BYTES|keepbits must be 0..32",
        "int32|7|{\"name\":\"numcodecs.bitround\",\"configuration\":{\"keepbits\":3}},BYTES|only float arrays",
        "int32|7|BYTES,{\"name\":\"numcodecs.crc32\",\"configuration\":{\"location\":0}}|location' must be a string"
      })
  void badConfigurationsAreRefusedWhenTheArrayOpens(
      String type, String fill, String codecs, String message) {
    MemoryStore store =
        new MemoryStore()
            .put("a/zarr.json", meta(type, fill, "[" + codecs.replace("BYTES", BYTES) + "]"));
    assertNames(readFails(MetadataException.class, store, "a"), "array '/a'", "codec ", message);
  }

  /** Codecs zaro has no decoder for are refused by name when the array opens. */
  @Test
  void unsupportedCodecsAreRefusedByName() {
    MemoryStore v3 =
        new MemoryStore()
            .put(
                "a/zarr.json",
                meta(
                    "float32",
                    0,
                    "["
                        + BYTES
                        + ",{\"name\":\"numcodecs.pcodec\",\"configuration\":{\"level\":8}}]"));
    assertNames(
        readFails(MetadataException.class, v3, "a"),
        "array '/a'",
        "codec 'numcodecs.pcodec' is not supported");
    MemoryStore v2 = new MemoryStore().put("a/.zarray", zarray("null", "{\"id\":\"pickle\"}"));
    assertNames(
        readFails(MetadataException.class, v2, "a"),
        "array '/a'",
        "codec 'numcodecs.pickle' is not supported");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "float32|{\"mode\":\"fixed_rate\",\"rate\":8}|fixed_rate is read for 3-d chunks only",
        "uint16|{\"mode\":\"reversible\"}|not uint16",
        "int32|{\"mode\":\"fixed_accuracy\",\"tolerance\":0.1}|fixed_accuracy needs a float array",
        "float32|{\"mode\":\"lossy\"}|mode must be one of",
        "float32|{\"rate\":8}|configuration field 'mode' is missing",
        "float32|{\"mode\":\"reversible\",\"rate\":8}|unknown configuration field 'rate'",
        "float32|{\"mode\":\"expert\",\"minbits\":9,\"maxbits\":8,\"maxprec\":64,\"minexp\":-1074}"
            + "|expert mode needs"
      })
  void badZfpConfigurations(String type, String config, String message) {
    MemoryStore store =
        new MemoryStore()
            .put(
                "a/zarr.json",
                meta(type, 0, "[{\"name\":\"zfp\",\"configuration\":" + config + "}]"));
    assertNames(readFails(MetadataException.class, store, "a"), "array '/a'", "codec zfp", message);
  }

  @Test
  void brokenZfpStreams() {
    MemoryStore truncated =
        new MemoryStore()
            .put(
                "a/zarr.json",
                meta(
                    "float64",
                    0,
                    "[{\"name\":\"zfp\",\"configuration\":{\"mode\":\"reversible\"}}]"))
            .put("a/c/0/1", new byte[] {(byte) 0xff, 3});
    assertNames(
        readFails(CodecException.class, truncated, "a"),
        "key 'a/c/0/1'",
        "codec zfp: stream is truncated");
    MemoryStore noHeader =
        new MemoryStore()
            .put("a/.zarray", zarray("null", "{\"id\":\"zfpy\",\"mode\":5}"))
            .put("a/1.1", new byte[16]);
    assertNames(
        readFails(CodecException.class, noHeader, "a"),
        "key 'a/1.1'",
        "codec numcodecs.zfpy: no zfp header");
    // a header for a float64 field of 2 x 2 in an int32 array: 'z' 'f' 'p' 5, meta type 4, dims 2,
    // sizes 1 + 1
    long meta = 3 | (1 << 2) | (1L << 4) | (1L << 28);
    byte[] header =
        ByteBuffer.allocate(16)
            .order(ByteOrder.LITTLE_ENDIAN)
            .put((byte) 'z')
            .put((byte) 'f')
            .put((byte) 'p')
            .put((byte) 5)
            .putInt((int) meta)
            .putLong(meta >>> 32)
            .array();
    MemoryStore wrongType =
        new MemoryStore()
            .put("a/.zarray", zarray("null", "{\"id\":\"zfpy\",\"mode\":5}"))
            .put("a/0.0", header);
    assertNames(
        readFails(CodecException.class, wrongType, "a"),
        "key 'a/0.0'",
        "codec numcodecs.zfpy: the stream holds DOUBLE values, the array INT32");
  }

  @ParameterizedTest
  @CsvSource(
      delimiterString = " ~ ",
      quoteCharacter = '`',
      value = {
        "[[\"a\",null],[\"c\",\"d\"],\"|O\",[2,2]] ~ zaro reads object arrays of strings; found null",
        "[[\"a\",1],[\"c\",\"d\"],\"|O\",[2,2]] ~ zaro reads object arrays of strings; found number 1",
        "[[\"a\",\"b\"],\"|O\",[1,2]] ~ chunk shape [1,2] does not hold the 4 elements",
        "[[\"a\",\"b\"],[\"c\"],\"|O\",[2,2]] ~ chunk holds 3 values, expected 4",
        "{\"a\":1} ~ chunk must be a list [values..., dtype, shape]",
        "[[\"a\",\"b\"],[\"c\", ~ chunk is not valid JSON"
      })
  void json2ChunksZaroCannotRead(String chunk, String message) {
    String zarray =
        "{\"zarr_format\":2,\"shape\":[4,4],\"chunks\":[2,2],\"dtype\":\"|O\",\"fill_value\":\"\","
            + "\"order\":\"C\",\"filters\":[{\"id\":\"json2\",\"encoding\":\"utf-8\"}],\"compressor\":null}";
    MemoryStore store =
        new MemoryStore()
            .put("a/.zarray", zarray)
            .put("a/1.0", chunk.getBytes(StandardCharsets.UTF_8));
    assertNames(
        readFails(CodecException.class, store, "a"),
        "key 'a/1.0'",
        "codec numcodecs.json2",
        message);
  }

  @ParameterizedTest
  @CsvSource(
      delimiterString = " ~ ",
      value = {
        // [["a", nil], "|O", [1, 2]]
        "93 92 a1 61 c0 a2 7c 4f 92 01 02 ~ zaro reads object arrays of strings; found null",
        // [{"a": 1}, ...]: a map
        "93 81 a1 61 01 a2 7c 4f 92 01 02 ~ MessagePack type 0x81 (map, extension or unused) at byte 1",
        // a string of 5 bytes with 1 left
        "93 92 a5 61 ~ a string of 5 bytes runs past the end of the data",
        // a whole value, then a stray byte
        "93 92 a1 61 a1 62 a2 7c 4f 92 01 02 00 ~ 1 bytes after the value"
      })
  void msgpack2ChunksZaroCannotRead(String hex, String message) {
    String zarray =
        "{\"zarr_format\":2,\"shape\":[1,4],\"chunks\":[1,2],\"dtype\":\"|O\",\"fill_value\":\"\","
            + "\"order\":\"C\",\"filters\":[{\"id\":\"msgpack2\",\"raw\":false}],\"compressor\":null}";
    MemoryStore store =
        new MemoryStore()
            .put("a/.zarray", zarray)
            .put("a/0.1", HexFormat.of().parseHex(hex.replace(" ", "")));
    assertNames(
        readFails(CodecException.class, store, "a"),
        "key 'a/0.1'",
        "codec numcodecs.msgpack2",
        message);
  }
}
