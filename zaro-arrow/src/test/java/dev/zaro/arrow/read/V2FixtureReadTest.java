package dev.zaro.arrow.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.error.MetadataException;
import dev.zaro.arrow.error.NodeNotFoundException;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.GroupMetadata;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.FileStore;
import dev.zaro.arrow.store.MemoryStore;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every read in testdata/v2/cases.json: Zarr v2 arrays written by tensorstore and by zarr-python 2
 * (numcodecs filters and compressors, order F, big endian, both separators, fill values, missing
 * chunks, nested and consolidated hierarchies), expected values read back by those libraries (see
 * testdata/v2/generate_v2.py), compared byte for byte.
 */
class V2FixtureReadTest extends AllocatorTest {

  static Path dir() {
    return Fixtures.testdata().resolve("v2");
  }

  static JsonNode doc() throws IOException {
    return Json.readTree(Files.readAllBytes(dir().resolve("cases.json")));
  }

  static Stream<Arguments> reads() throws IOException {
    List<Arguments> out = new ArrayList<>();
    for (JsonNode c : doc().get("cases")) {
      for (JsonNode r : c.get("reads")) {
        out.add(
            Arguments.of(
                c.get("name").asText() + "[" + r.get("slice").asText() + "]",
                c,
                r.get("slice").asText(),
                Json.convertValue(r.get("shape"), long[].class),
                dir().resolve(r.get("expected").asText())));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("reads")
  void readsEqualTheWriter(String name, JsonNode c, String slice, long[] shape, Path expected)
      throws IOException {
    byte[] want = Files.readAllBytes(expected);
    String store = dir().resolve(c.get("store").asText()).toString();
    String path = c.get("path").asText();
    for (int threads : new int[] {1, 3}) {
      try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults().withThreads(threads));
          Slab slab = zaro.read(path, slice, allocator)) {
        ArrayMetadata meta = zaro.meta(path);
        assertEquals(2, meta.zarrFormat());
        assertEquals(c.get("data_type").asText(), slab.dataType().name());
        assertArrayEquals(shape, slab.shape(), "shape");
        byte[] got = new byte[(int) slab.byteSize()];
        slab.data().getBytes(0, got);
        assertArrayEquals(want, got, name + " with " + threads + " threads");
        if (c.has("dimension_names")) {
          assertEquals(
              Json.convertValue(c.get("dimension_names"), List.class), meta.dimensionNames());
        }
      }
    }
  }

  static Stream<String> hierarchyStores() throws IOException {
    JsonNode h = doc().get("hierarchy");
    List<String> stores = new ArrayList<>();
    stores.add(h.get("store").asText());
    h.get("consolidated").forEach(s -> stores.add(s.asText()));
    return stores.stream();
  }

  /** Groups, arrays at every depth and attributes, from the node documents or .zmetadata alone. */
  @ParameterizedTest
  @MethodSource("hierarchyStores")
  void listsTheHierarchy(String storePath) throws IOException {
    JsonNode h = doc().get("hierarchy");
    try (Zaro zaro = Zaro.open(dir().resolve(storePath).toString())) {
      List<String> got =
          zaro.list().stream()
              .map(n -> n.path() + ":" + (n.isArray() ? "array" : "group"))
              .sorted()
              .toList();
      List<String> want = new ArrayList<>();
      for (JsonNode n : h.get("nodes")) {
        want.add(StoreKeys.stripSlashes(n.get("path").asText()) + ":" + n.get("kind").asText());
      }
      Collections.sort(want);
      assertEquals(want, got);
      for (Node n : zaro.list()) {
        assertEquals(2, n.metadata().zarrFormat(), n.path());
        if (!n.isArray()) {
          assertFalse(((GroupMetadata) n.metadata()).implicit(), n.path());
        }
      }
      for (var e : h.get("attributes").properties()) {
        assertEquals(
            e.getValue(), zaro.node(e.getKey()).attributes(), "attributes of " + e.getKey());
      }
      assertEquals(List.of("y", "x"), zaro.meta("top").dimensionNames());
      assertEquals(List.of("time"), zaro.meta("/obs/temp").dimensionNames());
      assertEquals(
          List.of("obs/deep", "obs/temp"),
          zaro.hierarchy().children("/obs").stream().map(Node::path).sorted().toList());
      assertEquals(storePath.contains("consolidated"), zaro.hierarchy().consolidated().isPresent());
    }
  }

  @Test
  void v2MetadataBecomesACodecChain() {
    try (Zaro zaro = Zaro.open(dir().resolve("stores/fixedscaleoffset_order_f.zarr").toString())) {
      ArrayMetadata meta = zaro.meta("");
      assertEquals(
          List.of("transpose", "numcodecs.fixedscaleoffset", "bytes", "blosc"),
          meta.codecs().stream().map(CodecSpec::name).toList());
      assertEquals("[2,1,0]", meta.codecs().get(0).configuration().get("order").toString());
      assertEquals("big", meta.codecs().get(2).configuration().get("endian").asText());
      assertEquals("shuffle", meta.codecs().get(3).configuration().get("shuffle").asText());
    }
    try (Zaro zaro = Zaro.open(dir().resolve("stores/chain_delta_shuffle_xz.zarr").toString())) {
      assertEquals(
          List.of("numcodecs.delta", "bytes", "numcodecs.shuffle", "numcodecs.lzma"),
          zaro.meta("").codecs().stream().map(CodecSpec::name).toList());
    }
  }

  /** A store wrapper that records every request. */
  static final class RecordingStore implements Store {
    final Store inner;
    final List<String> gets = Collections.synchronizedList(new ArrayList<>());
    final List<String> lists = Collections.synchronizedList(new ArrayList<>());

    RecordingStore(Store inner) {
      this.inner = inner;
    }

    @Override
    public Optional<ArrowBuf> get(String key, ByteRange range, BufferAllocator allocator) {
      gets.add(key);
      return inner.get(key, range, allocator);
    }

    @Override
    public Optional<byte[]> getBytes(String key) {
      gets.add(key);
      return inner.getBytes(key);
    }

    @Override
    public Stream<String> list(String prefix) {
      lists.add(prefix);
      return inner.list(prefix);
    }

    @Override
    public String describe() {
      return inner.describe();
    }

    List<String> metadataGets() {
      synchronized (gets) {
        return gets.stream()
            .filter(
                k ->
                    k.endsWith("zarr.json") || k.substring(k.lastIndexOf('/') + 1).startsWith(".z"))
            .toList();
      }
    }
  }

  /** Opens, lists, inspects and reads every array: counts the metadata requests. */
  private static RecordingStore openListAndRead(Store inner, BufferAllocator allocator) {
    RecordingStore store = new RecordingStore(inner);
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults())) {
      List<Node> nodes = zaro.list();
      assertFalse(nodes.isEmpty());
      for (Node n : nodes) {
        zaro.node(n.path());
        zaro.hierarchy().children(n.path());
        if (n.isArray()) {
          int rank = ((ArrayMetadata) n.metadata()).rank();
          try (Slab slab =
              zaro.read(n.path(), String.join(", ", Collections.nCopies(rank, ":2")), allocator)) {
            assertTrue(slab.byteSize() > 0);
          }
        }
      }
    }
    return store;
  }

  @Test
  void v2ConsolidatedMetadataIsTheOnlyMetadataRead() {
    RecordingStore store =
        openListAndRead(new FileStore(dir().resolve("stores/consolidated.zarr")), allocator);
    // one probe for a v3 root (absent), then the one document
    assertEquals(List.of("zarr.json", ".zmetadata"), store.metadataGets());
    assertEquals(List.of(), store.lists, "no listing");
  }

  @Test
  void v3InlineConsolidatedMetadataIsTheOnlyMetadataRead() {
    RecordingStore store = openListAndRead(new FileStore(Fixtures.sample()), allocator);
    assertEquals(List.of("zarr.json"), store.metadataGets());
    assertEquals(List.of(), store.lists, "no listing");
    assertTrue(store.gets.size() > 1, "chunks were read: " + store.gets);
  }

  @Test
  void withoutConsolidatedMetadataTheHierarchyOpensByListing() {
    RecordingStore store =
        openListAndRead(new FileStore(dir().resolve("stores/hierarchy.zarr")), allocator);
    assertFalse(store.lists.isEmpty());
    assertTrue(store.metadataGets().contains("obs/temp/.zarray"), store.metadataGets().toString());
    assertTrue(store.metadataGets().contains("obs/temp/.zattrs"), store.metadataGets().toString());
  }

  @Test
  void aV3HierarchyWithInlineConsolidatedMetadataInMemory() {
    String array =
        "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[3],\"data_type\":\"int16\","
            + "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[2]}},"
            + "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":5,"
            + "\"codecs\":[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}],\"dimension_names\":[\"x\"]}";
    String root =
        "{\"zarr_format\":3,\"node_type\":\"group\",\"attributes\":{\"a\":1},\"consolidated_metadata\":"
            + "{\"kind\":\"inline\",\"must_understand\":false,\"metadata\":{"
            + "\"g\":{\"zarr_format\":3,\"node_type\":\"group\",\"attributes\":{\"b\":2}},"
            + "\"g/h/v\":"
            + array
            + "}}}";
    MemoryStore memory =
        new MemoryStore().put("zarr.json", root).put("g/h/v/c/0", new byte[] {1, 0, 2, 0});
    RecordingStore store = openListAndRead(memory, allocator);
    assertEquals(List.of("zarr.json"), store.metadataGets());
    assertEquals(List.of(), store.lists);
    try (Zaro zaro = Zaro.open(memory, ZaroOptions.defaults());
        Slab slab = zaro.read("g/h/v", "", allocator)) {
      assertEquals(
          List.of(":group", "g:group", "g/h:group", "g/h/v:array"),
          zaro.list().stream()
              .map(n -> n.path() + ":" + (n.isArray() ? "array" : "group"))
              .toList());
      assertTrue(((GroupMetadata) zaro.node("g/h")).implicit());
      assertEquals(2, zaro.node("g").attributes().get("b").asInt());
      byte[] got = new byte[6];
      slab.data().getBytes(0, got);
      assertArrayEquals(new byte[] {1, 0, 2, 0, 5, 0}, got);
    }
  }

  @Test
  void aNodeMissingFromConsolidatedMetadataIsLookedUpInTheStore() throws IOException {
    MemoryStore memory =
        new MemoryStore().putAll(new FileStore(dir().resolve("stores/consolidated.zarr")));
    memory.put("extra/.zgroup", "{\"zarr_format\":2}");
    try (Zaro zaro = Zaro.open(memory, ZaroOptions.defaults())) {
      assertInstanceOf(GroupMetadata.class, zaro.node("extra"));
      assertThrows(NodeNotFoundException.class, () -> zaro.node("nothing/here"));
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"zarr_consolidated_format\":2,\"metadata\":{}}",
        "{\"metadata\":{}}",
        "{\"zarr_consolidated_format\":1,\"metadata\":[]}",
        "[1]",
        "{\"zarr_consolidated_format\":1,"
            + "\"metadata\":{\".zgroup\":{\"zarr_format\":2},\"a/.zarray\":7}}"
      })
  void brokenZmetadataIsAMetadataErrorNamingIt(String zmetadata) {
    MemoryStore memory =
        new MemoryStore().put(".zmetadata", zmetadata).put(".zgroup", "{\"zarr_format\":2}");
    try (Zaro zaro = Zaro.open(memory, ZaroOptions.defaults())) {
      MetadataException e = assertThrows(MetadataException.class, zaro::list);
      assertTrue(e.getMessage().contains(".zmetadata"), e.getMessage());
    }
  }

  @Test
  void aBrokenArrayInZmetadataFailsOnlyThatArray() {
    String zmetadata =
        "{\"zarr_consolidated_format\":1,\"metadata\":{\".zgroup\":{\"zarr_format\":2},"
            + "\"a/.zarray\":{\"zarr_format\":2,\"shape\":[2],\"chunks\":[2],\"dtype\":\"<x9\",\"compressor\":null,"
            + "\"fill_value\":0,\"order\":\"C\",\"filters\":null},\"b/.zgroup\":{\"zarr_format\":2}}}";
    try (Zaro zaro =
        Zaro.open(new MemoryStore().put(".zmetadata", zmetadata), ZaroOptions.defaults())) {
      assertInstanceOf(GroupMetadata.class, zaro.node("b"));
      MetadataException e = assertThrows(MetadataException.class, () -> zaro.node("a"));
      assertEquals(
          "key 'a/.zarray (in .zmetadata)', field 'dtype': unknown data type '<x9' (zaro reads b1, i1, i2,"
              + " i4, i8, u1, u2, u4, u8, f2, f4, f8, c8, c16 with byte order <, > or |)",
          e.getMessage());
    }
  }

  @Test
  void aCorruptChunkNamesTheArrayTheChunkTheKeyAndTheCodec() {
    MemoryStore memory = new MemoryStore().putAll(new FileStore(dir().resolve("stores/lz4.zarr")));
    byte[] chunk = memory.getBytes("1.2").orElseThrow();
    chunk[chunk.length / 2] ^= (byte) 0xff;
    chunk = Arrays.copyOf(chunk, chunk.length - 3);
    memory.put("1.2", chunk);
    try (Zaro zaro = Zaro.open(memory, ZaroOptions.defaults())) {
      CodecException e =
          assertThrows(CodecException.class, () -> zaro.read("", "8:16, 14:20", allocator).close());
      assertTrue(
          e.getMessage()
              .startsWith(
                  "array '/', chunk [1, 2] (key '1.2' in "
                      + memory.describe()
                      + "): codec numcodecs.lz4: "),
          e.getMessage());
      try (Slab slab = zaro.read("", "0:8, 0:7", allocator)) {
        assertEquals(56, slab.elementCount(), "other chunks still read");
      }
    }
  }

  @Test
  void anUnsupportedFilterFailsWhenTheArrayIsOpenedNotWhenListed() {
    MemoryStore memory =
        new MemoryStore()
            .put(".zgroup", "{\"zarr_format\":2}")
            .put(
                "s/.zarray",
                "{\"zarr_format\":2,\"shape\":[2],\"chunks\":[2],\"dtype\":\"|u1\",\"compressor\":null,"
                    + "\"fill_value\":0,\"order\":\"C\",\"filters\":[{\"id\":\"categorize\",\"labels\":[\"a\"],"
                    + "\"dtype\":\"<U1\",\"astype\":\"|u1\"}]}");
    try (Zaro zaro = Zaro.open(memory, ZaroOptions.defaults())) {
      assertEquals(List.of("", "s"), zaro.list().stream().map(Node::path).toList());
      MetadataException e = assertThrows(MetadataException.class, () -> zaro.array("s"));
      assertTrue(
          e.getMessage()
              .startsWith(
                  "array '/s' in "
                      + memory.describe()
                      + ": codec"
                      + " numcodecs.categorize: decodes to text"),
          e.getMessage());
    }
  }

  @Test
  void aRootArrayWithoutGroups() {
    MemoryStore memory =
        new MemoryStore()
            .put(
                ".zarray",
                "{\"zarr_format\":2,\"shape\":[],\"chunks\":[],\"dtype\":\">u2\",\"compressor\":null,"
                    + "\"fill_value\":null,\"order\":\"C\",\"filters\":null}")
            .put("0", new byte[] {1, 2});
    try (Zaro zaro = Zaro.open(memory, ZaroOptions.defaults());
        Slab slab = zaro.read("", "", allocator)) {
      assertEquals(List.of(""), zaro.list().stream().map(Node::path).toList());
      assertEquals(0x0102, slab.data().getShort(0));
    }
  }
}
