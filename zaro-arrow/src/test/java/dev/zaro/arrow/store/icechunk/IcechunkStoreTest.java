package dev.zaro.arrow.store.icechunk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.luben.zstd.Zstd;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreCapabilities;
import dev.zaro.arrow.store.Stores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link IcechunkStore} as a store (the contract of {@code AbstractStoreTest}, over a fixture
 * repository rather than arbitrary contents, which an Icechunk repository cannot hold: keys are
 * node metadata and chunks only), and its answers to bad input: unknown refs, ids that point
 * nowhere, truncated, damaged or foreign files, unsupported format versions, virtual chunks in
 * local files reached from a remote repository (IcechunkVirtualChunkTest, in zaro-remote). Damaged
 * files are Icechunk's own fixture files with bytes changed here; nothing is written by zaro.
 */
class IcechunkStoreTest extends AllocatorTest {
  static final ObjectMapper JSON = new ObjectMapper();

  /** test-repo-v2's "fill data" commit: 4 native chunks of 42.0, 5 inline chunks of 84. */
  static final String FILL_DATA = "ZA24GZGPNK3GH682Q1R0";

  static final String VIRTUAL = "s3://testbucket/can_read_old/chunk-1";

  @TempDir Path tmp;
  IcechunkStore store;

  /** The bytes of every native chunk of big_chunks (Icechunk wrote them all alike). */
  byte[] chunk;

  static Path repo(String name) {
    return Fixtures.testdata().resolve("icechunk").resolve(name);
  }

  @BeforeEach
  void open() throws Exception {
    store = IcechunkStore.open("icechunk://" + repo("test-repo-v2") + "?snapshot=" + FILL_DATA);
    chunk = Files.readAllBytes(repo("test-repo-v2").resolve("chunks/S7RX4P9PYQ67530ZW0V0"));
  }

  @AfterEach
  void close() {
    store.close();
  }

  private byte[] get(Store s, String key, ByteRange range) {
    try (ArrowBuf buf = s.get(key, range, allocator).orElseThrow()) {
      byte[] out = new byte[(int) buf.writerIndex()];
      buf.getBytes(0, out);
      return out;
    }
  }

  static final List<String> KEYS =
      List.of(
          "group1/big_chunks/c/0/0",
          "group1/big_chunks/c/0/1",
          "group1/big_chunks/c/1/0",
          "group1/big_chunks/c/1/1",
          "group1/big_chunks/zarr.json",
          "group1/small_chunks/c/0",
          "group1/small_chunks/c/1",
          "group1/small_chunks/c/2",
          "group1/small_chunks/c/3",
          "group1/small_chunks/c/4",
          "group1/small_chunks/zarr.json",
          "group1/zarr.json",
          "zarr.json");

  // ---- the store contract ----

  @Test
  void listsEveryNodesMetadataAndEveryChunkInOrder() {
    assertEquals(KEYS, store.list("").toList());
    assertEquals(KEYS.subList(2, 4), store.list("group1/big_chunks/c/1").toList());
    assertEquals(KEYS.subList(5, 11), store.list("group1/small").toList());
    assertEquals(List.of(), store.list("group2/").toList());
    assertTrue(store.capabilities().listable());
    assertEquals(StoreCapabilities.LOCAL, store.capabilities());
    // told to skip below arrays, it lists their metadata but need not read manifests
    List<String> some = store.list("", dir -> dir.startsWith("group1/")).toList();
    assertEquals(
        List.of(
            "group1/big_chunks/zarr.json",
            "group1/small_chunks/zarr.json",
            "group1/zarr.json",
            "zarr.json"),
        some);
  }

