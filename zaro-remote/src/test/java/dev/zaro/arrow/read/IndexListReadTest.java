package dev.zaro.arrow.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.error.SelectionException;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.plan.ReadPlan;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.store.TestHttpServer;
import dev.zaro.arrow.vector.TableReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Index lists (numpy's outer indexing) read only the chunks that hold a listed index, each once.
 * Values are checked against numpy's {@code a[np.ix_(...)]} by {@link FixtureReadTest} (the
 * testdata/outer set); the chunk counts here follow from the chunk grids by hand.
 */
class IndexListReadTest extends AllocatorTest {

  private static String store(String set, String name) {
    return Fixtures.testdata().resolve(set + "/stores/" + name + ".zarr").toString();
  }

  private ReadStats read(Zaro zaro, String slice, long[] shape) {
    ReadStats stats = new ReadStats();
    try (Slab slab =
        zaro.read("", slice, allocator, new ReadOptions(ReadOptions.Progress.NONE, stats))) {
      assertArrayEquals(shape, slab.shape(), slice);
      long elements = 1;
      for (long n : shape) {
        elements *= n;
      }
      // the slab holds the selected elements only
      assertEquals(elements * slab.dataType().byteSize(), slab.byteSize(), slice);
    }
    return stats;
  }

  /**
   * gzip: chunks (7, 6) of a 30 x 20 array, the last row of chunks (rows 28-29) never written (all
   * fill); sparse_interior: chunks (6, 5), those of rows 1-3 and columns 2-4 never written;
   * end_zstd: shards (10, 16) of inner chunks (5, 4), the inner chunks of rows 25-29 and columns
   * 36-40 absent from the shard indexes (read as the fill value, not counted as missing chunks).
   */
  @ParameterizedTest(name = "{0}/{1} [{2}]")
  @CsvSource(
      delimiter = ';',
      value = {
        // rows 0, 29 in chunks 0, 4 (4 missing); columns 0, 7, 19 in chunks 0, 1, 3
        "core; gzip; [0,29], [0,7,19]; 2,3; 3; 3; 6; 0:30, 0:20; 16; 4",
        // rows 14, 3, 3, 29: chunks 2, 0, 4; columns 2..14 step 3: chunks 0, 1, 2
        "core; gzip; [14,3,3,-1], 2:17:3; 4,5; 6; 3; 9; 3:30, 2:17:3; 12; 3",
        // duplicates of one chunk's indices: one chunk, decoded once
        "core; gzip; [3,3,3,4], [5,5]; 4,2; 1; 0; 1; 3:5, 5:6; 1; 0",
        // rows in chunks 0, 1, 3, 6; columns in chunks 0, 2, 5: chunks (1, 2) and (3, 2) missing
        "core; sparse_interior; [0,7,20,39], [0,12,13,29]; 4,4; 10; 2; 12; 0:40, 0:30; 33; 9",
        // inner chunks: rows 0, 29 in 0, 5 (absent); columns 0, 20, 40 in 0, 5, 10 (absent)
        "sharding; end_zstd; [0,29], [0,20,40]; 2,3; 2; 0; 6; 0:30, 0:41; 45; 0",
        // rows 12, 11, 10 (inner 2), 19 (3), 0 (0); columns 33 (8), 31 (7), 15 (3)
        "sharding; end_zstd; [12,11,10,19,0], [33,31,15]; 5,3; 9; 0; 6; 0:20, 15:34; 24; 0",
      })
  void decodesOnlyTheChunksHoldingTheIndices(
      String set,
      String name,
      String slice,
      String shape,
      long decoded,
      long missing,
      long planned,
      String box,
      long boxDecoded,
      long boxMissing) {
    long[] want = Arrays.stream(shape.split(",")).mapToLong(Long::parseLong).toArray();
    for (int threads : new int[] {1, 3}) {
      try (Zaro zaro = Zaro.open(store(set, name), ZaroOptions.defaults().withThreads(threads))) {
        ReadStats list = read(zaro, slice, want);
        assertEquals(decoded, list.chunksDecoded(), "chunks decoded: " + list);
        assertEquals(missing, list.chunksMissing(), "chunks missing: " + list);
        long[] arrayShape = zaro.meta("").shape();
        // the plan counts the stored objects (shards, when sharded) the lists touch
        assertEquals(
            planned,
            ReadPlan.of(zaro.meta(""), Selection.parse(slice, arrayShape)).chunkCount(),
            "planned chunks");
        Selection b = Selection.parse(box, arrayShape);
        ReadStats bounding = read(zaro, box, b.resultShape());
        assertEquals(boxDecoded, bounding.chunksDecoded(), "bounding box: " + bounding);
        assertEquals(boxMissing, bounding.chunksMissing(), "bounding box: " + bounding);
        assertTrue(
            list.bytesFetched() < bounding.bytesFetched() || boxDecoded == decoded,
            list + " vs " + bounding);
      }
    }
  }

