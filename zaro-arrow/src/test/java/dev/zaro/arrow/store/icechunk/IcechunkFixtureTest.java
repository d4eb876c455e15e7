package dev.zaro.arrow.store.icechunk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.read.Node;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.store.GcsStore;
import dev.zaro.arrow.store.TestHttpServer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Icechunk's own format-compatibility repositories (testdata/icechunk, written by Icechunk 0.1,
 * 1.x and 2.x with the scripts of icechunk-python/tests/test_can_read_old.py), read through
 * {@link Zaro} at every branch, tag and snapshot of expected.json, from local disk and over HTTP:
 * the history, the nodes, their metadata and every chunk's values equal what the scripts wrote.
 * The virtual chunk points at {@code s3://}, which zaro-arrow alone cannot open: reading it is a
 * clear error naming the URL here, and zaro-s3's tests read its values from a local S3.
 */
class IcechunkFixtureTest extends AllocatorTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static TestHttpServer server;

  static Path dir() {
    return Fixtures.testdata().resolve("icechunk");
  }

  @BeforeAll
  static void startServer() throws Exception {
    server = new TestHttpServer(Fixtures.testdata());
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  static JsonNode doc() throws Exception {
    return JSON.readTree(Files.readAllBytes(dir().resolve("expected.json")));
  }

  /** (label, case, over) for each case, locally and over HTTP. */
  static List<Arguments> cases() throws Exception {
    List<Arguments> out = new ArrayList<>();
    for (JsonNode c : doc().get("cases")) {
      for (String over : List.of("local", "http")) {
        out.add(Arguments.of(c.get("repo").asText() + " " + c.get("ref") + " " + over, c, over));
      }
    }
    return out;
  }

  /** The query selecting the case's ref ("" for the default). */
  static String query(JsonNode ref) {
    Iterator<Map.Entry<String, JsonNode>> it = ref.fields();
    if (!it.hasNext()) {
      return "";
    }
    var e = it.next();
    return "?" + e.getKey() + "=" + URLEncoder.encode(e.getValue().asText(), StandardCharsets.UTF_8).replace("+", "%20");
  }

  static String location(JsonNode c, String over) {
    String repo = c.get("repo").asText();
    return (over.equals("local") ? "icechunk://" + dir().resolve(repo)
        : "icechunk+" + server.url("icechunk/" + repo)) + query(c.get("ref"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void readsWhatIcechunksScriptsWrote(String label, JsonNode c, String over) throws Exception {
    try (Zaro zaro = Zaro.open(location(c, over))) {
      IcechunkStore store = (IcechunkStore) zaro.store();
      List<String> history = new ArrayList<>();
      store.ancestry().forEach(s -> history.add(s[1]));
      assertEquals(JSON.convertValue(c.get("history"), List.class), history, "history");
      assertEquals(c.get("history").get(0).asText(), store.message());
      assertEquals(doc().get("formats").get(c.get("repo").asText()).asInt(), store.format());

      Map<String, Boolean> expectedNodes = new TreeMap<>();
      c.get("groups").fieldNames().forEachRemaining(p -> expectedNodes.put(p, false));
      c.get("arrays").fieldNames().forEachRemaining(p -> expectedNodes.put(p, true));
      Map<String, Boolean> nodes = new TreeMap<>();
      for (Node n : zaro.list()) {
        nodes.put(n.path(), n.isArray());
      }
      assertEquals(expectedNodes, nodes, "nodes");
      for (var g : (Iterable<Map.Entry<String, JsonNode>>) () -> c.get("groups").fields()) {
        assertEquals(g.getValue(), zaro.node(g.getKey()).attributes(), "attributes of group " + g.getKey());
      }
      for (var a : (Iterable<Map.Entry<String, JsonNode>>) () -> c.get("arrays").fields()) {
        checkArray(zaro, a.getKey(), a.getValue());
      }
    }
  }

  private void checkArray(Zaro zaro, String path, JsonNode want) {
    ArrayMetadata meta = zaro.meta(path);
    assertEquals(want.get("data_type").asText(), meta.dataType().name(), path);
    assertEquals(JSON.convertValue(want.get("shape"), List.class).toString(),
        java.util.Arrays.toString(meta.shape()), path + " shape");
    assertEquals(want.get("attributes"), meta.attributes(), path + " attributes");
    if (want.has("dimension_names")) {
      assertEquals(JSON.convertValue(want.get("dimension_names"), List.class), meta.dimensionNames(), path);
    }
    long[] shape = meta.shape();
    int[] chunk = JSON.convertValue(want.get("chunk_shape"), int[].class);
    org.junit.jupiter.api.Assertions.assertArrayEquals(chunk, meta.chunkShape(), path + " chunk shape");
    JsonNode virtual = want.path("virtual_chunks");
    if (virtual.isMissingNode()) {
      try (Slab slab = zaro.read(path, "", allocator)) {
        checkValues(slab, want.get("value"), shape, new long[shape.length], path + " whole");
      }
    }
    // chunk by chunk: every chunk's values, or for a virtual chunk a clear error naming its URL
    int[] pos = new int[shape.length];
    int checked = 0;
    while (true) {
      StringBuilder slice = new StringBuilder();
      StringBuilder key = new StringBuilder();
      long[] origin = new long[shape.length];
      long[] extent = new long[shape.length];
      for (int d = 0; d < shape.length; d++) {
        origin[d] = (long) pos[d] * chunk[d];
        long stop = Math.min(shape[d], origin[d] + chunk[d]);
        extent[d] = stop - origin[d];
        slice.append(d == 0 ? "" : ", ").append(origin[d]).append(':').append(stop);
        key.append(d == 0 ? "" : "/").append(pos[d]);
      }
      if (virtual.has(key.toString())) {
        ZaroException e = assertThrows(ZaroException.class, () -> zaro.read(path, slice.toString(), allocator).close());
        assertTrue(e.getMessage().contains(virtual.get(key.toString()).asText())
            && e.getMessage().contains(path + "/c/" + key), e.getMessage());
      } else {
        try (Slab slab = zaro.read(path, slice.toString(), allocator)) {
          checkValues(slab, want.get("value"), extent, origin, path + "[" + slice + "]");
        }
      }
      checked++;
      int d = shape.length - 1;
      while (d >= 0 && ++pos[d] * (long) chunk[d] >= shape[d]) {
        pos[d] = 0;
        d--;
      }
      if (d < 0) {
        break;
      }
    }
    assertTrue(checked > 1, path);
  }

  /**
   * Compares a slab of {@code extent} at {@code origin} with the expected value: one number for
   * every element, or the nested list of all elements.
   */
  private static void checkValues(Slab slab, JsonNode value, long[] extent, long[] origin, String what) {
    assertEquals(java.util.Arrays.toString(extent), java.util.Arrays.toString(slab.shape()), what);
    long n = slab.elementCount();
    for (long i = 0; i < n; i++) {
      JsonNode expected = value;
      long rest = i;
      long[] index = new long[extent.length];
      for (int d = extent.length - 1; d >= 0; d--) {
        index[d] = origin[d] + rest % extent[d];
        rest /= extent[d];
      }
      for (int d = 0; expected.isArray(); d++) {
        expected = expected.get((int) index[d]);
      }
      String at = what + " element " + i;
      switch (slab.dataType().name()) {
        case "float32" -> {
          float got = slab.data().getFloat(4 * i);
          if (expected.isTextual() && expected.asText().equals("NaN")) {
            assertTrue(Float.isNaN(got), at + ": " + got);
          } else {
            assertEquals((float) expected.asDouble(), got, 0f, at);
          }
        }
        case "int8" -> assertEquals(expected.asInt(), slab.data().getByte(i), at);
        default -> throw new AssertionError("unexpected data type " + slab.dataType().name());
      }
    }
  }

  @Test
  void opensOverGcsToo() throws Exception {
    JsonNode c = doc().get("cases").get(2);
    String old = System.getProperty(GcsStore.ENDPOINT_PROPERTY);
    System.setProperty(GcsStore.ENDPOINT_PROPERTY, server.endpoint());
    try (Zaro zaro = Zaro.open("icechunk+gs://icechunk/" + c.get("repo").asText() + query(c.get("ref")))) {
      assertEquals(c.get("history").get(0).asText(), ((IcechunkStore) zaro.store()).message());
      checkArray(zaro, "group1/small_chunks", c.get("arrays").get("group1/small_chunks"));
      assertEquals(9, zaro.list().size());
    } finally {
      if (old == null) {
        System.clearProperty(GcsStore.ENDPOINT_PROPERTY);
      } else {
        System.setProperty(GcsStore.ENDPOINT_PROPERTY, old);
      }
    }
  }
}
