package dev.zaro.arrow.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.MetadataException;
import dev.zaro.arrow.error.NodeNotFoundException;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.ChunkKeyEncoding;
import dev.zaro.arrow.metadata.GroupMetadata;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.FileStore;
import dev.zaro.arrow.store.MemoryStore;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreCapabilities;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * v3 draft stores beyond testdata/v3draft's fixtures (which {@link FixtureReadTest} reads): bad
 * entry points and array documents are refused with typed errors naming the key; a store that
 * cannot list finds every array by its path; the drafts' rarer forms (a root array, another
 * metadata key suffix, extensions that need not be understood).
 */
class V3DraftReadTest extends AllocatorTest {
  static final String PROTOCOL = "https://purl.org/zarr/spec/protocol/core/3.0";
  static final String ENTRY =
      "{\"zarr_format\":\""
          + PROTOCOL
          + "\",\"metadata_encoding\":\""
          + PROTOCOL
          + "\",\"metadata_key_suffix\":\".json\",\"extensions\":[]}";

  static String array(String grid, String compressor, String extensions) {
    return "{\"shape\":[4,6],\"data_type\":\"<i4\",\"chunk_grid\":"
        + grid
        + ",\"chunk_memory_layout\":\"C\",\"fill_value\":5,\"attributes\":{\"a\":1},"
        + "\"extensions\":"
        + extensions
        + (compressor == null ? "" : ",\"compressor\":" + compressor)
        + "}";
  }

