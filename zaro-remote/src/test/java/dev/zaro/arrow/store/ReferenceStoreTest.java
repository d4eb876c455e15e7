package dev.zaro.arrow.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.error.StoreException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.zip.GZIPOutputStream;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kerchunk JSON references as a store: every value form, version 0 and 1, relative urls, malformed
 * files, and the safety rules. The fixture files built from HDF5 are in {@link
 * KerchunkFixtureTest}.
 */
class ReferenceStoreTest extends AbstractStoreTest {
  static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;
  TestHttpServer server;

  /** A blob holding a/c/0/0 at offset 17, and whole files for the rest. */
  @Override
  protected Store createStore(Map<String, byte[]> contents) throws Exception {
    Path targets = dir.resolve("targets");
    Files.createDirectories(targets);
    byte[] blob = new byte[200];
    System.arraycopy(contents.get("a/c/0/0"), 0, blob, 17, 100);
    Files.write(targets.resolve("blob.bin"), blob);
    Files.write(targets.resolve("empty.bin"), contents.get("a/c/1/0"));
    Files.write(targets.resolve("z.bin"), contents.get("b/x/y/z"));
    ObjectNode refs = JSON.createObjectNode();
    refs.put("zarr.json", new String(contents.get("zarr.json"), StandardCharsets.UTF_8));
    refs.put("a/zarr.json", new String(contents.get("a/zarr.json"), StandardCharsets.UTF_8));
    refs.set("a/c/0/0", JSON.createArrayNode().add("targets/blob.bin").add(17).add(100));
    refs.put("a/c/0/1", "base64:" + Base64.getEncoder().encodeToString(contents.get("a/c/0/1")));
    refs.set("a/c/1/0", JSON.createArrayNode().add("targets/empty.bin"));
    refs.set("b/x/y/z", JSON.createArrayNode().add(targets.resolve("z.bin").toUri().toString()));
    Path file = dir.resolve("refs.json");
    Files.write(file, JSON.writeValueAsBytes(refs));
    return ReferenceStore.open(file.toString());
  }

  @AfterEach
  void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  private Path write(String name, String json) throws Exception {
    Path file = dir.resolve(name);
    Files.writeString(file, json.replace('\'', '"'));
    return file;
  }

  private byte[] read(Store s, String key, ByteRange range) {
    try (ArrowBuf buf = s.get(key, range, allocator).orElseThrow()) {
      byte[] out = new byte[(int) buf.writerIndex()];
      buf.getBytes(0, out);
      return out;
    }
  }

  private static void assertMentions(Throwable e, String... parts) {
    for (String p : parts) {
      assertTrue(e.getMessage().contains(p), "'" + p + "' not in: " + e.getMessage());
    }
  }

  @Test
  void opensThroughStores() throws Exception {
    try (Store s = Stores.open("reference+json://" + dir.resolve("refs.json"))) {
      assertArrayEquals(CONTENTS.get("a/c/0/0"), s.getBytes("a/c/0/0").orElseThrow());
      assertEquals("reference+json://" + dir.resolve("refs.json"), s.describe());
    }
    try (Store s = Stores.open("reference+json://" + dir.resolve("refs.json").toUri())) {
      assertArrayEquals(CONTENTS.get("b/x/y/z"), s.getBytes("b/x/y/z").orElseThrow());
    }
  }

