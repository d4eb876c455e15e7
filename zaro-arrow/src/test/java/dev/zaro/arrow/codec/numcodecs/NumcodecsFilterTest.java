package dev.zaro.arrow.codec.numcodecs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.codec.ArrayToArrayCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.Codec;
import dev.zaro.arrow.codec.CodecCapability;
import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import dev.zaro.arrow.metadata.internal.NumpyDtype;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The numcodecs filters' configurations and their checks on corrupt input. Their decoded values are
 * checked against zarr-python on the testdata/v2 fixtures (V2FixtureReadTest); the values here
 * follow numcodecs' documented examples.
 */
class NumcodecsFilterTest extends AllocatorTest {

  static ChunkSpec spec(DataType type, int... shape) {
    return new ChunkSpec(shape, type, FillValue.zero(type));
  }

  static Codec create(String name, String config, ChunkSpec input) throws Exception {
    return CodecRegistry.defaults().create(new CodecSpec(name, Json.readTree(config)), input);
  }

  ArrowBuf buf(ByteBuffer b) {
    byte[] bytes = new byte[b.position()];
    b.flip().get(bytes);
    ArrowBuf buf = allocator.buffer(Math.max(1, bytes.length));
    buf.setBytes(0, bytes);
    buf.writerIndex(bytes.length);
    return buf;
  }

  static ByteBuffer le(int size) {
    return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
  }

  @Test
  void deltaOfTheNumcodecsExample() throws Exception {
    // numcodecs.Delta(dtype='i2', astype='i1') encodes 100, 102, ..., 118 as 100, 2, 2, ...
    ChunkSpec decoded = spec(DataType.INT16, 10);
    ArrayToArrayCodec delta =
        (ArrayToArrayCodec)
            create("numcodecs.delta", "{\"dtype\":\"<i2\",\"astype\":\"<i1\"}", decoded);
    assertEquals(DataType.INT8, delta.encodedSpec(decoded).dataType());
    ByteBuffer enc = le(10).put((byte) 100);
    for (int i = 1; i < 10; i++) {
      enc.put((byte) 2);
    }
    try (ArrowBuf in = buf(enc);
        ArrowBuf out = delta.decode(in, decoded, allocator)) {
      assertEquals(20, out.writerIndex());
      for (int i = 0; i < 10; i++) {
        assertEquals(100 + 2 * i, out.getShort(2L * i));
      }
    }
  }

  @Test
  void deltaOfUint8Wraps() throws Exception {
    ChunkSpec decoded = spec(DataType.UINT8, 3);
    ArrayToArrayCodec delta =
        (ArrayToArrayCodec) create("numcodecs.delta", "{\"dtype\":\"|u1\"}", decoded);
    try (ArrowBuf in = buf(le(3).put((byte) 250).put((byte) 10).put((byte) 250));
        ArrowBuf out = delta.decode(in, decoded, allocator)) {
      assertEquals(250, out.getByte(0) & 0xff);
      assertEquals(4, out.getByte(1) & 0xff);
      assertEquals(254, out.getByte(2) & 0xff);
    }
  }

  @Test
  void fixedScaleOffsetOfTheNumcodecsExample() throws Exception {
    // FixedScaleOffset(offset=1000, scale=10, dtype='f8', astype='u1'): 1000.0 .. 1001.0 -> 0 .. 10
    ChunkSpec decoded = spec(DataType.FLOAT64, 11);
    ArrayToArrayCodec fso =
        (ArrayToArrayCodec)
            create(
                "numcodecs.fixedscaleoffset",
                "{\"offset\":1000,\"scale\":10,\"dtype\":\"<f8\",\"astype\":\"|u1\"}",
                decoded);
    ByteBuffer enc = le(11);
    for (int i = 0; i <= 10; i++) {
      enc.put((byte) i);
    }
    try (ArrowBuf in = buf(enc);
        ArrowBuf out = fso.decode(in, decoded, allocator)) {
      for (int i = 0; i <= 10; i++) {
        assertEquals(i / 10.0 + 1000, out.getDouble(8L * i));
      }
    }
  }

