package dev.zaro.arrow.codec.blosc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecChain;
import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.Test;

/**
 * The v3 codec configuration, the Zarr v2 (numcodecs) compressor configuration, and the registry.
 */
class BloscConfigTest extends AllocatorTest {

  private static JsonNode json(String text) throws Exception {
    return Json.readTree(text);
  }

  private static ChunkSpec spec(DataType type, int... shape) {
    return new ChunkSpec(shape, type, FillValue.zero(type));
  }

  private static BloscCodec v3(String config, DataType type) throws Exception {
    return (BloscCodec)
        CodecRegistry.defaults().create(new CodecSpec("blosc", json(config)), spec(type, 10));
  }

  @Test
  void v3Configuration() throws Exception {
    assertEquals(
        new BloscCodec("zstd", 3, BloscCodec.Shuffle.BITSHUFFLE, 4, 65536),
        v3(
            "{\"cname\":\"zstd\",\"clevel\":3,\"shuffle\":\"bitshuffle\",\"typesize\":4,\"blocksize\":65536}",
            DataType.FLOAT32));
    assertEquals(
        new BloscCodec("lz4", 5, BloscCodec.Shuffle.SHUFFLE, 8, 0), v3("{}", DataType.FLOAT64));
    assertEquals(
        new BloscCodec("lz4", 5, BloscCodec.Shuffle.BITSHUFFLE, 1, 0), v3("{}", DataType.UINT8));
    assertEquals(
        new BloscCodec("blosclz", 0, BloscCodec.Shuffle.NOSHUFFLE, 2, 0),
        v3("{\"cname\":\"blosclz\",\"clevel\":0,\"shuffle\":\"noshuffle\"}", DataType.INT16));
    assertEquals("blosc", v3("{}", DataType.INT8).name());
    assertEquals("bitshuffle", BloscCodec.Shuffle.BITSHUFFLE.configName());
  }

  @Test
  void badV3Configuration() {
    for (String[] c :
        new String[][] {
          {"{\"cname\":\"brotli\"}", "unknown cname \"brotli\""},
          {"{\"clevel\":10}", "clevel must be 0..9, not 10"},
          {"{\"clevel\":\"high\"}", "'clevel' must be an integer"},
          {"{\"shuffle\":1}", "'shuffle' must be a string"},
          {
            "{\"shuffle\":\"byteshuffle\"}",
            "shuffle must be \"noshuffle\", \"shuffle\" or \"bitshuffle\""
          },
          {"{\"typesize\":0}", "typesize must be positive"},
          {"{\"blocksize\":-1}", "blocksize must be 0 (automatic) or positive"},
          {"{\"level\":1}", "unknown configuration field 'level'"}
        }) {
      CodecException e = assertThrows(CodecException.class, () -> v3(c[0], DataType.UINT16), c[0]);
      assertTrue(
          e.getMessage().startsWith("codec blosc: ") && e.getMessage().contains(c[1]),
          e.getMessage());
    }
  }

  @Test
  void numcodecsConfiguration() throws Exception {
    assertEquals(
        new BloscCodec("lz4", 5, BloscCodec.Shuffle.SHUFFLE, 2, 0),
        BloscCodec.fromNumcodecs(
            json("{\"id\":\"blosc\",\"cname\":\"lz4\",\"clevel\":5,\"shuffle\":1,\"blocksize\":0}"),
            2));
    assertEquals(
        new BloscCodec("zstd", 9, BloscCodec.Shuffle.BITSHUFFLE, 8, 4096),
        BloscCodec.fromNumcodecs(
            json(
                "{\"id\":\"blosc\",\"cname\":\"zstd\",\"clevel\":9,\"shuffle\":2,\"blocksize\":4096}"),
            8));
    assertEquals(
        new BloscCodec("zlib", 1, BloscCodec.Shuffle.NOSHUFFLE, 4, 0),
        BloscCodec.fromNumcodecs(
            json("{\"id\":\"blosc\",\"cname\":\"zlib\",\"clevel\":1,\"shuffle\":0}"), 4));
    // AUTOSHUFFLE: bit-shuffle for 1-byte items, else byte-shuffle
    assertEquals(
        BloscCodec.Shuffle.BITSHUFFLE,
        BloscCodec.fromNumcodecs(json("{\"id\":\"blosc\",\"shuffle\":-1}"), 1).shuffle());
    assertEquals(
        BloscCodec.Shuffle.SHUFFLE,
        BloscCodec.fromNumcodecs(json("{\"id\":\"blosc\",\"shuffle\":-1}"), 4).shuffle());
    // numcodecs' defaults
    assertEquals(
        new BloscCodec("lz4", 5, BloscCodec.Shuffle.SHUFFLE, 4, 0),
        BloscCodec.fromNumcodecs(json("{\"id\":\"blosc\"}"), 4));
    assertEquals(
        3, BloscCodec.fromNumcodecs(json("{\"id\":\"blosc\",\"typesize\":3}"), 4).typesize());
  }

