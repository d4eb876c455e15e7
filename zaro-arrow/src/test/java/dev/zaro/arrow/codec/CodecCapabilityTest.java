package dev.zaro.arrow.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every registered codec states its capabilities as data, each stated capability is backed by the
 * method it names (and no method goes unstated), and {@link CodecChain} decides from those data,
 * not from a codec's class.
 */
class CodecCapabilityTest extends AllocatorTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private record Example(String config, DataType type) {}

  /** A valid configuration of every registered codec, with the element type it is built for. */
  private static final Map<String, Example> EXAMPLES = new TreeMap<>();

  static {
    DataType f64 = DataType.FLOAT64;
    DataType i32 = DataType.INT32;
    for (String name :
        List.of(
            "gzip",
            "zstd",
            "crc32c",
            "blosc",
            "numcodecs.zlib",
            "numcodecs.lz4",
            "lz4",
            "numcodecs.bz2",
            "numcodecs.lzma",
            "numcodecs.shuffle",
            "numcodecs.crc32",
            "numcodecs.adler32",
            "numcodecs.crc32c",
            "numcodecs.fletcher32",
            "numcodecs.jenkins_lookup3",
            "numcodecs.base64",
            "numcodecs.zfpy",
            "numcodecs.gzip",
            "numcodecs.zstd",
            "numcodecs.blosc")) {
      EXAMPLES.put(name, new Example("{}", f64));
    }
    EXAMPLES.put("bytes", new Example("{\"endian\": \"little\"}", f64));
    EXAMPLES.put("transpose", new Example("{\"order\": [1, 0]}", f64));
    EXAMPLES.put("reshape", new Example("{\"shape\": [16]}", f64));
    EXAMPLES.put("zfp", new Example("{\"mode\": \"reversible\"}", f64));
    EXAMPLES.put(
        "sharding_indexed",
        new Example(
            "{\"chunk_shape\": [2, 2], \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}],"
                + " \"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}, {\"name\": \"crc32c\"}]}",
            f64));
    EXAMPLES.put("vlen-utf8", new Example("{}", DataType.STRING));
    EXAMPLES.put("vlen-bytes", new Example("{}", DataType.BYTES));
    EXAMPLES.put("numcodecs.json2", new Example("{}", DataType.STRING));
    EXAMPLES.put("numcodecs.msgpack2", new Example("{}", DataType.STRING));
    EXAMPLES.put("numcodecs.delta", new Example("{\"dtype\": \"<i4\"}", i32));
    EXAMPLES.put(
        "numcodecs.fixedscaleoffset",
        new Example(
            "{\"offset\": 0, \"scale\": 10, \"dtype\": \"<f8\", \"astype\": \"<i4\"}", f64));
    EXAMPLES.put("numcodecs.quantize", new Example("{\"digits\": 2, \"dtype\": \"<f8\"}", f64));
    EXAMPLES.put("numcodecs.bitround", new Example("{\"keepbits\": 5}", f64));
    EXAMPLES.put("bitround", new Example("{\"keepbits\": 5}", f64));
    EXAMPLES.put(
        "numcodecs.astype",
        new Example("{\"encode_dtype\": \"<i4\", \"decode_dtype\": \"<f8\"}", f64));
    EXAMPLES.put(
        "numcodecs.categorize",
        new Example("{\"labels\": [\"a\", \"b\"], \"dtype\": \"|O\", \"astype\": \"|u1\"}", null));
    EXAMPLES.put("numcodecs.packbits", new Example("{}", DataType.BOOL));
    EXAMPLES.put("packbits", new Example("{}", DataType.BOOL));
    EXAMPLES.put("scale_offset", new Example("{\"offset\": 1, \"scale\": 2}", f64));
    EXAMPLES.put("cast_value", new Example("{\"data_type\": \"float32\"}", f64));
  }

  static Stream<String> registered() {
    return CodecRegistry.defaults().names().stream();
  }

  private static Codec build(CodecRegistry registry, String name, String config, DataType type)
      throws Exception {
    return registry.create(
        new CodecSpec(name, JSON.readTree(config)),
        new ChunkSpec(new int[] {4, 4}, type, FillValue.zero(type)));
  }

  private static Codec example(String name) throws Exception {
    Example e = EXAMPLES.get(name);
    assertTrue(e != null, "no example configuration for registered codec " + name);
    DataType type = e.type() != null ? e.type() : DataType.STRING;
    return build(CodecRegistry.defaults(), name, e.config(), type);
  }

  private static boolean overrides(Object codec, Class<?> iface, String method, Class<?>... args)
      throws NoSuchMethodException {
    return codec.getClass().getMethod(method, args).getDeclaringClass() != iface;
  }

  @Test
  void everyRegisteredCodecHasAnExample() {
    assertEquals(CodecRegistry.defaults().names(), EXAMPLES.keySet());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("registered")
  void statedCapabilitiesAreExactlyTheOnesItImplements(String name) throws Exception {
    Codec codec = example(name);
    Set<CodecCapability> caps = codec.capabilities();
    Set<CodecCapability> kind = EnumSet.noneOf(CodecCapability.class);
    if (codec instanceof BytesToBytesCodec b) {
      kind.addAll(
          EnumSet.of(
              CodecCapability.DECODE_IN_PLACE,
              CodecCapability.DECODE_RANGE,
              CodecCapability.DECODE_STREAMING));
      Class<?> i = BytesToBytesCodec.class;
      boolean inPlace =
          overrides(b, i, "decodeInto", ArrowBuf.class, ArrowBuf.class, long.class, long.class)
              || overrides(
                  b,
                  i,
                  "decodeInto",
                  ArrowBuf.class,
                  ArrowBuf.class,
                  long.class,
                  long.class,
                  Scratch.class);
      assertEquals(inPlace, caps.contains(CodecCapability.DECODE_IN_PLACE), "in place");
      assertEquals(
          overrides(
              b,
              i,
              "decodeRange",
              ArrowBuf.class,
              ArrowBuf.class,
              long.class,
              long.class,
              long.class,
              Scratch.class),
          caps.contains(CodecCapability.DECODE_RANGE),
          "range");
      assertEquals(
          overrides(
              b,
              i,
              "decodeStreaming",
              ArrowBuf.class,
              long.class,
              ArrowBuf.class,
              int.class,
              BytesToBytesCodec.Sink.class),
          caps.contains(CodecCapability.DECODE_STREAMING),
          "streaming");
    } else if (codec instanceof ArrayToBytesCodec a) {
      kind.addAll(EnumSet.of(CodecCapability.PARTIAL_DECODE, CodecCapability.KEEPS_INPUT));
      if (caps.contains(CodecCapability.PARTIAL_DECODE)) {
        assertTrue(a.partialDecoder().innerChain() != null);
      } else {
        assertThrows(UnsupportedOperationException.class, a::partialDecoder);
      }
    } else {
      ArrayToArrayCodec a = (ArrayToArrayCodec) codec;
      kind.add(CodecCapability.LAYOUT_ONLY);
      if (!caps.contains(CodecCapability.LAYOUT_ONLY)) {
        try (ArrowBuf target = allocator.buffer(16 * 8)) {
          SlabView view = SlabView.whole(target, 0, 8, new int[] {4, 4});
          assertThrows(UnsupportedOperationException.class, () -> a.encodedView(view));
        }
      }
    }
    assertTrue(kind.containsAll(caps), name + " states capabilities of another kind: " + caps);
  }

  /** An array-to-bytes codec that wraps another and states the capabilities it is given. */
  private record Stating(ArrayToBytesCodec inner, Set<CodecCapability> capabilities)
      implements ArrayToBytesCodec {
    @Override
    public String name() {
      return "test.stating";
    }

    @Override
    public long encodedSize(ChunkSpec spec) {
      return inner.encodedSize(spec);
    }

    @Override
    public void decodeInto(
        ArrowBuf encoded, ChunkSpec spec, SlabView target, BufferAllocator allocator) {
      inner.decodeInto(encoded, spec, target, allocator);
    }

    @Override
    public PartialDecoder partialDecoder() {
      return inner.partialDecoder();
    }
  }

  private static final String BYTES =
      "{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}";

  private static final String SHARDING =
      "{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [2, 2],"
          + " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}], \"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]}}";

  private static CodecChain chain(CodecRegistry registry, String... codecs) throws Exception {
    List<CodecSpec> specs = new ArrayList<>();
    for (String c : codecs) {
      JsonNode node = JSON.readTree(c);
      specs.add(
          new CodecSpec(
              node.get("name").asText(),
              node.has("configuration") ? node.get("configuration") : JSON.createObjectNode()));
    }
    return CodecChain.resolve(
        specs,
        new ChunkSpec(new int[] {4, 4}, DataType.FLOAT64, FillValue.zero(DataType.FLOAT64)),
        registry);
  }

  @Test
  void theChainReadsInPartsExactlyWhenTheCodecsSaySo() throws Exception {
    CodecRegistry r = CodecRegistry.builtIns();
    r.register(
        "test.partial",
        (spec, input, reg) ->
            new Stating(
                (ArrayToBytesCodec)
                    reg.create(new CodecSpec("sharding_indexed", spec.configuration()), input),
                Set.of(CodecCapability.PARTIAL_DECODE)));
    r.register(
        "test.whole",
        (spec, input, reg) ->
            new Stating(
                (ArrayToBytesCodec)
                    reg.create(new CodecSpec("sharding_indexed", spec.configuration()), input),
                Set.of()));
    String transpose = "{\"name\": \"transpose\", \"configuration\": {\"order\": [1, 0]}}";
    String scale = "{\"name\": \"scale_offset\", \"configuration\": {\"offset\": 1}}";
    assertTrue(chain(r, SHARDING).partialReader().isPresent());
    assertTrue(chain(r, transpose, SHARDING).partialReader().isPresent(), "layout-only before");
    assertTrue(chain(r, scale, SHARDING).partialReader().isEmpty(), "value codec before");
    assertTrue(
        chain(r, SHARDING, "{\"name\": \"gzip\"}").partialReader().isEmpty(), "bytes codec after");
    assertTrue(chain(r, BYTES).partialReader().isEmpty());
    // not the sharding class, but stating partial decode: the chain reads it in parts
    CodecChain stated = chain(r, SHARDING.replace("sharding_indexed", "test.partial"));
    Stating codec = (Stating) stated.codecs().get(0);
    assertSame(codec.inner(), stated.partialReader().orElseThrow());
    // the sharding codec inside, but stating nothing: whole chunks only
    assertTrue(
        chain(r, SHARDING.replace("sharding_indexed", "test.whole")).partialReader().isEmpty());
  }

  /** A bytes-to-bytes codec wrapping another, stating what it is given and counting calls. */
  private record Counting(
      BytesToBytesCodec inner,
      Set<CodecCapability> capabilities,
      AtomicInteger inPlace,
      AtomicInteger whole)
      implements BytesToBytesCodec {
    @Override
    public String name() {
      return "test.counting";
    }

    @Override
    public ArrowBuf decode(ArrowBuf encoded, long decodedSize, BufferAllocator allocator) {
      whole.incrementAndGet();
      return inner.decode(encoded, decodedSize, allocator);
    }

    @Override
    public boolean decodeInto(
        ArrowBuf encoded, ArrowBuf target, long offset, long size, Scratch scratch) {
      inPlace.incrementAndGet();
      return inner.decodeInto(encoded, target, offset, size, scratch);
    }
  }

  @Test
  void theChainDecodesInPlaceOnlyWhenTheCodecSaysSo() throws Exception {
    double[] values = new double[16];
    ByteBuffer raw = ByteBuffer.allocate(16 * 8).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < values.length; i++) {
      values[i] = i * 1.5 - 3;
      raw.putDouble(values[i]);
    }
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
      out.write(raw.array());
    }
    for (boolean stated : new boolean[] {true, false}) {
      AtomicInteger inPlace = new AtomicInteger();
      AtomicInteger whole = new AtomicInteger();
      CodecRegistry r = CodecRegistry.builtIns();
      r.register(
          "test.counting",
          (spec, input, reg) ->
              new Counting(
                  (BytesToBytesCodec)
                      reg.create(new CodecSpec("gzip", spec.configuration()), input),
                  stated ? Set.of(CodecCapability.DECODE_IN_PLACE) : Set.of(),
                  inPlace,
                  whole));
      CodecChain c = chain(r, BYTES, "{\"name\": \"test.counting\"}");
      try (ArrowBuf encoded = allocator.buffer(gz.size());
          ArrowBuf target = allocator.buffer(16 * 8);
          Scratch scratch = new Scratch(allocator)) {
        encoded.setBytes(0, gz.toByteArray());
        encoded.writerIndex(gz.size());
        c.decodeInto(encoded, SlabView.whole(target, 0, 8, new int[] {4, 4}), allocator, scratch);
        double[] got = new double[16];
        for (int i = 0; i < got.length; i++) {
          got[i] = target.getDouble(i * 8L);
        }
        assertArrayEquals(values, got);
      }
      assertEquals(stated ? 1 : 0, inPlace.get(), "in-place decodes when stated " + stated);
      assertEquals(stated ? 0 : 1, whole.get(), "whole decodes when stated " + stated);
    }
  }
}