  /**
   * The testdata/outer reads of fixed-size values: case path, store, array path, slice, expected.
   */
  static Stream<Arguments> outerReads() throws IOException {
    Path dir = Fixtures.testdata().resolve("outer");
    List<Arguments> out = new ArrayList<>();
    for (JsonNode c : Json.readTree(Files.readAllBytes(dir.resolve("cases.json"))).get("cases")) {
      for (JsonNode r : c.get("reads")) {
        if (!r.get("expected").asText().endsWith(".json")) {
          out.add(
              Arguments.of(
                  c.get("name").asText() + "[" + r.get("slice").asText() + "]",
                  dir.resolve(c.get("store").asText()).normalize(),
                  c.get("path").asText(),
                  r.get("slice").asText(),
                  dir.resolve(r.get("expected").asText())));
        }
      }
    }
    return out.stream();
  }

  /**
   * Over HTTP (a remote store: chunks and shards fetched ahead of the decoders, each task's buffer
   * made at its fetch; on the second read the shard indexes are cached and whole shards stream),
   * the values equal numpy's {@code a[np.ix_]}.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("outerReads")
  void remoteReadsEqualNumpy(String name, Path store, String path, String slice, Path expected)
      throws IOException {
    byte[] want = Files.readAllBytes(expected);
    Path testdata = Fixtures.testdata();
    try (TestHttpServer server = new TestHttpServer(testdata);
        Zaro zaro =
            Zaro.open(
                server.url(testdata.relativize(store).toString().replace('\\', '/')).toString(),
                ZaroOptions.defaults().withThreads(2).withIoConcurrency(4))) {
      for (int read = 0; read < 2; read++) {
        try (Slab slab = zaro.read(path, slice, allocator)) {
          byte[] got = new byte[(int) slab.byteSize()];
          slab.data().getBytes(0, got);
          assertArrayEquals(want, got, name + ", read " + read);
        }
      }
    }
  }

  /**
   * With a chunk cache, a list read's second pass copies every chunk from the cache into the task
   * buffers (no miss: nothing is decoded again), and the values stay numpy's {@code a[np.ix_]}.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("outerReads")
  void cachedReadsEqualNumpy(String name, Path store, String path, String slice, Path expected)
      throws IOException {
    byte[] want = Files.readAllBytes(expected);
    try (Zaro zaro =
        Zaro.open(
            store.toString(), ZaroOptions.defaults().withThreads(2).withCacheMemory(64 << 20))) {
      for (int read = 0; read < 2; read++) {
        ChunkCache.Stats before = zaro.cache().stats();
        try (Slab slab = zaro.read(path, slice, allocator)) {
          byte[] got = new byte[(int) slab.byteSize()];
          slab.data().getBytes(0, got);
          assertArrayEquals(want, got, name + ", read " + read);
        }
        ChunkCache.Stats after = zaro.cache().stats();
        if (read == 1
            && zaro.meta(path).codecs().stream().noneMatch(c -> c.name().startsWith("sharding"))) {
          assertEquals(before.misses(), after.misses(), name + ": misses on the second read");
        }
      }
    }
  }

  /**
   * A corrupt chunk fails a list read naming its key, and every task buffer is freed (the test's
   * allocator closes with nothing leaked), whichever tasks had made theirs.
   */
  @Test
  void aFailedListReadFreesItsTaskBuffers(@TempDir Path dir) throws IOException {
    Path copy = dir.resolve("gzip.zarr");
    Path from = Fixtures.testdata().resolve("core/stores/gzip.zarr");
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : files.toList()) {
        Path to = copy.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else {
          Files.copy(f, to);
        }
      }
    }
    Files.write(copy.resolve("c/3/1"), new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
    for (int threads : new int[] {1, 3}) {
      try (Zaro zaro = Zaro.open(copy.toString(), ZaroOptions.defaults().withThreads(threads))) {
        CodecException e =
            assertThrows(
                CodecException.class,
                () -> zaro.read("", "[0,8,15,22,29], [19,7,0]", allocator).close());
        assertTrue(e.getMessage().contains("c/3/1"), e.getMessage());
      }
    }
  }

  @ParameterizedTest(name = "''{0}''")
  @CsvSource(
      delimiter = ';',
      value = {
        "[0,30]; dimension 0; index 30",
        "[0,-31]; dimension 0; index -31",
        "0, [5,20]; dimension 1; index 20",
        "[1,,2]; dimension 0; empty item 1",
        "[1,x]; dimension 0; is not an integer",
        "[0, 1; selection; without its",
        "0], 1; selection; without its",
        "1:[2]; dimension 0; index list",
        "[[1]]; selection; nested",
      })
  void badListsAreTypedErrorsNamingTheDimensionAndIndex(String slice, String where, String what) {
    try (Zaro zaro = Zaro.open(store("core", "gzip"), ZaroOptions.defaults())) {
      SelectionException e =
          assertThrows(SelectionException.class, () -> zaro.read("", slice, allocator).close());
      assertTrue(e.getMessage().contains(where) && e.getMessage().contains(what), e.getMessage());
    }
  }

  /**
   * The table layout of the sample's t2m with index lists: one row per element in C order, the
   * dimension columns the coordinates of the listed indices, the values numpy's {@code a[np.ix_]};
   * every expected value from testdata/outer (tensorstore's read, numpy's indexing).
   */
  @Test
  void tableLayoutGivesTheListedCoordinates() throws IOException {
    Path expected = Fixtures.testdata().resolve("outer/expected");
    double[] time = doubles(expected.resolve("sample_time.0.bin"));
    double[] lat = doubles(expected.resolve("sample_lat.0.bin"));
    double[] lon = doubles(expected.resolve("sample_lon.0.bin"));
    ByteBuffer t2m =
        ByteBuffer.wrap(Files.readAllBytes(expected.resolve("sample_t2m.0.bin")))
            .order(ByteOrder.LITTLE_ENDIAN);
    try (Zaro zaro = Zaro.open(Fixtures.testdata().resolve("sample/climate.zarr").toString());
        TableReader reader =
            zaro.readTable(
                "t2m",
                "[47,0,13], [72,0], [143,5,6]",
                allocator,
                TableOptions.DEFAULT.withCf(false),
                ReadOptions.DEFAULT)) {
      int row = 0;
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int i = 0; i < root.getRowCount(); i++, row++) {
          assertEquals(time[row / 6], ((Float8Vector) root.getVector("time")).get(i), "time");
          assertEquals(lat[row / 3 % 2], ((Float8Vector) root.getVector("lat")).get(i), "lat");
          assertEquals(lon[row % 3], ((Float8Vector) root.getVector("lon")).get(i), "lon");
          assertEquals(
              Float.floatToRawIntBits(t2m.getFloat(row * 4)),
              Float.floatToRawIntBits(((Float4Vector) root.getVector("t2m")).get(i)),
              "t2m row " + row);
        }
      }
      assertEquals(18, row);
    }
  }

  private static double[] doubles(Path file) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
    double[] out = new double[b.remaining() / 8];
    b.asDoubleBuffer().get(out);
    return out;
  }
}