  static final String GRID = "{\"type\":\"regular\",\"chunk_shape\":[2,3],\"separator\":\"/\"}";

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "unknown protocol | zarr.json | {\"zarr_format\":\"https://purl.org/zarr/spec/protocol/core/9.0\"}"
            + " | zarr_format | protocol/core/9.0",
        "unknown encoding | zarr.json | {\"zarr_format\":\""
            + PROTOCOL
            + "\",\"metadata_encoding\":\"cbor\"}"
            + " | metadata_encoding | cbor",
        "entry extension | zarr.json | {\"zarr_format\":\""
            + PROTOCOL
            + "\",\"extensions\":"
            + "[{\"extension\":\"https://example.org/ext/x\",\"must_understand\":true}]}"
            + " | extensions | https://example.org/ext/x",
        "grid type | meta/root/a.array.json | "
            + "{\"shape\":[4,6],\"data_type\":\"<i4\","
            + "\"chunk_grid\":{\"type\":\"irregular\",\"chunk_shape\":[2,3]},"
            + "\"chunk_memory_layout\":\"C\",\"fill_value\":5}"
            + " | chunk_grid | irregular",
        "grid rank | meta/root/a.array.json | {\"shape\":[4,6],\"data_type\":\"<i4\","
            + "\"chunk_grid\":{\"type\":\"regular\",\"chunk_shape\":[2]},"
            + "\"chunk_memory_layout\":\"C\",\"fill_value\":5}"
            + " | chunk_grid | 1 dimensions but shape has 2",
        "grid no shape | meta/root/a.array.json | {\"shape\":[4,6],\"data_type\":\"<i4\","
            + "\"chunk_grid\":{\"type\":\"regular\"},\"chunk_memory_layout\":\"C\",\"fill_value\":5}"
            + " | chunk_grid | chunk_shape is missing",
        "grid separator | meta/root/a.array.json | {\"shape\":[4,6],\"data_type\":\"<i4\","
            + "\"chunk_grid\":{\"type\":\"regular\",\"chunk_shape\":[2,3],\"separator\":\"-\"},"
            + "\"chunk_memory_layout\":\"C\",\"fill_value\":5}"
            + " | chunk_grid | separator",
        "grid name only | meta/root/a.array.json | {\"shape\":[4,6],\"data_type\":\"<i4\","
            + "\"chunk_grid\":[2,3],\"chunk_memory_layout\":\"C\",\"fill_value\":5}"
            + " | chunk_grid | must be an object",
        "layout | meta/root/a.array.json | {\"shape\":[4,6],\"data_type\":\"<i4\",\"chunk_grid\":"
            + GRID
            + ",\"chunk_memory_layout\":\"K\",\"fill_value\":5} | chunk_memory_layout | \"K\"",
        "data type | meta/root/a.array.json | {\"shape\":[4,6],\"data_type\":\"<q9\",\"chunk_grid\":"
            + GRID
            + ",\"chunk_memory_layout\":\"C\",\"fill_value\":5} | data_type | <q9",
        "unknown field | meta/root/a.array.json | {\"shape\":[4,6],\"data_type\":\"<i4\",\"chunk_grid\":"
            + GRID
            + ",\"chunk_memory_layout\":\"C\",\"fill_value\":5,\"codecs\":[]} | codecs | not a field",
      })
  void badDocumentsAreRefusedNamingTheKey(
      String name, String key, String doc, String field, String words) {
    MemoryStore store = new MemoryStore("draft").put("zarr.json", ENTRY).put(key, doc);
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults())) {
      MetadataException e =
          assertThrows(MetadataException.class, () -> zaro.read("a", "", allocator).close());
      assertTrue(
          e.getMessage().contains("key '" + key + "', field '" + field + "'"), e.getMessage());
      assertTrue(e.getMessage().contains(words), e.getMessage());
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "snappy | {\"codec\":\"https://purl.org/zarr/spec/codec/snappy/1.0\",\"configuration\":{}}"
            + " | codec/snappy/1.0",
        "not a purl | {\"codec\":\"gzip\",\"configuration\":{\"level\":1}} | codec 'gzip'",
        "no codec | {\"id\":\"gzip\",\"level\":1} | \"codec\" URI",
        "bad config | {\"codec\":\"https://purl.org/zarr/spec/codec/gzip/1.0\",\"configuration\":{\"lvl\":1}}"
            + " | unknown field 'lvl'",
      })
  void unknownCodecsAreRefusedNamingThem(String name, String compressor, String words) {
    MemoryStore store =
        new MemoryStore("draft")
            .put("zarr.json", ENTRY)
            .put("meta/root/a.array.json", array(GRID, compressor, "[]"));
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults())) {
      MetadataException e = assertThrows(MetadataException.class, () -> zaro.meta("a"));
      assertTrue(
          e.getMessage().contains("key 'meta/root/a.array.json', field 'compressor'"),
          e.getMessage());
      assertTrue(e.getMessage().contains(words), e.getMessage());
    }
  }

  @Test
  void anExtensionThatMustBeUnderstoodIsRefusedAndOneThatNeedNotIsIgnored() {
    String must = "[{\"extension\":\"https://example.org/ext/chunky\",\"must_understand\":true}]";
    String may = "[{\"extension\":\"https://example.org/ext/chunky\",\"must_understand\":false}]";
    MemoryStore store =
        new MemoryStore("draft")
            .put("zarr.json", ENTRY)
            .put("meta/root/must.array.json", array(GRID, null, must))
            .put("meta/root/may.array.json", array(GRID, null, may));
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults())) {
      MetadataException e = assertThrows(MetadataException.class, () -> zaro.meta("must"));
      assertTrue(
          e.getMessage().contains("key 'meta/root/must.array.json', field 'extensions'")
              && e.getMessage().contains("'https://example.org/ext/chunky'"),
          e.getMessage());
      assertEquals("v3 draft", zaro.meta("may").formatName());
    }
  }

  /**
   * A root array under another metadata key suffix, its one written chunk little-endian int32 by
   * hand (the draft's {@code bytes} are numpy's) and the rest missing: the fill value.
   */
  @Test
  void aRootArrayUnderAnotherSuffixReadsItsChunksAndTheFillValue() {
    ByteBuffer chunk = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < 6; i++) {
      chunk.putInt(100 + i);
    }
    MemoryStore store =
        new MemoryStore("draft")
            .put("zarr.json", ENTRY.replace("\".json\"", "\".js\""))
            .put("meta/root.array.js", array(GRID.replace("/", "."), null, "[]"))
            .put("data/root/c1.1", chunk.array());
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults());
        Slab slab = zaro.read("/", "", allocator)) {
      ArrayMetadata meta = zaro.meta("/");
      assertEquals(new ChunkKeyEncoding.DraftEncoding('.'), meta.chunkKeyEncoding());
      assertEquals("data/root/c1.1", meta.chunkKeyEncoding().key("", new long[] {1, 1}));
      int[] got = new int[24];
      for (int i = 0; i < 24; i++) {
        got[i] = slab.data().getInt(4L * i);
      }
      int[] want = new int[24];
      for (int r = 0; r < 4; r++) {
        for (int c = 0; c < 6; c++) {
          want[r * 6 + c] = r >= 2 && c >= 3 ? 100 + (r - 2) * 3 + (c - 3) : 5;
        }
      }
      assertArrayEquals(want, got);
      assertEquals(1, zaro.node("/").attributes().get("a").asInt());
    }
  }

  /** A store that cannot list (as HTTP): every node asked for by path, the root alone listed. */
  @Test
  void aStoreThatCannotListFindsArraysByPath() throws IOException {
    Path set = Fixtures.testdata().resolve("v3draft");
    Path stores = set.resolve("stores");
    try (Zaro zaro =
        Zaro.open(
            new Unlisted(new FileStore(stores.resolve("hierarchy.zr3"))), ZaroOptions.defaults())) {
      assertEquals(List.of(""), zaro.list().stream().map(Node::path).toList());
      assertTrue(!zaro.hierarchy().listsEverything());
      GroupMetadata sub = assertInstanceOf(GroupMetadata.class, zaro.node("grp/sub"));
      assertTrue(sub.draft() && !sub.implicit());
      try (Slab slab = zaro.read("grp/zlib", "1:6, 2:9", allocator)) {
        byte[] got = new byte[(int) slab.byteSize()];
        slab.data().getBytes(0, got);
        assertArrayEquals(Files.readAllBytes(set.resolve("expected/grp_zlib.1.bin")), got);
      }
      // an implicit group is found by listing, so a store that cannot list has none (as in v3)
      NodeNotFoundException e =
          assertThrows(NodeNotFoundException.class, () -> zaro.node("sparse"));
      assertTrue(e.getMessage().contains("'meta/root/sparse.array.json'"), e.getMessage());
      assertEquals("v3 draft", zaro.node("sparse/uint8_fill").formatName());
    }
  }

  /** zarr-python's consolidated metadata for the drafts: a store that cannot list lists it all. */
  @Test
  void consolidatedMetadataListsAStoreThatCannotList() {
    Path store = Fixtures.testdata().resolve("v3draft/stores/consolidated.zr3");
    try (Zaro zaro = Zaro.open(new Unlisted(new FileStore(store)), ZaroOptions.defaults())) {
      assertEquals(
          List.of("", "consolidated", "obs", "obs/temp"),
          zaro.list().stream().map(Node::path).toList());
      assertTrue(zaro.hierarchy().listsEverything());
      assertTrue(zaro.node("").attributes().get("consolidated").asBoolean());
      assertTrue(assertInstanceOf(GroupMetadata.class, zaro.node("obs")).implicit());
      assertEquals("v3 draft", zaro.meta("obs/temp").formatName());
    }
  }

  /** The May 2022 draft's keys, meta/<path>.array.json: listed, and its parents implicit groups. */
  @Test
  void theMay2022KeyFormIsListed() {
    Path store = Fixtures.testdata().resolve("v3draft/stores/may2022.zr3");
    try (Zaro zaro = Zaro.open(store.toString())) {
      assertEquals(List.of("", "obs", "obs/temp"), zaro.list().stream().map(Node::path).toList());
      assertTrue(assertInstanceOf(GroupMetadata.class, zaro.node("")).implicit());
      assertTrue(assertInstanceOf(GroupMetadata.class, zaro.node("obs")).implicit());
      assertEquals("v3 draft", zaro.meta("obs/temp").formatName());
    }
  }

  @Test
  void nothingBelowAnArrayIsANode() {
    Path store = Fixtures.testdata().resolve("v3draft/stores/hierarchy.zr3");
    try (Zaro zaro = Zaro.open(store.toString())) {
      assertThrows(NodeNotFoundException.class, () -> zaro.node("grp/gzip/c0"));
      assertThrows(NodeNotFoundException.class, () -> zaro.node("nope"));
      assertTrue(
          assertInstanceOf(GroupMetadata.class, zaro.node("sparse")).implicit(), "implicit group");
    }
  }

  /** Lists nothing, as an HTTP store. */
  static final class Unlisted implements Store {
    private final Store inner;

    Unlisted(Store inner) {
      this.inner = inner;
    }

    @Override
    public Optional<ArrowBuf> get(String key, ByteRange range, BufferAllocator allocator) {
      return inner.get(key, range, allocator);
    }

    @Override
    public Optional<byte[]> getBytes(String key) {
      return inner.getBytes(key);
    }

    @Override
    public Stream<String> list(String prefix) {
      return Stream.empty();
    }

    @Override
    public StoreCapabilities capabilities() {
      return inner.capabilities().unlisted();
    }

    @Override
    public String describe() {
      return "unlisted " + inner.describe();
    }

    @Override
    public void close() {
      inner.close();
    }
  }
}
