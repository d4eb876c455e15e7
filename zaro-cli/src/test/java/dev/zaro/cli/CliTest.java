package dev.zaro.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.store.TestHttpServer;
import dev.zaro.arrow.vector.FixedShapeTensorType;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ConnectException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.ExtensionTypeVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The CLI contract (docs/cli.md, "Commands"), run in-process. */
class CliTest extends AllocatorTest {
  @TempDir Path dir;

  record Result(int code, String out, String err) {}

  static Result run(String... args) {
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      int code = Main.run(args);
      return new Result(
          code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
  }

  static Path sharding(String name) {
    return Fixtures.testdata().resolve("sharding/stores/" + name + ".zarr");
  }

  static Stream<Arguments> shardingReads() throws Exception {
    JsonNode cases = Json.readTree(Fixtures.testdata().resolve("sharding/cases.json").toFile());
    return StreamSupport.stream(cases.get("cases").spliterator(), false)
        .flatMap(
            c ->
                StreamSupport.stream(c.get("reads").spliterator(), false)
                    .map(
                        r ->
                            Arguments.of(
                                c.get("name").asText(),
                                c.get("store").asText(),
                                r.get("slice").asText(),
                                Json.convertValue(r.get("shape"), long[].class),
                                r.get("expected").asText())));
  }

  /**
   * `zaro read` writes an IPC file whose values equal tensorstore's (read back with Arrow Java).
   */
  @ParameterizedTest(name = "{0} [{2}]")
  @MethodSource("shardingReads")
  void readWritesTheSelectionAsArrowIpc(
      String name, String store, String slice, long[] shape, String expected) throws Exception {
    Path out = dir.resolve(name + ".arrow");
    Path storePath = Fixtures.testdata().resolve("sharding").resolve(store);
    Result r = run("read", storePath.toString(), "/", "--slice", slice, "--out", out.toString());
    assertEquals(0, r.code(), r.err());
    byte[] want = Files.readAllBytes(Fixtures.testdata().resolve("sharding").resolve(expected));
    FixedShapeTensorType.register();
    try (FileChannel ch = FileChannel.open(out);
        ArrowFileReader reader = new ArrowFileReader(ch, allocator)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      long rows = 0;
      while (reader.loadNextBatch()) {
        FieldVector v = root.getVector(0);
        assertEquals("data", v.getName());
        FieldVector values =
            v instanceof FixedSizeListVector l
                ? l.getDataVector()
                : v instanceof ExtensionTypeVector<?> e
                    ? ((FixedSizeListVector) e.getUnderlyingVector()).getDataVector()
                    : v;
        int width = ((BaseFixedWidthVector) values).getTypeWidth();
        byte[] b = new byte[values.getValueCount() * width];
        values.getDataBuffer().getBytes(0, b);
        got.write(b);
        rows += v.getValueCount();
        if (shape.length >= 2) {
          assertTrue(
              v.getField().getType() instanceof FixedShapeTensorType, v.getField().toString());
        }
      }
      assertEquals(shape.length == 0 ? 1 : shape[0], rows);
      assertArrayEquals(want, got.toByteArray());
    }
  }

  /** Start-up work ahead of picocli: only for the commands that open a store, on a daemon. */
  @Test
  void workAheadStartsOnlyForCommandsThatOpenAStore() throws Exception {
    for (String[] args :
        new String[][] {{}, {"--version"}, {"--help"}, {"help", "read"}, {"nonsense"}}) {
      assertNull(Main.startAhead(args), String.join(" ", args));
    }
    for (String command : List.of("ls", "info", "read", "bench", "serve")) {
      Thread ahead = Main.startAhead(command, "STORE");
      assertNotNull(ahead, command);
      assertTrue(ahead.isDaemon(), "never keeps the process alive");
      ahead.join();
    }
    // and a command run after it (in the same JVM) is not disturbed
    Result r = run("ls", sharding("end_zstd").toString());
    assertEquals(0, r.code(), r.err());
  }

  @Test
  void errorsExitNonZeroNameTheProblemAndWriteNothing() throws Exception {
    Path out = dir.resolve("x.arrow");
    String store = sharding("end_zstd").toString();
    String[][] cases = {
      {"read", store, "/nope", "--out", out.toString()},
      {"read", store, "/", "--slice", "0:99", "--out", out.toString()},
      {"read", store, "/", "--slice", "a", "--out", out.toString()},
      {"read", dir.resolve("missing").toString(), "/", "--out", out.toString()},
      {"read", store, "/", "--layout", "cube", "--out", out.toString()}
    };
    String[] messages = {
      "no array or group at '/nope'",
      "stop 99 is out of range",
      "'a' is not an integer",
      "no such directory",
      "--layout cube"
    };
    for (int i = 0; i < cases.length; i++) {
      Result r = run(cases[i]);
      assertEquals(1, r.code(), String.join(" ", cases[i]));
      assertTrue(r.err().contains("zaro: error: ") && r.err().contains(messages[i]), r.err());
      assertFalse(r.err().contains("\tat "), "no stack traces for user errors: " + r.err());
      assertFalse(Files.exists(out), "no --out file after an error");
      try (Stream<Path> files = Files.list(dir)) {
        assertEquals(0, files.count(), "no temporary files left behind");
      }
    }
  }

  /**
   * A 40 TB float32 array of metadata alone: `zaro read --out` of all of it is refused before
   * anything is read or written (more than the disk holds), naming both sizes; a slice of it
   * streams in batches of at most --batch-bytes (two rows of 40 KB), every value the fill value.
   */
  @Test
  void aFortyTerabyteArrayIsRefusedAndItsSlicesStream() throws Exception {
    Path store = Files.createDirectories(dir.resolve("big.zarr"));
    Files.writeString(
        store.resolve("zarr.json"),
        "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[100000,100000,1000],"
            + "\"data_type\":\"float32\",\"chunk_grid\":{\"name\":\"regular\","
            + "\"configuration\":{\"chunk_shape\":[10,1000,1000]}},"
            + "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":7,"
            + "\"codecs\":[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}]}");
    Path out = dir.resolve("big.arrow");
    Result r = run("read", store.toString(), "/", "--out", out.toString());
    assertEquals(1, r.code(), r.err());
    assertTrue(r.err().contains("needs about 4000") && r.err().contains("bytes free"), r.err());
    assertFalse(r.err().contains("\tat "), r.err());
    assertFalse(r.err().contains("OutOfMemoryError"), r.err());
    assertFalse(Files.exists(out));
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(1, files.count(), "only the store: no temporary file left");
    }
    r =
        run(
            "read",
            store.toString(),
            "/",
            "--slice",
            "0:25, 0:10, :",
            "--batch-bytes",
            "100k",
            "--out",
            out.toString());
    assertEquals(0, r.code(), r.err());
    try (FileChannel ch = FileChannel.open(out);
        ArrowFileReader reader = new ArrowFileReader(ch, allocator)) {
      long rows = 0;
      int batches = 0;
      while (reader.loadNextBatch()) {
        FieldVector v = reader.getVectorSchemaRoot().getVector(0);
        assertTrue(v.getValueCount() <= 2, "at most 100 KiB a batch");
        Float4Vector values =
            (Float4Vector)
                ((FixedSizeListVector) ((ExtensionTypeVector<?>) v).getUnderlyingVector())
                    .getDataVector();
        for (int i = 0; i < values.getValueCount(); i += 101) {
          assertEquals(7f, values.get(i));
        }
        rows += v.getValueCount();
        batches++;
      }
      assertEquals(25, rows);
      assertEquals(13, batches);
    }
  }

