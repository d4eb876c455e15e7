package dev.zaro.arrow.store.icechunk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.read.Slab;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.Assertions;

/**
 * testdata/icechunk/expected.json (what Icechunk's scripts wrote into its compatibility
 * repositories) and the checks that compare an array read through {@link Zaro} with it; shared by
 * the fixture tests here and in zaro-s3.
 */
public final class IcechunkExpected {
  static final ObjectMapper JSON = new ObjectMapper();

  private IcechunkExpected() {}

  /** The query selecting the case's ref ("" for the default). */
  public static String query(JsonNode ref) {
    Iterator<Map.Entry<String, JsonNode>> it = ref.properties().iterator();
    if (!it.hasNext()) {
      return "";
    }
    var e = it.next();
    return "?"
        + e.getKey()
        + "="
        + URLEncoder.encode(e.getValue().asText(), StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** The parsed expected.json. */
  public static JsonNode doc() throws IOException {
    return JSON.readTree(Files.readAllBytes(Fixtures.testdata().resolve("icechunk/expected.json")));
  }

  /**
   * Checks array {@code path} against its entry in expected.json: metadata, the whole array, then
   * chunk by chunk. A virtual chunk must read its values when {@code virtualReadable}, else fail
   * with an error naming its URL and key.
   */
  public static void checkArray(
      Zaro zaro, String path, JsonNode want, BufferAllocator allocator, boolean virtualReadable) {
    ArrayMetadata meta = zaro.meta(path);
    assertEquals(want.get("data_type").asText(), meta.dataType().name(), path);
    assertEquals(
        JSON.convertValue(want.get("shape"), List.class).toString(),
        Arrays.toString(meta.shape()),
        path + " shape");
    assertEquals(want.get("attributes"), meta.attributes(), path + " attributes");
    if (want.has("dimension_names")) {
      assertEquals(
          JSON.convertValue(want.get("dimension_names"), List.class), meta.dimensionNames(), path);
    }
    long[] shape = meta.shape();
    int[] chunk = JSON.convertValue(want.get("chunk_shape"), int[].class);
    Assertions.assertArrayEquals(chunk, meta.chunkShape(), path + " chunk shape");
    JsonNode virtual = virtualReadable ? MissingNode.getInstance() : want.path("virtual_chunks");
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
        ZaroException e =
            assertThrows(
                ZaroException.class, () -> zaro.read(path, slice.toString(), allocator).close());
        assertTrue(
            e.getMessage().contains(virtual.get(key.toString()).asText())
                && e.getMessage().contains(path + "/c/" + key),
            e.getMessage());
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
  public static void checkValues(
      Slab slab, JsonNode value, long[] extent, long[] origin, String what) {
    assertEquals(Arrays.toString(extent), Arrays.toString(slab.shape()), what);
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
}
