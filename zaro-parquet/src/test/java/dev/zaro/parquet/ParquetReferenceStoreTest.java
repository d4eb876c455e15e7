package dev.zaro.parquet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.Stores;
import dev.zaro.arrow.store.TestHttpServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Parquet reference fixtures of testdata/kerchunk (written with pyarrow by generate_kerchunk.py
 * from the same h5py chunk index as the JSON ones): every key equals the JSON reference store's,
 * and the arrays read equal to h5py's values, locally and over HTTP.
 */
class ParquetReferenceStoreTest extends AllocatorTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static TestHttpServer server;
  @TempDir Path tmp;

  static Path dir() {
    return Fixtures.testdata().resolve("kerchunk");
  }

  @BeforeAll
  static void startServer() throws Exception {
    server = new TestHttpServer(dir());
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  static JsonNode manifest() throws Exception {
    return JSON.readTree(Files.readAllBytes(dir().resolve("manifest.json")));
  }

  static List<Arguments> sets() throws Exception {
    List<Arguments> out = new ArrayList<>();
    for (var e : manifest().get("parquet").properties()) {
      out.add(Arguments.of(e.getKey(), e.getValue().asText(), "local"));
      out.add(Arguments.of(e.getKey(), e.getValue().asText(), "http"));
    }
    return out;
  }

  static String location(String parq, String over) {
    return "reference+parquet://"
        + (over.equals("local") ? dir().resolve(parq).toString() : server.url(parq).toString());
  }

  private byte[] read(Store s, String key) {
    try (ArrowBuf buf =
        s.get(key, ByteRange.ALL, allocator).orElseThrow(() -> new AssertionError("no " + key))) {
      byte[] out = new byte[(int) buf.writerIndex()];
      buf.getBytes(0, out);
      return out;
    }
  }

  @ParameterizedTest(name = "{0} over {2}")
  @MethodSource("sets")
  void keysEqualTheJsonReferences(String parq, String json, String over) throws Exception {
    try (Store p = Stores.open(location(parq, over));
        Store j = Stores.open("reference+json://" + dir().resolve(json))) {
      assertTrue(p instanceof ParquetReferenceStore);
      List<String> chunkKeys =
          j.list("").filter(k -> !k.substring(k.lastIndexOf('/') + 1).startsWith(".")).toList();
      assertTrue(chunkKeys.size() > 8);
      for (String key : chunkKeys) {
        assertArrayEquals(read(j, key), read(p, key), key);
      }
      for (String key : j.list("").filter(k -> k.endsWith(".zarray")).toList()) {
        assertEquals(
            JSON.readTree(j.getBytes(key).orElseThrow()),
            JSON.readTree(p.getBytes(key).orElseThrow()),
            key);
      }
      List<String> listed = p.list("").filter(k -> !k.endsWith(".zmetadata")).toList();
      assertEquals(j.list("").filter(k -> !k.startsWith("extra/")).toList(), listed);
      // absent chunks, ranges, async
      assertEquals(
          Optional.empty(),
          p.get(chunkKeys.get(0).replaceAll("[0-9]+$", "99"), ByteRange.ALL, allocator));
      try (ArrowBuf b =
          p.getAsync(chunkKeys.get(0), ByteRange.suffix(2), allocator, Runnable::run)
              .get()
              .orElseThrow()) {
        assertEquals(2, b.writerIndex());
      }
    }
  }

  @ParameterizedTest(name = "{0} over {2}")
  @MethodSource("sets")
  void arraysReadEqualH5pysValues(String parq, String json, String over) throws Exception {
    JsonNode arrays = manifest().get("references").get(json).get("arrays");
    try (Zaro zaro = Zaro.open(location(parq, over))) {
      for (var array : arrays.properties()) {
        byte[] want = Files.readAllBytes(dir().resolve(array.getValue().get("expected").asText()));
        try (Slab slab = zaro.read(array.getKey(), "", allocator)) {
          byte[] got = new byte[(int) slab.byteSize()];
          slab.data().getBytes(0, got);
          assertArrayEquals(want, got, parq + " " + array.getKey());
        }
      }
    }
  }

  @Test
  void badDirectoriesAreClearErrors() throws Exception {
    StoreException e =
        assertThrows(StoreException.class, () -> Stores.open("reference+parquet://" + tmp));
    assertTrue(e.getMessage().contains("no .zmetadata"), e.getMessage());
    Files.writeString(tmp.resolve(".zmetadata"), "{\"metadata\": {}}");
    e = assertThrows(StoreException.class, () -> Stores.open("reference+parquet://" + tmp));
    assertTrue(e.getMessage().contains("record_size"), e.getMessage());
    Files.writeString(
        tmp.resolve(".zmetadata"), "{\"metadata\": {\"../x\": {}}, \"record_size\": 2}");
    e = assertThrows(StoreException.class, () -> Stores.open("reference+parquet://" + tmp));
    assertTrue(e.getMessage().contains("refusing key '../x'"), e.getMessage());
    Files.writeString(
        tmp.resolve(".zmetadata"),
        "{\"metadata\": {\"a/.zarray\": {\"shape\": [4], \"chunks\": [2]}},"
            + " \"record_size\": 2}");
    Files.createDirectories(tmp.resolve("a"));
    Files.writeString(tmp.resolve("a/refs.0.parq"), "not parquet");
    try (Store s = Stores.open("reference+parquet://" + tmp)) {
      e = assertThrows(StoreException.class, () -> s.get("a/0", ByteRange.ALL, allocator));
      assertTrue(e.getMessage().contains("a/refs.0.parq"), e.getMessage());
    }
  }

  /** Parquet references served over HTTP may not point at local files. */
  @Test
  void remoteReferencesMayNotReadLocalFiles() {
    try (Store s = Stores.open("reference+parquet://" + server.url("local_target.parq"))) {
      StoreException e =
          assertThrows(StoreException.class, () -> s.get("a/0", ByteRange.ALL, allocator));
      assertTrue(e.getMessage().contains("may not read local files"), e.getMessage());
    }
    try (Store s = Stores.open("reference+parquet://" + dir().resolve("local_target.parq"))) {
      StoreException e =
          assertThrows(StoreException.class, () -> s.get("a/0", ByteRange.ALL, allocator));
      assertTrue(
          e.getMessage().contains("/nonexistent-zaro-target/x.bin")
              && e.getMessage().contains("does not exist"),
          e.getMessage());
    }
  }
}