  @Test
  void packBitsUnpacksMostSignificantBitFirst() throws Exception {
    ChunkSpec decoded = spec(DataType.BOOL, 2, 5);
    ArrayToArrayCodec packbits = (ArrayToArrayCodec) create("numcodecs.packbits", "{}", decoded);
    assertEquals(spec(DataType.UINT8, 3), packbits.encodedSpec(decoded));
    try (ArrowBuf in = buf(le(3).put((byte) 6).put((byte) 0b10110001).put((byte) 0b01000000));
        ArrowBuf out = packbits.decode(in, decoded, allocator)) {
      byte[] got = new byte[10];
      out.getBytes(0, got);
      assertArrayEquals(new byte[] {1, 0, 1, 1, 0, 0, 0, 1, 0, 1}, got);
    }
    try (ArrowBuf in = buf(le(3).put((byte) 5).put((byte) 0).put((byte) 0))) {
      CodecException e =
          assertThrows(CodecException.class, () -> packbits.decode(in, decoded, allocator).close());
      assertEquals(
          "codec numcodecs.packbits: header says 5 padding bits, expected 6 for 10 elements",
          e.getMessage());
    }
    try (ArrowBuf in = buf(le(2).put((byte) 6).put((byte) 0))) {
      CodecException e =
          assertThrows(CodecException.class, () -> packbits.decode(in, decoded, allocator).close());
      assertEquals(
          "codec numcodecs.packbits: encoded chunk has 2 bytes, expected 3 for 10 elements",
          e.getMessage());
    }
  }

  /**
   * numcodecs' Categorize example: codes 0 (not a label) and 1..n; a code past the labels is
   * corrupt data.
   */
  @Test
  void categorizeDecodesCodesToLabels() throws Exception {
    ChunkSpec decoded = spec(NumpyDtype.parse("<U6").dataType(), 4);
    ArrayToArrayCodec categorize =
        (ArrayToArrayCodec)
            create(
                "numcodecs.categorize",
                "{\"labels\":[\"female\",\"m\u00e4le\"],\"dtype\":\"<U6\",\"astype\":\"<u2\"}",
                decoded);
    assertEquals(spec(DataType.UINT16, 4), categorize.encodedSpec(decoded));
    try (ArrowBuf in =
            buf(
                le(8)
                    .putShort((short) 1)
                    .putShort((short) 2)
                    .putShort((short) 0)
                    .putShort((short) 1));
        ArrowBuf out = categorize.decode(in, decoded, allocator)) {
      String[] got = new String[4];
      for (int i = 0; i < 4; i++) {
        StringBuilder sb = new StringBuilder();
        for (int c = 0; c < 6 && out.getInt(i * 24L + c * 4L) != 0; c++) {
          sb.appendCodePoint(out.getInt(i * 24L + c * 4L));
        }
        got[i] = sb.toString();
      }
      assertArrayEquals(new String[] {"female", "m\u00e4le", "", "female"}, got);
    }
    try (ArrowBuf in =
        buf(
            le(8)
                .putShort((short) 1)
                .putShort((short) 3)
                .putShort((short) 0)
                .putShort((short) 1))) {
      CodecException e =
          assertThrows(
              CodecException.class, () -> categorize.decode(in, decoded, allocator).close());
      assertEquals(
          "codec numcodecs.categorize: element 1 has code 3 but there are only 2 labels",
          e.getMessage());
    }
  }

