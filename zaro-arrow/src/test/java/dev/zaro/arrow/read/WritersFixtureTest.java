package dev.zaro.arrow.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Stores other tools wrote (testdata/writers/&lt;tool&gt;/cases.json: GDAL 3.6, netCDF-C 4.9's
 * nccopy, zarrita): every array reads to the values the tool was given (its input, saved as a numpy
 * {@code .npy} or raw little-endian {@code .bin} beside the stores), byte for byte.
 */
class WritersFixtureTest extends AllocatorTest {

  static Stream<Arguments> cases() throws IOException {
    List<Arguments> out = new ArrayList<>();
    List<Path> sets;
    try (Stream<Path> dirs = Files.list(Fixtures.testdata().resolve("writers"))) {
      sets = dirs.map(d -> d.resolve("cases.json")).filter(Files::isRegularFile).sorted().toList();
    }
    for (Path set : sets) {
      Path dir = set.getParent();
      for (JsonNode c : Json.readTree(Files.readAllBytes(set)).get("cases")) {
        String store = c.get("store").asText();
        out.add(
            Arguments.of(
                dir.getFileName()
                    + "/"
                    + store.substring(store.lastIndexOf('/') + 1)
                    + "/"
                    + c.get("path").asText(),
                dir.resolve(store),
                c.get("path").asText(),
                dir.resolve(c.get("expected").asText()),
                c));
      }
    }
    return out.stream();
  }

  /** The raw little-endian C-order values and the shape of an expected file. */
  @SuppressWarnings("ArrayRecordComponent") // read once, compared with assertArrayEquals
  private record Expected(byte[] bytes, long[] shape) {}

  private static final Pattern SHAPE = Pattern.compile("'shape': \\(([0-9, ]*)\\)");
  private static final Pattern DESCR = Pattern.compile("'descr': '([<|])[a-z][0-9]+'");

  private static Expected expected(Path file, JsonNode c) throws IOException {
    byte[] all = Files.readAllBytes(file);
    if (!file.toString().endsWith(".npy")) {
      return new Expected(all, Json.convertValue(c.get("shape"), long[].class));
    }
    // numpy's .npy: magic, version, header length (2 bytes in version 1, 4 in 2), a dict
    int major = all[6];
    int headerStart = major == 1 ? 10 : 12;
    int headerLength =
        major == 1
            ? (all[8] & 0xff) | (all[9] & 0xff) << 8
            : (all[8] & 0xff) | (all[9] & 0xff) << 8 | (all[10] & 0xff) << 16;
    String header = new String(all, headerStart, headerLength, StandardCharsets.ISO_8859_1);
    assertTrue(header.contains("'fortran_order': False"), header);
    assertTrue(DESCR.matcher(header).find(), "little-endian or single-byte values: " + header);
    Matcher m = SHAPE.matcher(header);
    assertTrue(m.find(), header);
    long[] shape =
        Arrays.stream(m.group(1).split(","))
            .map(String::trim)
            .filter(s -> !s.isEmpty())
            .mapToLong(Long::parseLong)
            .toArray();
    return new Expected(Arrays.copyOfRange(all, headerStart + headerLength, all.length), shape);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void valuesEqualTheWritersInput(String name, Path store, String path, Path file, JsonNode c)
      throws IOException {
    Expected want = expected(file, c);
    try (Zaro zaro = Zaro.open(store.toString());
        Slab slab = zaro.read(path, "", allocator)) {
      assertArrayEquals(want.shape(), slab.shape(), name + ": shape");
      byte[] got = new byte[(int) slab.byteSize()];
      slab.data().getBytes(0, got);
      assertEquals(want.bytes().length, got.length, name + ": bytes");
      assertArrayEquals(want.bytes(), got, name + " (" + c.get("what").asText() + ")");
    }
  }
}