  @Test
  void chunkKeysHoldTheChunksIcechunkStored() throws Exception {
    for (String key : KEYS.subList(0, 4)) {
      assertArrayEquals(chunk, get(store, key, ByteRange.ALL), key); // native: the chunk file
      assertArrayEquals(chunk, store.getBytes(key).orElseThrow(), key);
    }
    for (String key : KEYS.subList(5, 10)) { // inline: zstd of one int8 84
      byte[] inline = get(store, key, ByteRange.ALL);
      assertArrayEquals(new byte[] {84}, Zstd.decompress(inline, 1), key);
      assertArrayEquals(inline, store.getBytes(key).orElseThrow(), key);
    }
    JsonNode group = JSON.readTree(store.getBytes("group1/zarr.json").orElseThrow());
    assertEquals("group", group.get("node_type").asText());
    assertEquals("is a nice group", group.get("attributes").get("this").asText());
    JsonNode array = JSON.readTree(get(store, "group1/big_chunks/zarr.json", ByteRange.ALL));
    assertEquals("array", array.get("node_type").asText());
    assertEquals("[10,10]", array.get("shape").toString());
  }

  @Test
  void readsRangesFromStartAndSuffixes() {
    String key = "group1/big_chunks/c/0/1";
    assertArrayEquals(Arrays.copyOfRange(chunk, 3, 13), get(store, key, ByteRange.of(3, 10)));
    assertArrayEquals(
        Arrays.copyOfRange(chunk, chunk.length - 5, chunk.length),
        get(store, key, ByteRange.suffix(5)));
    assertArrayEquals(new byte[0], get(store, key, ByteRange.of(chunk.length, 0)));
    byte[] inline = get(store, "group1/small_chunks/c/2", ByteRange.ALL);
    assertArrayEquals(
        Arrays.copyOfRange(inline, 2, 6),
        get(store, "group1/small_chunks/c/2", ByteRange.of(2, 4)));
    byte[] meta = store.getBytes("zarr.json").orElseThrow();
    assertArrayEquals(Arrays.copyOfRange(meta, 1, 9), get(store, "zarr.json", ByteRange.of(1, 8)));
  }

  @Test
  void readsSeveralRangesOfOneValue() {
    for (String key : List.of("group1/big_chunks/c/1/0", "group1/small_chunks/c/3")) {
      byte[] all = store.getBytes(key).orElseThrow();
      List<ByteRange.FromStart> ranges =
          List.of(range(5, 4), range(0, 3), range(2, 3), range(all.length - 1, 1), range(4, 0));
      List<ArrowBuf> got = store.getRanges(key, ranges, allocator).orElseThrow();
      try {
        assertEquals(ranges.size(), got.size());
        for (int i = 0; i < ranges.size(); i++) {
          ByteRange.FromStart r = ranges.get(i);
          byte[] b = new byte[(int) got.get(i).writerIndex()];
          got.get(i).getBytes(0, b);
          assertArrayEquals(
              Arrays.copyOfRange(all, (int) r.offset(), (int) (r.offset() + r.length())),
              b,
              key + r);
        }
      } finally {
        got.forEach(ArrowBuf::close);
      }
    }
    assertEquals(
        Optional.empty(),
        store.getRanges("group1/big_chunks/c/7/7", List.of(range(0, 1)), allocator));
    StoreException e =
        assertThrows(
            StoreException.class,
            () ->
                store.getRanges(
                    "group1/big_chunks/c/0/1", List.of(range(0, 2), range(15, 10)), allocator));
    assertTrue(e.getMessage().contains("group1/big_chunks/c/0/1"), e.getMessage());
  }

  private static ByteRange.FromStart range(long offset, long length) {
    return (ByteRange.FromStart) ByteRange.of(offset, length);
  }

  @Test
  void rangesPastTheEndAreErrorsNamingTheKey() {
    for (String key : List.of("group1/big_chunks/c/0/1", "group1/small_chunks/c/0", "zarr.json")) {
      StoreException e =
          assertThrows(
              StoreException.class, () -> store.get(key, ByteRange.of(5, 1000), allocator));
      assertTrue(e.getMessage().contains(key), e.getMessage());
      assertThrows(StoreException.class, () -> store.get(key, ByteRange.suffix(1000), allocator));
    }
  }