  @Test
  void aCorruptChunkLeavesNoOutFile() throws Exception {
    Path copy = Fixtures.copyTree(sharding("end_zstd"), dir.resolve("copy.zarr"));
    byte[] shard = Files.readAllBytes(copy.resolve("c/1/1"));
    shard[shard.length - 50] ^= 0x10;
    Files.write(copy.resolve("c/1/1"), shard);
    Path out = dir.resolve("out.arrow");
    Result r = run("read", copy.toString(), "/", "--out", out.toString());
    assertEquals(1, r.code());
    assertTrue(r.err().contains("key 'c/1/1'") && r.err().contains("crc32c"), r.err());
    assertFalse(Files.exists(out));
  }

  /**
   * Over HTTP, which cannot list: an array at the root is listed; a group without consolidated
   * metadata is listed alone, with a warning that its children cannot be found.
   */
  @Test
  void lsOverHttpShowsTheRootAndSaysWhatItCannotList() throws Exception {
    Fixtures.copyTree(sharding("end_zstd"), dir.resolve("www/arr"));
    Files.createDirectories(dir.resolve("www/grp/child"));
    Files.writeString(
        dir.resolve("www/grp/zarr.json"), "{\"zarr_format\":3,\"node_type\":\"group\"}");
    Files.writeString(
        dir.resolve("www/grp/child/zarr.json"), "{\"zarr_format\":3,\"node_type\":\"group\"}");
    try (TestHttpServer server = new TestHttpServer(dir.resolve("www"))) {
      Result arr = run("ls", server.url("arr").toString());
      assertEquals(0, arr.code(), arr.err());
      assertTrue(arr.out().startsWith("/  array  "), arr.out());
      assertEquals("", arr.err());
      Result grp = run("ls", server.url("grp").toString());
      assertEquals(0, grp.code(), grp.err());
      assertEquals("/  group" + System.lineSeparator(), grp.out());
      assertTrue(grp.err().contains("cannot list its keys"), grp.err());
    }
  }

