package dev.zaro.arrow.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.error.MetadataException;
import dev.zaro.arrow.error.NodeNotFoundException;
import dev.zaro.arrow.error.SelectionException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.metadata.GroupMetadata;
import dev.zaro.arrow.store.MemoryStore;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Broken chunks and metadata in a 4x4 int32 array of 2x2 chunks: every error names the array, the
 * chunk index and key, and the codec; nothing leaks (the allocator is checked after each test);
 * missing chunks read as the fill value.
 */
class BadInputReadTest extends AllocatorTest {

  static String meta(String codecs) {
    return "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[4,4],\"data_type\":\"int32\","
        + "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[2,2]}},"
        + "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":7,\"codecs\":"
        + codecs
        + "}";
  }

  static final String BYTES = "{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}";

  static byte[] chunk(int... values) {
    ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
    for (int v : values) {
      b.putInt(v);
    }
    return b.array();
  }

  static byte[] gzip(byte[] data) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(data);
    }
    return out.toByteArray();
  }

  static byte[] withCrc(byte[] data) {
    CRC32C crc = new CRC32C();
    crc.update(data);
    return ByteBuffer.allocate(data.length + 4)
        .order(ByteOrder.LITTLE_ENDIAN)
        .put(data)
        .putInt((int) crc.getValue())
        .array();
  }

  private <T extends ZaroException> T readFails(Class<T> type, MemoryStore store, String path) {
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults().withThreads(2))) {
      return assertThrows(type, () -> zaro.read(path, "", allocator).close());
    }
  }

  static void assertNames(ZaroException e, String... parts) {
    for (String p : parts) {
      assertTrue(e.getMessage().contains(p), "'" + p + "' missing from: " + e.getMessage());
    }
  }

  @Test
  void missingChunksReadAsTheFillValue() {
    MemoryStore store =
        new MemoryStore()
            .put("a/zarr.json", meta("[" + BYTES + "]"))
            .put("a/c/1/1", chunk(1, 2, 3, 4));
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults());
        Slab slab = zaro.read("a", "", allocator)) {
      int[] want = {7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 1, 2, 7, 7, 3, 4};
      for (int i = 0; i < 16; i++) {
        assertEquals(want[i], slab.data().getInt(i * 4L), "element " + i);
      }
    }
  }

  @Test
  void aChunkOfTheWrongSize() {
    MemoryStore store =
        new MemoryStore()
            .put("a/zarr.json", meta("[" + BYTES + "]"))
            .put("a/c/0/1", chunk(1, 2, 3));
    CodecException e = readFails(CodecException.class, store, "a");
    assertNames(
        e, "array '/a'", "chunk [0, 1]", "key 'a/c/0/1'", "codec bytes", "12 bytes, expected 16");
  }

  @Test
  void corruptGzip() throws Exception {
    byte[] good = gzip(chunk(1, 2, 3, 4));
    byte[] bad = good.clone();
    bad[bad.length - 6] ^= 0x40;
    MemoryStore store =
        new MemoryStore()
            .put("a/zarr.json", meta("[" + BYTES + ",{\"name\":\"gzip\"}]"))
            .put("a/c/0/0", good)
            .put("a/c/1/0", bad);
    assertNames(
        readFails(CodecException.class, store, "a"), "chunk [1, 0]", "key 'a/c/1/0'", "codec gzip");
  }

  @Test
  void corruptZstd() {
    byte[] bad = Zstd.compress(chunk(1, 2, 3, 4));
    bad[bad.length / 2] ^= 0x7f;
    byte[] truncated = Arrays.copyOf(Zstd.compress(chunk(5, 6, 7, 8)), 5);
    MemoryStore store =
        new MemoryStore()
            .put("a/zarr.json", meta("[" + BYTES + ",{\"name\":\"zstd\"}]"))
            .put("a/c/0/0", truncated);
    assertNames(readFails(CodecException.class, store, "a"), "chunk [0, 0]", "codec zstd");
  }

  @Test
  void crc32cMismatch() {
    byte[] bad = withCrc(chunk(1, 2, 3, 4));
    bad[0] ^= 1;
    MemoryStore store =
        new MemoryStore()
            .put("a/zarr.json", meta("[" + BYTES + ",{\"name\":\"crc32c\"}]"))
            .put("a/c/0/0", withCrc(chunk(1, 2, 3, 4)))
            .put("a/c/1/1", bad);
    assertNames(
        readFails(CodecException.class, store, "a"),
        "chunk [1, 1]",
        "key 'a/c/1/1'",
        "codec crc32c",
        "checksum mismatch");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "[{\"name\":\"lzma9000\"}]",
        "[{\"name\":\"zstd\"}]",
        "[" + BYTES + "," + BYTES + "]",
        "[" + BYTES + ",{\"name\":\"transpose\",\"configuration\":{\"order\":[1,0]}}]",
        "[{\"name\":\"transpose\",\"configuration\":{\"order\":[0,0]}}," + BYTES + "]",
        "[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"middle\"}}]",
        "[{\"name\":\"bytes\"}]",
        "[" + BYTES + ",{\"name\":\"gzip\",\"configuration\":{\"level\":\"max\"}}]",
        "[" + BYTES + ",{\"name\":\"zstd\",\"configuration\":{\"level\":3,\"speed\":1}}]"
      })
  void badCodecChainsAreRefusedWhenTheArrayOpens(String codecs) {
    MemoryStore store = new MemoryStore().put("a/zarr.json", meta(codecs));
    MetadataException e = readFails(MetadataException.class, store, "a");
    assertNames(e, "array '/a'", "codec");
  }

  @Test
  void missingPathsAndGroupsAreNamed() {
    MemoryStore store =
        new MemoryStore()
            .put("zarr.json", "{\"zarr_format\":3,\"node_type\":\"group\"}")
            .put("g/a/zarr.json", meta("[" + BYTES + "]"));
    assertNames(
        readFails(NodeNotFoundException.class, store, "nope/x"), "'/nope/x'", "nope/x/zarr.json");
    assertNames(readFails(MetadataException.class, store, "g"), "'/g'", "is a group");
  }

  /**
   * A path below an array (its chunks' directory) is no node, not even an implicit group made of
   * the chunk keys: an error naming the array, whether the hierarchy is consolidated or not, and
   * under a root array too.
   */
  @Test
  void aPathBelowAnArrayIsNoNode() {
    String group = "{\"zarr_format\":3,\"node_type\":\"group\"}";
    MemoryStore plain =
        new MemoryStore()
            .put("zarr.json", group)
            .put("g/a/zarr.json", meta("[" + BYTES + "]"))
            .put("g/a/c/0/0", chunk(1, 2, 3, 4))
            .put("g/a/c/1/0", chunk(5, 6, 7, 8));
    MemoryStore consolidated =
        new MemoryStore()
            .put(
                "zarr.json",
                "{\"zarr_format\":3,\"node_type\":\"group\",\"consolidated_metadata\":{"
                    + "\"kind\":\"inline\",\"must_understand\":false,\"metadata\":{\"g\":"
                    + group
                    + ",\"g/a\":"
                    + meta("[" + BYTES + "]")
                    + "}}}")
            .put("g/a/zarr.json", meta("[" + BYTES + "]"))
            .put("g/a/c/0/0", chunk(1, 2, 3, 4));
    for (MemoryStore store : List.of(plain, consolidated)) {
      try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults())) {
        for (String path : List.of("g/a/c", "g/a/c/0", "/g/a/c/")) {
          NodeNotFoundException e =
              assertThrows(NodeNotFoundException.class, () -> zaro.node(path));
          assertNames(e, "'/g/a' is an array", "no array or group at '/g/a/c");
        }
        assertTrue(zaro.node("g") instanceof GroupMetadata);
        assertEquals(List.of("", "g", "g/a"), zaro.list().stream().map(Node::path).toList());
      }
    }
    MemoryStore rootArray =
        new MemoryStore().put("zarr.json", meta("[" + BYTES + "]")).put("c/0/0", chunk(1, 2, 3, 4));
    try (Zaro zaro = Zaro.open(rootArray, ZaroOptions.defaults())) {
      assertNames(
          assertThrows(NodeNotFoundException.class, () -> zaro.node("c")), "'/' is an array");
    }
  }

  /** One array zaro cannot read does not hide the rest of the hierarchy. */
  @Test
  void listingSkipsUnreadableNodesAndSaysWhy() {
    MemoryStore store =
        new MemoryStore()
            .put("zarr.json", "{\"zarr_format\":3,\"node_type\":\"group\"}")
            .put("good/zarr.json", meta("[" + BYTES + "]"))
            .put("bad/zarr.json", meta("[" + BYTES + "]").replace("\"int32\"", "\"float128\""));
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults())) {
      assertEquals(List.of("", "good"), zaro.list().stream().map(Node::path).toList());
      String why = zaro.hierarchy().unreadable().get("bad");
      assertTrue(
          why != null && why.contains("bad/zarr.json") && why.contains("float128"),
          String.valueOf(why));
      assertThrows(MetadataException.class, () -> zaro.read("bad", "", allocator));
    }
  }

  @Test
  void badSelections() {
    MemoryStore store = new MemoryStore().put("a/zarr.json", meta("[" + BYTES + "]"));
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults())) {
      SelectionException e =
          assertThrows(SelectionException.class, () -> zaro.read("a", "0:5", allocator));
      assertNames(e, "selection '0:5'", "dimension 0", "stop 5 is out of range");
    }
  }

  @Test
  void malformedMetadataIsNamedByKey() {
    MemoryStore store =
        new MemoryStore().put("a/zarr.json", meta("[" + BYTES + "]").substring(0, 60));
    assertNames(readFails(MetadataException.class, store, "a"), "a/zarr.json", "not valid JSON");
  }
}
