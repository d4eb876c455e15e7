package dev.zaro.arrow.store.icechunk;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.read.Node;
import dev.zaro.arrow.store.TestHttpServer;
import dev.zaro.remote.GcsStore;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * Icechunk's own format-compatibility repositories (testdata/icechunk, written by Icechunk 0.1, 1.x
 * and 2.x with the scripts of icechunk-python/tests/test_can_read_old.py), read through {@link
 * Zaro} at every branch, tag and snapshot of expected.json, from local disk and over HTTP: the
 * history, the nodes, their metadata and every chunk's values equal what the scripts wrote. The
 * virtual chunk points at {@code s3://}, which zaro-arrow alone cannot open: reading it is a clear
 * error naming the URL here, and zaro-s3's tests read its values from a local S3.
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
    return IcechunkExpected.doc();
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

  static String location(JsonNode c, String over) {
    String repo = c.get("repo").asText();
    return (over.equals("local")
            ? "icechunk://" + dir().resolve(repo)
            : "icechunk+" + server.url("icechunk/" + repo))
        + IcechunkExpected.query(c.get("ref"));
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
      for (var g : c.get("groups").properties()) {
        assertEquals(
            g.getValue(), zaro.node(g.getKey()).attributes(), "attributes of group " + g.getKey());
      }
      for (var a : c.get("arrays").properties()) {
        IcechunkExpected.checkArray(zaro, a.getKey(), a.getValue(), allocator, false);
      }
    }
  }

  @Test
  void opensOverGcsToo() throws Exception {
    JsonNode c = doc().get("cases").get(2);
    String old = System.getProperty(GcsStore.ENDPOINT_PROPERTY);
    System.setProperty(GcsStore.ENDPOINT_PROPERTY, server.endpoint());
    String location =
        "icechunk+gs://icechunk/" + c.get("repo").asText() + IcechunkExpected.query(c.get("ref"));
    try (Zaro zaro = Zaro.open(location)) {
      assertEquals(c.get("history").get(0).asText(), ((IcechunkStore) zaro.store()).message());
      IcechunkExpected.checkArray(
          zaro,
          "group1/small_chunks",
          c.get("arrays").get("group1/small_chunks"),
          allocator,
          false);
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