  @Test
  void lsAndInfo() throws Exception {
    Result ls = run("ls", sharding("transpose_then_shard").toString());
    assertEquals(0, ls.code(), ls.err());
    assertTrue(
        ls.out().contains("array  float64")
            && ls.out().contains("[20, 12]")
            && ls.out().contains("[transpose, sharding_indexed]"),
        ls.out());
    Result info = run("info", sharding("transpose_then_shard").toString(), "/");
    assertEquals(0, info.code(), info.err());
    JsonNode json = Json.readTree(info.out());
    assertEquals("array", json.get("node_type").asText());
    assertEquals("float64", json.get("data_type").asText());
    assertEquals("NaN", json.get("fill_value").asText());
    assertEquals(20, json.get("shape").get(0).asInt());
  }

  /**
   * DuckDB over zaro's Arrow streams: the aggregate equals one computed from tensorstore's values.
   */
  @Test
  void sqlAggregatesEqualTheFixtureValues() throws Exception {
    ByteBuffer want =
        ByteBuffer.wrap(
                Files.readAllBytes(Fixtures.testdata().resolve("sharding/expected/end_zstd.0.bin")))
            .order(ByteOrder.LITTLE_ENDIAN);
    long sum = 0;
    long count = 0;
    for (int i = 0; i < 30 * 41; i++) {
      int v = want.getInt(i * 4);
      if (i / 41 >= 10 && v > 100) {
        sum += v;
        count++;
      }
    }
    Path out = dir.resolve("sql.arrow");
    Result r =
        run(
            "sql",
            sharding("end_zstd").toString(),
            "select count(*) as n, sum(data) as s from data where dim_0 >= 10 and data > 100",
            "--out",
            out.toString());
    assertEquals(0, r.code(), r.err());
    try (FileChannel ch = FileChannel.open(out);
        ArrowFileReader reader = new ArrowFileReader(ch, allocator)) {
      assertTrue(reader.loadNextBatch());
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      assertEquals(count, ((Number) root.getVector("n").getObject(0)).longValue());
      assertEquals(sum, ((Number) root.getVector("s").getObject(0)).longValue());
    }
    Result printed = run("sql", sharding("end_zstd").toString(), "select count(*) as n from data");
    assertEquals(0, printed.code(), printed.err());
    assertTrue(printed.out().contains("1230"), printed.out());
    Result bad = run("sql", sharding("end_zstd").toString(), "select nope from data");
    assertEquals(1, bad.code());
    assertTrue(bad.err().contains("zaro: error: sql:") && bad.err().contains("nope"), bad.err());
  }