  @Test
  void astypeCastsAsNumpy() throws Exception {
    ChunkSpec decoded = spec(DataType.INT16, 4);
    ArrayToArrayCodec astype =
        (ArrayToArrayCodec)
            create(
                "numcodecs.astype", "{\"encode_dtype\":\"<f8\",\"decode_dtype\":\"<i2\"}", decoded);
    try (ArrowBuf in = buf(le(32).putDouble(1.9).putDouble(-1.9).putDouble(70000).putDouble(-0.5));
        ArrowBuf out = astype.decode(in, decoded, allocator)) {
      assertEquals(1, out.getShort(0), "truncates toward zero");
      assertEquals(-1, out.getShort(2));
      assertEquals((short) 70000, out.getShort(4), "wraps as C casts do on x86");
      assertEquals(0, out.getShort(6));
    }
  }

  @Test
  void identityFiltersAreLayoutOnly() throws Exception {
    ChunkSpec f4 = spec(DataType.FLOAT32, 4);
    assertTrue(
        ((ArrayToArrayCodec) create("numcodecs.bitround", "{\"keepbits\":5}", f4))
            .capabilities()
            .contains(CodecCapability.LAYOUT_ONLY));
    assertTrue(
        ((ArrayToArrayCodec) create("numcodecs.quantize", "{\"digits\":2,\"dtype\":\"<f4\"}", f4))
            .capabilities()
            .contains(CodecCapability.LAYOUT_ONLY));
    assertFalse(
        ((ArrayToArrayCodec)
                create(
                    "numcodecs.quantize",
                    "{\"digits\":2,\"dtype\":\"<f4\",\"astype\":\"<f2\"}",
                    f4))
            .capabilities()
            .contains(CodecCapability.LAYOUT_ONLY));
  }

  @Test
  void numcodecsNamesForV3Codecs() throws Exception {
    ChunkSpec u1 = spec(DataType.UINT8, 4);
    assertEquals("gzip", create("numcodecs.gzip", "{\"level\":1}", u1).name());
    assertEquals("zstd", create("numcodecs.zstd", "{\"level\":1,\"checksum\":false}", u1).name());
    assertEquals(
        "blosc",
        create("numcodecs.blosc", "{\"cname\":\"zstd\",\"clevel\":1,\"shuffle\":-1}", u1).name());
    assertInstanceOf(
        ShuffleCodec.class, create("numcodecs.shuffle", "{}", spec(DataType.FLOAT64, 2)));
    assertEquals(
        8,
        ((ShuffleCodec) create("numcodecs.shuffle", "{}", spec(DataType.FLOAT64, 2))).elementSize(),
        "the element size when absent");
  }

  @Test
  void aChunkOfTheWrongSizeIsAnError() throws Exception {
    ChunkSpec decoded = spec(DataType.INT32, 4);
    ArrayToArrayCodec delta =
        (ArrayToArrayCodec) create("numcodecs.delta", "{\"dtype\":\"<i4\"}", decoded);
    try (ArrowBuf in = buf(le(12).putInt(1).putInt(2).putInt(3))) {
      CodecException e =
          assertThrows(CodecException.class, () -> delta.decode(in, decoded, allocator).close());
      assertEquals(
          "codec numcodecs.delta: encoded array has 12 bytes, expected 16 (4 int32 elements)",
          e.getMessage());
    }
  }

