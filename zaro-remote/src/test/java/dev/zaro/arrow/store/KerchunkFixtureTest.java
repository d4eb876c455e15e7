package dev.zaro.arrow.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.read.Slab;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.zip.Inflater;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The kerchunk fixtures of testdata/kerchunk (HDF5 and NetCDF4-like files written by h5py;
 * references written from h5py's own chunk index by generate_kerchunk.py), over local files and
 * over HTTP: every chunk key returns the file's bytes at h5py's offsets, and those bytes decode
 * (inflate, unshuffle) to the chunk h5py wrote. Once the Zarr v2 reader is there, the arrays read
 * equal to h5py's values.
 */
class KerchunkFixtureTest extends AllocatorTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static TestHttpServer server;

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

  /** (reference file, over) for each reference file, locally and over HTTP. */
  static List<Arguments> references() throws Exception {
    List<Arguments> out = new ArrayList<>();
    for (Iterator<String> it = manifest().get("references").fieldNames(); it.hasNext(); ) {
      String ref = it.next();
      out.add(Arguments.of(ref, "local"));
      out.add(Arguments.of(ref, "http"));
    }
    return out;
  }

  static String location(String ref, String over) {
    return "reference+json://"
        + (over.equals("local") ? dir().resolve(ref).toString() : server.url(ref).toString());
  }

  @ParameterizedTest(name = "{0} over {1}")
  @MethodSource("references")
  void chunkKeysHoldH5pysBytes(String ref, String over) throws Exception {
    JsonNode arrays = manifest().get("references").get(ref).get("arrays");
    Map<String, byte[]> files =
        Map.of(
            "simple", Files.readAllBytes(dir().resolve("data/simple.h5")),
            "weather", Files.readAllBytes(dir().resolve("data/weather.nc")));
    byte[] file = files.get(ref.substring(0, ref.indexOf('.')));
    int checked = 0;
    try (Store store = Stores.open(location(ref, over))) {
      for (Iterator<Map.Entry<String, JsonNode>> it = arrays.properties().iterator();
          it.hasNext(); ) {
        var array = it.next();
        JsonNode zarray = JSON.readTree(store.getBytes(array.getKey() + "/.zarray").orElseThrow());
        assertEquals(array.getValue().get("shape"), zarray.get("shape"), array.getKey());
        int itemSize = Integer.parseInt(array.getValue().get("dtype").asText().substring(2));
        List<String> chunkKeys = new ArrayList<>();
        store
            .list(array.getKey() + "/")
            .filter(k -> !k.substring(k.lastIndexOf('/') + 1).startsWith("."))
            .forEach(chunkKeys::add);
        List<String> manifestKeys = new ArrayList<>();
        array.getValue().get("chunks").fieldNames().forEachRemaining(manifestKeys::add);
        if (!array.getValue().get("chunks").isEmpty()) {
          assertEquals(
              manifestKeys.stream().sorted().toList(),
              chunkKeys,
              "chunk keys of " + array.getKey());
        }
        for (var chunk : array.getValue().get("chunks").properties()) {
          JsonNode m = chunk.getValue();
          int offset = m.get("offset").asInt();
          int size = m.get("size").asInt();
          byte[] want = Arrays.copyOfRange(file, offset, offset + size);
          byte[] got;
          try (ArrowBuf buf = store.get(chunk.getKey(), ByteRange.ALL, allocator).orElseThrow()) {
            got = new byte[(int) buf.writerIndex()];
            buf.getBytes(0, got);
          }
          assertArrayEquals(want, got, chunk.getKey());
          byte[] decoded = got;
          for (JsonNode f : m.get("filters")) {
            if (f.asText().equals("zlib")) {
              decoded = inflate(decoded);
            }
          }
          for (JsonNode f : m.get("filters")) {
            if (f.asText().equals("shuffle")) {
              decoded = unshuffle(decoded, itemSize);
            }
          }
          assertEquals(
              m.get("decoded_sha256").asText(), sha256(decoded), "decoded " + chunk.getKey());
          checked++;
        }
      }
      JsonNode whole = manifest().get("references").get(ref).get("whole_files");
      if (whole != null) {
        for (var w : whole.properties()) {
          assertArrayEquals(
              Files.readAllBytes(dir().resolve(w.getValue().asText())),
              store.getBytes(w.getKey()).orElseThrow(),
              w.getKey());
        }
      }
    }
    assertTrue(checked >= 8, "only " + checked + " chunks checked");
  }

  /** Reads each array through Zaro (needs the Zarr v2 reader) and compares with h5py. */
  @ParameterizedTest(name = "{0} over {1}")
  @MethodSource("references")
  void arraysReadEqualH5pysValues(String ref, String over) throws Exception {
    JsonNode arrays = manifest().get("references").get(ref).get("arrays");
    try (Zaro zaro = Zaro.open(location(ref, over))) {
      for (var array : arrays.properties()) {
        byte[] want = Files.readAllBytes(dir().resolve(array.getValue().get("expected").asText()));
        try (Slab slab = read(zaro, array.getKey())) {
          byte[] got = new byte[(int) slab.byteSize()];
          slab.data().getBytes(0, got);
          assertArrayEquals(want, got, ref + " " + array.getKey());
        }
      }
    }
  }

  private Slab read(Zaro zaro, String path) {
    return zaro.read(path, "", allocator);
  }

  static byte[] inflate(byte[] in) throws Exception {
    Inflater inflater = new Inflater();
    inflater.setInput(in);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[4096];
    while (!inflater.finished()) {
      int n = inflater.inflate(buf);
      if (n == 0 && inflater.needsInput()) {
        throw new IllegalStateException("truncated zlib stream");
      }
      out.write(buf, 0, n);
    }
    inflater.end();
    return out.toByteArray();
  }

  static byte[] unshuffle(byte[] in, int itemSize) {
    int n = in.length / itemSize;
    byte[] out = in.clone();
    for (int i = 0; i < n; i++) {
      for (int b = 0; b < itemSize; b++) {
        out[i * itemSize + b] = in[b * n + i];
      }
    }
    return out;
  }

  static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }
}
