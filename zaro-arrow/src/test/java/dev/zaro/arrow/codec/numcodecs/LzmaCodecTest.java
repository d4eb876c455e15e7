package dev.zaro.arrow.codec.numcodecs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.codec.AbstractBytesCodecTest;
import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.tukaani.xz.DeltaOptions;
import org.tukaani.xz.FilterOptions;
import org.tukaani.xz.FinishableOutputStream;
import org.tukaani.xz.FinishableWrapperOutputStream;
import org.tukaani.xz.LZMA2Options;
import org.tukaani.xz.LZMAOutputStream;
import org.tukaani.xz.XZ;
import org.tukaani.xz.XZOutputStream;

/**
 * numcodecs lzma: xz streams written by XZ for Java's encoder (integrity check verified), plus the
 * legacy .lzma, auto-detected and raw formats.
 */
class LzmaCodecTest extends AbstractBytesCodecTest {
  @Override
  protected BytesToBytesCodec codec() {
    return new LzmaCodec(LzmaCodec.FORMAT_XZ, List.of());
  }

  @Override
  protected byte[] encode(byte[] data) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (XZOutputStream xz = new XZOutputStream(out, new LZMA2Options(1), XZ.CHECK_CRC64)) {
      xz.write(data);
    }
    return out.toByteArray();
  }

  static byte[] alone(byte[] data) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (LZMAOutputStream lz = new LZMAOutputStream(out, new LZMA2Options(2), -1)) {
      lz.write(data);
    }
    return out.toByteArray();
  }

  static byte[] raw(byte[] data, int deltaDist) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    LZMA2Options lzma2 = new LZMA2Options(1);
    FilterOptions[] chain =
        deltaDist > 0
            ? new FilterOptions[] {new DeltaOptions(deltaDist), lzma2}
            : new FilterOptions[] {lzma2};
    FinishableOutputStream s = new FinishableWrapperOutputStream(out);
    for (int i = chain.length - 1; i >= 0; i--) {
      s = chain[i].getOutputStream(s);
    }
    s.write(data);
    s.finish();
    return out.toByteArray();
  }

  static byte[] sample() {
    byte[] data = new byte[50_000];
    Random random = new Random(9);
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) (i / 100 + random.nextInt(3));
    }
    return data;
  }

  BytesToBytesCodec create(String config) throws Exception {
    ChunkSpec spec = new ChunkSpec(new int[] {1}, DataType.UINT8, FillValue.zero(DataType.UINT8));
    return (BytesToBytesCodec)
        CodecRegistry.defaults()
            .create(new CodecSpec("numcodecs.lzma", Json.readTree(config)), spec);
  }

  private void roundTrip(BytesToBytesCodec codec, byte[] encoded, byte[] data) {
    try (ArrowBuf in = buf(encoded);
        ArrowBuf out = codec.decode(in, data.length, allocator)) {
      assertArrayEquals(data, bytes(out));
    }
    try (ArrowBuf in = buf(encoded);
        ArrowBuf out = codec.decode(in, -1, allocator)) {
      assertArrayEquals(data, bytes(out));
    }
  }

  @Test
  void legacyAloneFormatAndAutoDetection() throws Exception {
    byte[] data = sample();
    roundTrip(create("{\"format\": 2}"), alone(data), data);
    roundTrip(create("{\"format\": 0}"), alone(data), data);
    roundTrip(create("{\"format\": 0}"), encode(data), data);
    roundTrip(create("{}"), encode(data), data);
  }

  @Test
  void rawLzma2WithAndWithoutDelta() throws Exception {
    byte[] data = sample();
    roundTrip(
        create("{\"format\": 3, \"filters\": [{\"id\": 33, \"preset\": 1}]}"), raw(data, 0), data);
    roundTrip(
        create(
            "{\"format\": 3, \"filters\": [{\"id\": 3, \"dist\": 4}, {\"id\": 33, \"preset\": 1}]}"),
        raw(data, 4),
        data);
  }

  @Test
  void concatenatedXzStreams() throws Exception {
    byte[] a = encode("first ".getBytes(StandardCharsets.UTF_8));
    byte[] b = encode("second".getBytes(StandardCharsets.UTF_8));
    byte[] both = new byte[a.length + b.length];
    System.arraycopy(a, 0, both, 0, a.length);
    System.arraycopy(b, 0, both, a.length, b.length);
    roundTrip(codec(), both, "first second".getBytes(StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @CsvSource(
      delimiterString = " ~ ",
      value = {
        "{\"format\": 5} ~ codec numcodecs.lzma: format must be 0 (auto), 1 (xz), 2 (alone) or 3 (raw), not 5",
        "{\"format\": 3} ~ codec numcodecs.lzma: format 3 (raw) needs a list of filters",
        "{\"format\": 3, \"filters\": [{\"id\": 4}]} ~ codec numcodecs.lzma: filter 0: id 4 is not supported"
            + " (LZMA1 4611686018427387905, LZMA2 33 and delta 3 are)",
        "{\"format\": 3, \"filters\": [{\"id\": 33}, {\"id\": 3}]} ~ codec numcodecs.lzma: the last raw filter must be"
            + " LZMA1 or LZMA2",
        "{\"format\": 1, \"filters\": [{\"id\": 33}]} ~ codec numcodecs.lzma: filters are only read with format 3"
            + " (raw), found array [{\"id\":33}]",
        "{\"preset\": 1.5} ~ codec numcodecs.lzma: configuration field 'preset' must be an integer, not number 1.5",
        "{\"level\": 1} ~ codec numcodecs.lzma: unknown configuration field 'level' (known: format, check, preset, filters)"
      })
  void badConfigurations(String config, String message) {
    CodecException e = assertThrows(CodecException.class, () -> create(config));
    assertEquals(message, e.getMessage());
  }

  @Test
  void aHugeDictionaryIsRefused() throws Exception {
    byte[] encoded = alone(new byte[10]);
    // the .lzma header's dictionary size (bytes 1-4, little endian): 1 GiB
    encoded[1] = 0;
    encoded[2] = 0;
    encoded[3] = 0;
    encoded[4] = 0x40;
    try (ArrowBuf in = buf(encoded)) {
      CodecException e =
          assertThrows(
              CodecException.class,
              () -> create("{\"format\": 2}").decode(in, 10, allocator).close());
      assertTrue(
          e.getMessage().startsWith("codec numcodecs.lzma: corrupt or truncated stream"),
          e.getMessage());
    }
  }
}