  @Test
  void badNumcodecsConfiguration() {
    for (String[] c :
        new String[][] {
          {"{\"id\":\"zstd\"}", "compressor id is \"zstd\", not \"blosc\""},
          {"{\"id\":\"blosc\",\"shuffle\":3}", "shuffle must be 0, 1, 2 or -1, not 3"},
          {"{\"id\":\"blosc\",\"cname\":\"lzma\"}", "unknown cname \"lzma\""},
          {"{\"id\":\"blosc\",\"clevel\":\"5\"}", "'clevel' must be an integer"},
          {"{\"id\":\"blosc\",\"cname\":5}", "'cname' must be a string"},
          {"{\"id\":\"blosc\",\"level\":5}", "unknown compressor field 'level'"},
          {"[1]", "compressor must be an object"}
        }) {
      CodecException e =
          assertThrows(CodecException.class, () -> BloscCodec.fromNumcodecs(json(c[0]), 2), c[0]);
      assertTrue(
          e.getMessage().startsWith("codec blosc: ") && e.getMessage().contains(c[1]),
          e.getMessage());
    }
  }

  /** Decoding follows the frame, whatever the configuration says. */
  @Test
  void decodingIgnoresTheConfiguration() {
    String name = "zstd-bitshuffle-ts8-blocks";
    byte[] frame = BloscFixtures.frame(name);
    byte[] raw = BloscFixtures.raw(name);
    for (BloscCodec codec :
        List.of(
            new BloscCodec("lz4", 1, BloscCodec.Shuffle.NOSHUFFLE, 1, 0),
            new BloscCodec("snappy", 9, BloscCodec.Shuffle.SHUFFLE, 3, 128))) {
      try (ArrowBuf in = allocator.buffer(frame.length)) {
        in.setBytes(0, frame);
        in.writerIndex(frame.length);
        try (ArrowBuf out = codec.decode(in, raw.length, allocator)) {
          byte[] got = new byte[raw.length];
          out.getBytes(0, got);
          assertArrayEquals(raw, got);
        }
      }
    }
  }

  /** A v3 chain bytes + blosc reads a c-blosc frame straight into its slot of an output buffer. */
  @Test
  void chainDecodesIntoPlace() throws Exception {
    byte[] frame = BloscFixtures.frame("lz4-shuffle-ts4-even8");
    byte[] exact = BloscFixtures.raw("lz4-shuffle-ts4-even8");
    int elements = exact.length / 4;
    ChunkSpec chunk = spec(DataType.INT32, elements);
    CodecChain chain =
        CodecChain.resolve(
            List.of(
                new CodecSpec("bytes", json("{\"endian\":\"little\"}")),
                new CodecSpec(
                    "blosc",
                    json(
                        "{\"cname\":\"lz4\",\"clevel\":5,\"shuffle\":\"shuffle\",\"typesize\":4}"))),
            chunk,
            CodecRegistry.defaults());
    try (ArrowBuf in = allocator.buffer(frame.length);
        ArrowBuf target = allocator.buffer(exact.length + 8)) {
      in.setBytes(0, frame);
      in.writerIndex(frame.length);
      chain.decodeInto(in, SlabView.whole(target, 8, 4, new int[] {elements}), allocator);
      byte[] got = new byte[exact.length];
      target.getBytes(8, got);
      assertArrayEquals(exact, got);
    }
  }
}