  @Test
  void absentKeysAreEmpty() {
    for (String key :
        List.of(
            "nope",
            "group1/big_chunks/c/9/9",
            "group1/big_chunks/c/0",
            "group1/big_chunks/c/0/0/0",
            "group1/big_chunks/c/00/1",
            "group1/big_chunks/c/-1/1",
            "group1/big_chunks/c/0/99999999999",
            "group1/zarr.jsonx",
            "group1/small_chunks/c/5",
            "group1/nope/zarr.json",
            "c/0",
            "group1/c/0",
            "group1/big_chunks/c",
            "group1/big_chunks/d/0/0")) {
      assertEquals(Optional.empty(), store.get(key, ByteRange.ALL, allocator), key);
      assertEquals(Optional.empty(), store.getBytes(key), key);
    }
  }

  @Test
  void refusesKeysThatLeaveTheStore() {
    for (String key :
        List.of("../etc/passwd", "group1/../../x", "/zarr.json", "group1/./zarr.json")) {
      StoreException e =
          assertThrows(StoreException.class, () -> store.get(key, ByteRange.ALL, allocator), key);
      assertTrue(e.getMessage().contains(key), e.getMessage());
      assertThrows(StoreException.class, () -> store.getBytes(key), key);
    }
  }

  @Test
  void asyncGetsMatchSyncGetsAndConcurrentReadsAreIndependent() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      var futures =
          KEYS.stream().map(k -> store.getAsync(k, ByteRange.ALL, allocator, pool)).toList();
      for (int i = 0; i < KEYS.size(); i++) {
        try (ArrowBuf buf = futures.get(i).get().orElseThrow()) {
          byte[] got = new byte[(int) buf.writerIndex()];
          buf.getBytes(0, got);
          assertArrayEquals(store.getBytes(KEYS.get(i)).orElseThrow(), got, KEYS.get(i));
        }
      }
      assertEquals(
          Optional.empty(), store.getAsync("nope/c/0", ByteRange.ALL, allocator, pool).get());
      List<Future<byte[]>> many = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        String key = KEYS.get(i % 4);
        int off = i % 9;
        many.add(pool.submit(() -> get(store, key, ByteRange.of(off, 10))));
      }
      for (int i = 0; i < 64; i++) {
        assertArrayEquals(Arrays.copyOfRange(chunk, i % 9, i % 9 + 10), many.get(i).get());
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void describesTheRepositoryRefAndSnapshot() throws Exception {
    assertTrue(
        store.describe().contains("test-repo-v2") && store.describe().contains(FILL_DATA),
        store.describe());
    try (Store s = Stores.open("icechunk://" + repo("test-repo-v1") + "?tag=it%20works!")) {
      assertTrue(
          s.describe().contains("tag 'it works!'") && s.describe().contains("4QF8JA0YPDN51MHSSYVG"),
          s.describe());
    }
  }

  // ---- bad input ----

  private static ErrorKind assertMessage(String location, String... parts) {
    ZaroException e =
        assertThrows(ZaroException.class, () -> Stores.open(location).close(), location);
    for (String p : parts) {
      assertTrue(e.getMessage().contains(p), "'" + p + "' not in: " + e.getMessage());
    }
    return e.kind();
  }

  @Test
  void unknownBranchesAndTagsAreNamedWithTheKnownOnes() {
    for (String r : List.of("test-repo-v1", "test-repo-v2")) {
      String loc = "icechunk://" + repo(r);
      assertEquals(
          ErrorKind.NOT_FOUND,
          assertMessage(loc + "?branch=nope", "no branch 'nope'", "branches: main, my-branch"));
      assertMessage(loc + "?tag=nope", "no tag 'nope'", "it also works!, it works!");
      assertEquals(
          ErrorKind.NOT_FOUND, assertMessage(loc + "?tag=deleted", "tag 'deleted' was deleted"));
    }
    assertMessage(
        "icechunk://" + repo("expire-repo-v2-by-2.0.5") + "?branch=doomed1",
        "no branch 'doomed1'",
        "branches: feature, main");
    assertMessage(
        "icechunk://" + repo("expire-repo-v1-by-1.1.21") + "?branch=doomed2",
        "no branch 'doomed2'",
        "branches: feature, main");
    assertMessage("icechunk://" + repo("split-repo-v1") + "?tag=x", "no tag 'x'", "it has no tags");
    assertMessage("icechunk://" + repo("test-repo-v1") + "?branch=a/b", "not a valid branch name");
  }

  @Test
  void snapshotIdsMustBeWellFormedAndExist() {
    String loc = "icechunk://" + repo("test-repo-v2") + "?snapshot=";
    assertEquals(
        ErrorKind.INVALID_ARGUMENT,
        assertMessage(loc + "xyz", "'xyz' is not an Icechunk snapshot id"));
    assertMessage(loc + "ZA24GZGPNK3GH682Q1RU", "not a Crockford base 32 character");
    assertMessage(loc + "ZA24GZGPNK3GH682Q1R1", "padding bits");
    assertEquals(
        ErrorKind.NOT_FOUND,
        assertMessage(loc + "ZZZZZZZZZZZZZZZZZZZ0", "has no snapshot ZZZZZZZZZZZZZZZZZZZ0"));
    try (Store s = Stores.open(loc + FILL_DATA.toLowerCase(Locale.ROOT))) {
      assertTrue(s.describe().contains(FILL_DATA));
    }
  }

  @Test
  void badLocationsAndOptionsAreRefused() throws Exception {
    String loc = "icechunk://" + repo("test-repo-v2");
    assertMessage(loc + "?branch=main&tag=x", "one of branch=, tag= or snapshot=");
    assertEquals(
        ErrorKind.INVALID_ARGUMENT,
        assertMessage(loc + "?colour=blue", "unknown option 'colour=blue'"));
    assertMessage(loc + "?branch=", "'branch' needs a value");
    assertMessage(loc + "?branch=%zz", "bad escape");
    assertMessage("icechunk://", "no repository given");
    assertMessage("icechunk://" + tmp.resolve("missing"), "no Icechunk repository there");
    assertMessage("icechunk://" + tmp, "is not an Icechunk repository");
    assertMessage("icechunk+ftp://host/x", "unknown scheme");
  }

  /** A copy of fixture repository {@code name} to damage. */
  private Path copy(String name) throws Exception {
    return Fixtures.copyTree(repo(name), tmp.resolve(name));
  }

  /** Rewrites an Icechunk file's decompressed body (the header is kept). */
  static void rewriteBody(Path file, Function<byte[], byte[]> change) throws Exception {
    byte[] f = Files.readAllBytes(file);
    byte[] header = Arrays.copyOf(f, IcechunkFile.HEADER_LENGTH);
    byte[] body = Zstd.decompress(Arrays.copyOfRange(f, header.length, f.length), 1 << 20);
    byte[] compressed = Zstd.compress(change.apply(body));
    byte[] out = Arrays.copyOf(header, header.length + compressed.length);
    System.arraycopy(compressed, 0, out, header.length, compressed.length);
    Files.write(file, out);
  }

  @Test
  void aRefPointingNowhereOrBrokenIsAClearError() throws Exception {
    Path r = copy("test-repo-v1");
    Files.writeString(
        r.resolve("refs/branch.main/ref.json"), "{\"snapshot\":\"ZZZZZZZZZZZZZZZZZZZ0\"}");
    assertEquals(
        ErrorKind.CORRUPT,
        assertMessage(
            "icechunk://" + r,
            "has no snapshot ZZZZZZZZZZZZZZZZZZZ0",
            "snapshots/ZZZZZZZZZZZZZZZZZZZ0"));
    Files.writeString(r.resolve("refs/branch.main/ref.json"), "{\"snapshot\":");
    assertMessage(
        "icechunk://" + r, "corrupt Icechunk ref file 'refs/branch.main/ref.json'", "not JSON");
    Files.writeString(r.resolve("refs/branch.main/ref.json"), "{\"snap\": 1}");
    assertMessage("icechunk://" + r, "no \"snapshot\" string");
    Files.writeString(r.resolve("refs/branch.main/ref.json"), "{\"snapshot\":\"nonsense\"}");
    assertEquals(
        ErrorKind.CORRUPT,
        assertMessage("icechunk://" + r, "corrupt Icechunk ref file", "'nonsense'"));
    Files.delete(r.resolve("snapshots/XDZ162T1TYBEJMK99NPG"));
    assertMessage("icechunk://" + r + "?branch=my-branch", "has no snapshot XDZ162T1TYBEJMK99NPG");
  }

  @Test
  void unsupportedFormatVersionsAreNamed() throws Exception {
    Path r2 = copy("test-repo-v2");
    byte[] repoFile = Files.readAllBytes(r2.resolve("repo"));
    repoFile[36] = 3;
    Files.write(r2.resolve("repo"), repoFile);
    assertEquals(
        ErrorKind.UNSUPPORTED,
        assertMessage(
            "icechunk://" + r2,
            "'repo' has Icechunk format version 3",
            "zaro reads versions 1 and 2"));
    Path r1 = copy("test-repo-v1");
    Path snap = r1.resolve("snapshots/NXH3M0HJ7EEJ0699DPP0");
    byte[] s = Files.readAllBytes(snap);
    s[36] = 0;
    Files.write(snap, s);
    assertMessage(
        "icechunk://" + r1, "'snapshots/NXH3M0HJ7EEJ0699DPP0' has Icechunk format version 0");
  }

  @Test
  void foreignTruncatedAndDamagedFilesAreClearErrors() throws Exception {
    Path r = copy("test-repo-v1");
    Path snap = r.resolve("snapshots/NXH3M0HJ7EEJ0699DPP0");
    byte[] good = Files.readAllBytes(snap);
    String loc = "icechunk://" + r;

    Files.write(snap, Arrays.copyOf(good, good.length / 2));
    assertEquals(
        ErrorKind.CORRUPT,
        assertMessage(
            loc, "corrupt Icechunk file 'snapshots/NXH3M0HJ7EEJ0699DPP0'", "damaged or truncated"));
    Files.write(snap, Arrays.copyOf(good, 20));
    assertMessage(loc, "'snapshots/NXH3M0HJ7EEJ0699DPP0'", "shorter than the 39-byte header");
    Files.writeString(snap, "{\"this is\": \"JSON, not an Icechunk snapshot\"}");
    assertMessage(loc, "'snapshots/NXH3M0HJ7EEJ0699DPP0' is not an Icechunk file");
    Files.copy(
        r.resolve("manifests/Q04J7QW5RQ8D17TPA10G"), snap, StandardCopyOption.REPLACE_EXISTING);
    assertMessage(loc, "is an Icechunk manifest file where a snapshot file was expected");
    Files.copy(
        r.resolve("snapshots/7XAF0Q905SH4938DN9CG"), snap, StandardCopyOption.REPLACE_EXISTING);
    assertMessage(loc, "it holds snapshot 7XAF0Q905SH4938DN9CG, not NXH3M0HJ7EEJ0699DPP0");
    Files.write(snap, good);
    rewriteBody(
        snap,
        body -> {
          body[0] = (byte) 0xf0; // the root table offset now points past the end
          body[3] = 0x7f;
          return body;
        });
    assertEquals(
        ErrorKind.CORRUPT,
        assertMessage(
            loc, "corrupt Icechunk file 'snapshots/NXH3M0HJ7EEJ0699DPP0'", "past the end"));
    Files.write(snap, good);
    rewriteBody(
        snap,
        body -> {
          body[5] = 'X'; // not the Ichk identifier
          return body;
        });
    assertMessage(loc, "lacks the FlatBuffers identifier 'Ichk'");
  }

  @Test
  void missingAndDamagedManifestsAndChunksFailTheReadNamingThem() throws Exception {
    Path r = copy("test-repo-v2");
    String loc = "icechunk://" + r + "?snapshot=" + FILL_DATA;
    try (Zaro zaro = Zaro.open(loc)) {
      try (Slab slab = zaro.read("group1/big_chunks", "", allocator)) {
        assertEquals(42f, slab.data().getFloat(0));
      }
    }
    // a chunk file gone, or shorter than its reference says
    Path chunkFile = r.resolve("chunks/S7RX4P9PYQ67530ZW0V0");
    List<String> chunkFiles;
    try (var files = Files.list(r.resolve("chunks"))) {
      chunkFiles = files.map(p -> p.getFileName().toString()).sorted().toList();
    }
    Files.delete(chunkFile);
    try (Zaro zaro = Zaro.open(loc)) {
      ZaroException e =
          assertThrows(
              ZaroException.class, () -> zaro.read("group1/big_chunks", "", allocator).close());
      assertTrue(
          e.getMessage().contains("chunks/S7RX4P9PYQ67530ZW0V0")
              && e.getMessage().contains("does not exist"),
          e.getMessage());
    }
    Files.write(chunkFile, Arrays.copyOf(chunk, 7));
    try (IcechunkStore s = IcechunkStore.open(loc)) {
      long failed =
          KEYS.subList(0, 4).stream()
              .filter(
                  k -> {
                    try {
                      s.get(k, ByteRange.ALL, allocator).orElseThrow().close();
                      return false;
                    } catch (StoreException e) {
                      assertTrue(
                          e.getMessage().contains(k)
                              && e.getMessage().contains("S7RX4P9PYQ67530ZW0V0"),
                          e.getMessage());
                      return true;
                    }
                  })
              .count();
      assertEquals(1, failed, chunkFiles.toString());
    }
    // the manifest of big_chunks truncated, then gone: opening works (manifests load on demand)
    Files.write(chunkFile, chunk);
    Path manifests = r.resolve("manifests");
    List<Path> all;
    try (var files = Files.list(manifests)) {
      all = files.sorted().toList();
    }
    for (Path m : all) {
      Files.write(m, Arrays.copyOf(Files.readAllBytes(m), 60));
    }
    try (IcechunkStore s = IcechunkStore.open(loc)) {
      StoreException e =
          assertThrows(StoreException.class, () -> s.getBytes("group1/big_chunks/c/0/0"));
      assertTrue(
          e.getMessage().contains("corrupt Icechunk file 'manifests/")
              && e.getMessage().contains("truncated"),
          e.getMessage());
      assertEquals(List.of("group1/zarr.json"), s.list("group1/z").toList());
      assertThrows(StoreException.class, () -> s.list("").toList());
    }
    for (Path m : all) {
      Files.delete(m);
    }
    try (IcechunkStore s = IcechunkStore.open(loc)) {
      StoreException e =
          assertThrows(StoreException.class, () -> s.getBytes("group1/small_chunks/c/0"));
      assertTrue(
          e.getMessage().contains("has no manifest") && e.getMessage().contains("manifests/"),
          e.getMessage());
    }
  }

  /**
   * Bytes changed at random in a snapshot, a manifest and a repo info body: opening and reading
   * either works or fails with a {@link ZaroException}, never anything else.
   */
  @Test
  void damagedBodiesNeverEscapeAsOtherExceptions() throws Exception {
    Random random = new Random(42);
    Path r = copy("test-repo-v2");
    List<Path> files =
        List.of(
            r.resolve("repo"),
            r.resolve("snapshots/QTP2RTYS5YQW8RPSQ93G"),
            r.resolve("manifests/RZ09HJ4CVB3KZWKAJFX0"),
            r.resolve("manifests/WTMRMCW414QYFTX7JJPG"));
    int failures = 0;
    for (Path f : files) {
      byte[] good = Files.readAllBytes(f);
      for (int i = 0; i < 60; i++) {
        rewriteBody(
            f,
            body -> {
              for (int k = 0; k < 3; k++) {
                body[random.nextInt(body.length)] = (byte) random.nextInt(256);
              }
              return body;
            });
        try (IcechunkStore s = IcechunkStore.open("icechunk://" + r + "?tag=it%20works!")) {
          for (String key : s.list("").toList()) {
            if (!key.equals("group1/big_chunks/c/0/0")) { // virtual, at s3://: an error anyway
              s.get(key, ByteRange.ALL, allocator).ifPresent(ArrowBuf::close);
            }
          }
        } catch (ZaroException e) {
          failures++;
        }
        Files.write(f, good);
      }
    }
    assertTrue(failures > 0, "no damage was noticed");
  }
}