  @ParameterizedTest
  @CsvSource(
      delimiterString = " ~ ",
      value = {
        "numcodecs.delta ~ {\"dtype\":\"<i2\"} ~ <i4 ~ codec numcodecs.delta: dtype int16 differs from the int32"
            + " elements it decodes to",
        "numcodecs.delta ~ {\"dtype\":\"<i4\",\"astype\":\"<f4\"} ~ <i4 ~ codec numcodecs.delta: cannot accumulate"
            + " float32 differences into int32 elements",
        "numcodecs.delta ~ {\"dtype\":\"<c8\"} ~ <c8 ~ codec numcodecs.delta: does not support complex64 elements",
        "numcodecs.delta ~ {\"dtype\":\"<i4\",\"scale\":1} ~ <i4 ~ codec numcodecs.delta: unknown configuration field"
            + " 'scale' (known: dtype, astype)",
        "numcodecs.delta ~ {\"astype\":\"<U4\"} ~ <i4 ~ codec numcodecs.delta: does not support fixed_length_utf32 elements",
        "numcodecs.fixedscaleoffset ~ {\"offset\":0,\"dtype\":\"<f8\"} ~ <f8 ~ codec numcodecs.fixedscaleoffset:"
            + " configuration field 'scale' is missing",
        "numcodecs.fixedscaleoffset ~ {\"offset\":\"0\",\"scale\":1} ~ <f8 ~ codec numcodecs.fixedscaleoffset:"
            + " configuration field 'offset' must be a number, not string \"0\"",
        "numcodecs.quantize ~ {\"digits\":2,\"dtype\":\"<i4\"} ~ <i4 ~ codec numcodecs.quantize: only floating point"
            + " data types are supported, not int32 as int32",
        "numcodecs.quantize ~ {\"dtype\":\"<f4\"} ~ <f4 ~ codec numcodecs.quantize: configuration field 'digits' must"
            + " be an integer, not missing",
        "numcodecs.bitround ~ {\"keepbits\":3} ~ <i4 ~ codec numcodecs.bitround: only float arrays can be bit-rounded,"
            + " not int32",
        "numcodecs.bitround ~ {\"keepbits\":24} ~ <f4 ~ codec numcodecs.bitround: keepbits must be 0..23 for float32,"
            + " not 24",
        "numcodecs.astype ~ {\"decode_dtype\":\"<f8\"} ~ <f8 ~ codec numcodecs.astype: configuration field"
            + " 'encode_dtype' is missing",
        "numcodecs.packbits ~ {} ~ <i2 ~ codec numcodecs.packbits: packs one-byte booleans, not int16 elements",
        "numcodecs.categorize ~ {\"labels\":[\"a\"]} ~ <f4 ~ codec numcodecs.categorize: decodes to text (numpy 'U'"
            + " or object arrays), not float32 elements",
        "numcodecs.categorize ~ {\"labels\":[\"abcde\"],\"dtype\":\"<U4\"} ~ <U4 ~ codec numcodecs.categorize:"
            + " label 'abcde' is longer than the 4 characters of fixed_length_utf32 elements",
        "numcodecs.categorize ~ {\"labels\":[1]} ~ <U4 ~ codec numcodecs.categorize: label 0 must be a string, not number 1",
        "numcodecs.categorize ~ {\"labels\":\"a\"} ~ <U4 ~ codec numcodecs.categorize: configuration field 'labels'"
            + " must be a list of strings, not string \"a\"",
        "numcodecs.categorize ~ {\"labels\":[\"a\"],\"astype\":\"<f4\"} ~ <U4 ~ codec numcodecs.categorize: astype"
            + " must be an integer type, not float32",
        "numcodecs.categorize ~ {\"labels\":[\"a\"],\"dtype\":\"<U6\"} ~ <U4 ~ codec numcodecs.categorize: dtype"
            + " string \"<U6\" differs from the array's fixed_length_utf32 elements",
        "numcodecs.shuffle ~ {\"elementsize\":-1} ~ <i2 ~ codec numcodecs.shuffle: elementsize must not be negative,"
            + " not -1",
        "numcodecs.zlib ~ {\"level\":12} ~ <i2 ~ codec numcodecs.zlib: level must be -1..9, not 12",
        "numcodecs.bz2 ~ {\"level\":0} ~ <i2 ~ codec numcodecs.bz2: level must be 1..9, not 0",
        "numcodecs.lz4 ~ {\"acceleration\":\"fast\"} ~ <i2 ~ codec numcodecs.lz4: configuration field 'acceleration'"
            + " must be an integer, not string \"fast\""
      })
  void badConfigurations(String name, String config, String dtype, String message) {
    ChunkSpec input = spec(NumpyDtype.parse(dtype).dataType(), 4);
    CodecException e = assertThrows(CodecException.class, () -> create(name, config, input));
    assertEquals(message, e.getMessage());
  }
}