  @Test
  void version1TemplatesAndGen() throws Exception {
    byte[] data = new byte[1000];
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) (i * 13);
    }
    Files.createDirectories(dir.resolve("d"));
    Files.write(dir.resolve("d/data_0.bin"), data);
    Files.write(dir.resolve("d/data_1.bin"), Arrays.copyOfRange(data, 300, 1000));
    Path file =
        write(
            "v1.json",
            "{'version': 1,"
                + " 'templates': {'u': 'd/data', 'suffix': '.bin'},"
                + " 'gen': [{'key': 'g/{{i}}.{{j}}', 'url': '{{u}}_{{j}}{{suffix}}',"
                + "          'offset': '{{(i + 1) * 100 - j * 50}}', 'length': '{{10 + i}}',"
                + "          'dimensions': {'i': {'start': 1, 'stop': 7, 'step': 2}, 'j': [0, 1]}},"
                + "         {'key': 'w/{{name}}', 'url': '{{u}}_{{n}}.bin', 'dimensions': {'name': ['x'], 'n': {'stop': 2}}}],"
                + " 'refs': {'r/0': ['{{u}}_0{{suffix}}', 3, 4], 'r/t': 'plain', 'r/w': ['{{u}}_1.bin']}}");
    try (ReferenceStore s = ReferenceStore.open(file.toString())) {
      // i in 1, 3, 5; j in 0, 1
      assertEquals(
          List.of("g/1.0", "g/1.1", "g/3.0", "g/3.1", "g/5.0", "g/5.1"), s.list("g/").toList());
      for (int i = 1; i < 7; i += 2) {
        for (int j = 0; j < 2; j++) {
          int off = (i + 1) * 100 - j * 50;
          byte[] file0 = j == 0 ? data : Arrays.copyOfRange(data, 300, 1000);
          assertArrayEquals(
              Arrays.copyOfRange(file0, off, off + 10 + i),
              read(s, "g/" + i + "." + j, ByteRange.ALL));
        }
      }
      assertEquals(List.of("w/x"), s.list("w/").toList()); // the last of n wins, as in kerchunk
      assertArrayEquals(Arrays.copyOfRange(data, 3, 7), read(s, "r/0", ByteRange.ALL));
      assertArrayEquals(Arrays.copyOfRange(data, 5, 6), read(s, "r/0", ByteRange.of(2, 1)));
      assertArrayEquals(Arrays.copyOfRange(data, 6, 7), read(s, "r/0", ByteRange.suffix(1)));
      assertArrayEquals("plain".getBytes(StandardCharsets.UTF_8), s.getBytes("r/t").orElseThrow());
      assertArrayEquals(Arrays.copyOfRange(data, 990, 1000), read(s, "r/w", ByteRange.suffix(10)));
    }
  }

  /**
   * Found by ReferenceStoreFuzzTest: ranges near the ends of long overflowed and expanded without
   * end.
   */
  @Test
  void genRangesNearTheEndsOfLongExpandExactly() {
    String doc =
        "{\"version\": 1, \"refs\": {}, \"gen\": [{\"key\": \"k/{{i}}\", \"url\": \"u\","
            + " \"dimensions\": {\"i\": {\"start\": "
            + (Long.MAX_VALUE - 7)
            + ", \"stop\": "
            + Long.MAX_VALUE
            + ", \"step\": 100}}}]}";
    try (ReferenceStore s =
        ReferenceStore.parse(doc.getBytes(StandardCharsets.UTF_8), "gen", null, true)) {
      assertEquals(List.of("k/" + (Long.MAX_VALUE - 7)), s.list("").toList());
    }
  }

  @Test
  void templatesEvaluateJinjaArithmetic() {
    Map<String, Object> vars = Map.of("i", 7L, "u", "s3://b/x", "n", "12");
    assertEquals("s3://b/x_7", ReferenceTemplates.render("{{u}}_{{i}}", vars));
    assertEquals("8000", ReferenceTemplates.render("{{(i + 1) * 1000}}", vars));
    assertEquals(
        "3 1 -2 3.5 19",
        ReferenceTemplates.render(
            "{{i // 2}} {{i % 2}} {{ -(i // 3) }} {{i / 2}} {{n + i}}", Map.of("i", 7L, "n", 12L)));
    assertEquals("ab7", ReferenceTemplates.render("{{'a' + \"b\" + i}}", vars));
    assertThrows(
        ReferenceTemplates.TemplateException.class,
        () -> ReferenceTemplates.render("{{nope}}", vars));
    assertThrows(
        ReferenceTemplates.TemplateException.class,
        () -> ReferenceTemplates.render("{{i *}}", vars));
    assertThrows(
        ReferenceTemplates.TemplateException.class, () -> ReferenceTemplates.render("{{i", vars));
  }

  @Test
  void inlineObjectsAndGzippedFiles() throws Exception {
    ObjectNode refs = JSON.createObjectNode();
    refs.set(".zgroup", JSON.createObjectNode().put("zarr_format", 2));
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
      out.write(JSON.writeValueAsBytes(refs));
    }
    Path file = dir.resolve("refs.json.gz");
    Files.write(file, gz.toByteArray());
    try (ReferenceStore s = ReferenceStore.open(file.toString())) {
      assertEquals(
          "{\"zarr_format\":2}",
          new String(s.getBytes(".zgroup").orElseThrow(), StandardCharsets.UTF_8));
    }
  }

  @Test
  void malformedReferenceFilesAreClearErrors() throws Exception {
    Map<String, String> bad = new LinkedHashMap<>();
    bad.put("[1, 2]", "not a JSON object");
    bad.put("{'a': ", "not valid JSON");
    bad.put("{'version': 2, 'refs': {}}", "unsupported reference format version 2");
    bad.put("{'version': 1}", "needs a 'refs' object");
    bad.put("{'k': 5}", "key 'k' is malformed");
    bad.put("{'k': ['u', 1]}", "key 'k' is malformed");
    bad.put("{'k': [3, 1, 2]}", "key 'k' is malformed");
    bad.put("{'k': ['u', -1, 2]}", "negative offset");
    bad.put("{'k': ['u', 1.5, 2]}", "non-integer offset");
    bad.put("{'k': 'base64:***'}", "invalid base64");
    bad.put("{'../k': 'x'}", "refusing key '../k'");
    bad.put("{'/k': 'x'}", "refusing key '/k'");
    bad.put("{'version': 1, 'refs': {'k': ['{{nope}}']}}", "unknown name 'nope'");
    bad.put("{'version': 1, 'gen': [{'key': 'a', 'url': 'u'}], 'refs': {}}", "gen entry 0 needs");
    bad.put(
        "{'version': 1, 'gen': [{'key': 'a/{{i}}', 'url': 'u', 'offset': '{{i*}}', 'length': '1',"
            + " 'dimensions': {'i': {'stop': 2}}}], 'refs': {}}",
        "key 'a/0'");
    bad.put(
        "{'version': 1, 'gen': [{'key': 'a/{{i}}', 'url': 'u', 'offset': '1',"
            + " 'dimensions': {'i': {'stop': 2}}}], 'refs': {}}",
        "an offset or a length but not both");
    bad.put(
        "{'version': 1, 'gen': [{'key': 'a/{{i}}', 'url': 'u',"
            + " 'dimensions': {'i': {'stop': 2}, 'j': {'stop': 100000}, 'k': {'stop': 100000}}}], 'refs': {}}",
        "expands to more than");
    bad.put(
        "{'version': 1, 'gen': [{'key': 'a/{{i}}', 'url': 'u', 'dimensions': {'i': {'start': "
            + Long.MIN_VALUE
            + ", 'stop': "
            + Long.MAX_VALUE
            + "}}}], 'refs': {}}",
        "has more than");
    bad.put(
        "{'version': 1, 'gen': [{'key': '../{{i}}', 'url': 'u',"
            + " 'dimensions': {'i': {'stop': 2}}}], 'refs': {}}",
        "refusing key '../0'");
    int n = 0;
    for (var e : bad.entrySet()) {
      Path file = write("bad" + n++ + ".json", e.getKey());
      StoreException ex =
          assertThrows(
              StoreException.class, () -> ReferenceStore.open(file.toString()), e.getKey());
      assertMentions(ex, e.getValue(), file.toString());
    }
    StoreException ex =
        assertThrows(
            StoreException.class, () -> ReferenceStore.open(dir.resolve("none.json").toString()));
    assertMentions(ex, "no such reference file", "none.json");
  }

  @Test
  void missingTargetsAndShortTargetsAreErrorsNamingTheKey() throws Exception {
    Files.write(dir.resolve("ten.bin"), new byte[10]);
    Path file =
        write(
            "m.json",
            "{'gone': ['missing.h5', 0, 10], 'nodir': ['nodir/x.h5'],"
                + " 'short': ['ten.bin', 5, 10], 'past': ['ten.bin', 20, 1]}");
    try (ReferenceStore s = ReferenceStore.open(file.toString())) {
      StoreException e =
          assertThrows(StoreException.class, () -> s.get("gone", ByteRange.ALL, allocator));
      assertMentions(e, "key 'gone'", "missing.h5", "does not exist");
      var async =
          assertThrows(
              CompletionException.class,
              () -> s.getAsync("gone", ByteRange.ALL, allocator, Runnable::run).join());
      assertMentions(async.getCause(), "key 'gone'", "missing.h5", "does not exist");
      e = assertThrows(StoreException.class, () -> s.getBytes("nodir"));
      assertMentions(e, "key 'nodir'", "does not exist");
      e = assertThrows(StoreException.class, () -> s.get("short", ByteRange.ALL, allocator));
      assertMentions(e, "key 'short'", "ten.bin");
      e = assertThrows(StoreException.class, () -> s.get("past", ByteRange.ALL, allocator));
      assertMentions(e, "key 'past'", "ten.bin");
      e = assertThrows(StoreException.class, () -> s.get("short", ByteRange.of(8, 3), allocator));
      assertMentions(e, "key 'short'");
      assertEquals(Optional.empty(), s.get("nope", ByteRange.ALL, allocator));
    }
  }

  /** Serves dir over HTTP, with a reference file that points at local files. */
  @Test
  void aReferenceFileFromTheNetworkMayNotReadLocalFiles() throws Exception {
    Files.writeString(dir.resolve("secret.txt"), "secret");
    server = new TestHttpServer(dir);
    ArrayNode abs = JSON.createArrayNode().add(dir.resolve("secret.txt").toString());
    ArrayNode fileUrl = JSON.createArrayNode().add(dir.resolve("secret.txt").toUri().toString());
    ObjectNode refs = JSON.createObjectNode();
    refs.set("abs", abs);
    refs.set("url", fileUrl);
    refs.set("rel", JSON.createArrayNode().add("secret.txt"));
    refs.set("up", JSON.createArrayNode().add("../../secret.txt"));
    Files.write(dir.resolve("remote.json"), JSON.writeValueAsBytes(refs));
    try (Store s = Stores.open("reference+json://" + server.url("remote.json"))) {
      for (String key : List.of("abs", "url")) {
        StoreException e =
            assertThrows(StoreException.class, () -> s.get(key, ByteRange.ALL, allocator), key);
        assertMentions(e, "key '" + key + "'", "may not read local files");
      }
      // a relative url stays on the server it came from
      assertArrayEquals("secret".getBytes(StandardCharsets.UTF_8), s.getBytes("rel").orElseThrow());
      assertArrayEquals("secret".getBytes(StandardCharsets.UTF_8), s.getBytes("up").orElseThrow());
      assertTrue(s.describe().contains(server.url("remote.json").toString()));
    }
    // the same file opened locally may read local files: the user pointed at it
    try (Store s = Stores.open("reference+json://" + dir.resolve("remote.json"))) {
      assertArrayEquals("secret".getBytes(StandardCharsets.UTF_8), s.getBytes("abs").orElseThrow());
    }
    StoreException e =
        assertThrows(
            StoreException.class, () -> Stores.open("reference+json://" + server.url("nope.json")));
    assertMentions(e, "no such reference file", server.url("nope.json").toString());
  }

  @Test
  void keysThatLeaveTheStoreAreRefused() {
    StoreException e =
        assertThrows(
            StoreException.class, () -> store.get("a/../../refs.json", ByteRange.ALL, allocator));
    assertMentions(e, "a/../../refs.json");
  }
}