  /**
   * zaro sql runs each statement of a script; --timer prints DuckDB's 'Run Time (s): real' line
   * after each, --stats what each read (z < 0.3 is the first 3 of 16 z indices: 4 of 16 chunks).
   */
  @Test
  void sqlTimerAndStatsAfterEachStatement() throws Exception {
    Path grid = Fixtures.testdata().resolve("sql/grid.zarr");
    Result r =
        run(
            "sql",
            grid.toString(),
            "select count(*) as n from v where z < 0.3; select max(y) as m from v",
            "--timer",
            "--stats");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("360") && r.out().contains("100"), r.out());
    List<String> lines = r.err().lines().toList();
    assertEquals(4, lines.size(), r.err());
    assertTrue(lines.get(0).matches("Run Time \\(s\\): real \\d+\\.\\d{3}"), lines.get(0));
    assertTrue(lines.get(2).matches("Run Time \\(s\\): real \\d+\\.\\d{3}"), lines.get(2));
    var first = Json.readTree(lines.get(1));
    assertEquals("0:3:1, 0:12:1, 0:10:1", first.at("/tables/0/selection").asText());
    assertEquals(4, first.at("/tables/0/planned_chunks").asLong());
    var second = Json.readTree(lines.get(3));
    assertEquals("y", second.at("/tables/0/columns/0").asText());
    assertEquals(0, second.path("chunks").asLong());
  }

  /**
   * --out gets the same permissions as any new file (the user's umask), not a private temp file's.
   */
  @Test
  void outputFilesHaveOrdinaryPermissions() throws Exception {
    Path out = dir.resolve("perm.arrow");
    assertEquals(
        0, run("read", sharding("nested").toString(), "/", "--out", out.toString()).code());
    Path plain = Files.createFile(dir.resolve("plain"));
    assertEquals(Files.getPosixFilePermissions(plain), Files.getPosixFilePermissions(out));
  }

  @Test
  void everyCommandHasHelp() {
    for (String cmd : new String[] {"ls", "info", "read", "serve", "sql", "bench"}) {
      Result r = run(cmd, "--help");
      assertEquals(0, r.code(), cmd);
      assertTrue(r.out().contains("Usage: zaro " + cmd), r.out());
      for (String form : new String[] {"http", "s3://", "gs://", "reference+json://", "icechunk"}) {
        assertTrue(
            r.out().replaceAll("\\s+", "").contains(form),
            cmd + " --help names STORE form " + form + ": " + r.out());
      }
    }
  }

  /**
   * Help without a command, {@code help}, and no arguments at all list every command, in order;
   * {@code help COMMAND} and {@code --version} work although a run builds only the commands it
   * names.
   */
  @Test
  void topLevelHelpListsEveryCommand() {
    String[] commands = {"ls", "info", "read", "serve", "ui", "sql", "bench", "help"};
    for (String[] args : new String[][] {{"--help"}, {"-h"}, {"help"}, {}}) {
      Result r = run(args);
      String out = r.out() + r.err();
      int at = out.indexOf("Commands:");
      assertTrue(at >= 0, String.join(" ", args) + ": " + out);
      for (String cmd : commands) {
        int next = out.indexOf("\n  " + cmd + " ", at);
        assertTrue(next > at, String.join(" ", args) + " lists " + cmd + ": " + out);
        at = next;
      }
    }
    Result sqlHelp = run("help", "sql");
    assertEquals(0, sqlHelp.code());
    assertTrue(sqlHelp.out().contains("Usage: zaro sql"), sqlHelp.out());
    for (String version : new String[] {"--version", "-V"}) {
      Result r = run(version);
      assertEquals(0, r.code(), version);
      assertEquals("zaro 0.1.0", r.out().strip(), version);
    }
  }

  /** A usage error is one error line and the synopsis, not the whole help. */
  @Test
  void usageErrorsAreShort() {
    String store = CliTest.sharding("nested").toString();
    String[][] cases = {
      {"read", store, "/"}, {"ls"}, {"sql", store, "select 1", "--no-such-flag"}, {"lss", store}
    };
    for (String[] args : cases) {
      Result r = run(args);
      assertEquals(2, r.code(), String.join(" ", args));
      assertTrue(r.err().startsWith("zaro: error: "), r.err());
      assertTrue(r.err().strip().split("\n").length <= 3, r.err());
      assertTrue(r.err().contains("usage: zaro"), r.err());
    }
    assertTrue(run("lss", store).err().contains("did you mean: ls"), run("lss", store).err());
  }

  /** --out into a directory that does not exist: a message naming it, before reading. */
  @Test
  void outIntoAMissingDirectoryIsExplained() {
    Path out = dir.resolve("nowhere/x.arrow");
    for (String[] args :
        new String[][] {
          {"read", Fixtures.sample().toString(), "t2m", "--out", out.toString()},
          {"sql", Fixtures.sample().toString(), "select 1", "--out", out.toString()}
        }) {
      Result r = run(args);
      assertEquals(1, r.code(), r.err());
      assertTrue(r.err().contains("the directory " + out.getParent() + " does not exist"), r.err());
      assertFalse(r.err().contains("NoSuchFileException") || r.err().contains(".tmp"), r.err());
    }
  }

  /** A wrong array path lists the arrays there and suggests the near one. */
  @Test
  void aWrongPathSuggestsTheNearArray() {
    Result r =
        run("read", Fixtures.sample().toString(), "t2n", "--out", dir.resolve("x").toString());
    assertEquals(1, r.code());
    assertTrue(r.err().contains("arrays: /lat, /lon, /precip, /t2m, /time"), r.err());
    assertTrue(r.err().contains("did you mean '/t2m'?"), r.err());
    Result far = run("info", Fixtures.sample().toString(), "pressure");
    assertFalse(far.err().contains("did you mean"), far.err());
  }

  /** A local store that is not there names the nearest entries of the directory above it. */
  @Test
  void aMissingLocalStoreSuggestsTheNearEntries() {
    Path sample = Fixtures.sample().toAbsolutePath().normalize();
    Result typo = run("ls", sample.resolveSibling("climat.zarr").toString());
    assertEquals(1, typo.code(), typo.err());
    assertTrue(typo.err().contains("no such directory"), typo.err());
    assertTrue(typo.err().contains("did you mean " + sample + "?"), typo.err());
    // a typo further up: the path under the near directory, when it is there
    Path upper = sample.getParent().resolveSibling("sampel").resolve("climate.zarr");
    Result above = run("info", upper.toString());
    assertTrue(above.err().contains("did you mean " + sample + "?"), above.err());
    Result far = run("ls", sample.resolveSibling("pressure-levels.zarr").toString());
    assertEquals(1, far.code(), far.err());
    assertTrue(far.err().contains("no such directory"), far.err());
    assertFalse(far.err().contains("did you mean"), far.err());
  }

  /** An error's causes are shown without ZARO_DEBUG. */
  @Test
  void errorMessagesCarryTheirCauses() {
    Exception e =
        new ZaroException(
            "s3: cannot reach the endpoint",
            new RuntimeException("see cause", new ConnectException("Connection refused")));
    assertEquals(
        "s3: cannot reach the endpoint: see cause: Connection refused", Main.withCauses(e));
  }

  @Test
  void benchPrintsTheContractJson() throws Exception {
    Result r = run("bench", sharding("nested").toString(), "/", "--repeat", "3", "--threads", "2");
    assertEquals(0, r.code(), r.err());
    JsonNode json = Json.readTree(r.out());
    assertEquals(3, json.get("seconds").size());
    assertEquals(32 * 32 * 2, json.get("bytes").asLong());
    assertTrue(json.get("median_seconds").asDouble() > 0 && json.get("gbps").asDouble() > 0);
    assertEquals(json.get("gbps").asDouble(), json.get("gbytes_per_s").asDouble());
    assertEquals(
        json.get("bytes").asDouble() / json.get("median_seconds").asDouble() / 1e9,
        json.get("gbytes_per_s").asDouble(),
        1e-9);
    assertTrue(json.get("peak_allocator_bytes").asLong() >= 32 * 32 * 2);
    assertEquals(3, json.get("cpu_seconds").size());
    assertEquals(3, json.get("jit_seconds").size());
    assertEquals(1, json.get("warmup_jit_seconds").size());
    json.get("jit_seconds").forEach(x -> assertTrue(x.asDouble() >= 0, json.toString()));
  }
}
