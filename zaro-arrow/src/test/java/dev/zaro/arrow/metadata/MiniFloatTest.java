package dev.zaro.arrow.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.internal.HalfFloat;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Double to bits conversions of every small float format against ml_dtypes' and numpy's own
 * (testdata/fallback/conversions.json, testdata/mlfloats/conversions.json for float8_e8m0fnu):
 * ties, subnormals, overflow, infinities, NaN, signed zeros. Bits to float32 (every pattern of
 * every format) is checked against ml_dtypes by FixtureReadTest over testdata/mlfloats.
 */
class MiniFloatTest {

  static Stream<Arguments> formats() throws IOException {
    List<Arguments> out = new ArrayList<>();
    for (String set : List.of("fallback", "mlfloats")) {
      JsonNode oracle =
          Json.readTree(
              Files.readAllBytes(Fixtures.testdata().resolve(set).resolve("conversions.json")));
      for (Map.Entry<String, JsonNode> e : oracle.properties()) {
        out.add(Arguments.of(e.getKey(), e.getValue()));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("formats")
  void encodesLikeMlDtypes(String name, JsonNode cases) {
    MiniFloat format =
        name.equals("float16") ? MiniFloat.BINARY16 : MiniFloat.named(name).orElseThrow();
    int checked = 0;
    for (JsonNode c : cases) {
      String text = c.get(0).asText();
      double value =
          switch (text) {
            case "NaN" -> Double.NaN;
            case "Infinity" -> Double.POSITIVE_INFINITY;
            case "-Infinity" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(text);
          };
      assertEquals(c.get(1).intValue(), format.encode(value), () -> name + " of " + text);
      checked++;
    }
    assertEquals(cases.size(), checked);
    if (name.equals("float16")) {
      for (JsonNode c : cases) {
        String text = c.get(0).asText();
        if (!text.equals("NaN") && !text.contains("Infinity")) {
          assertEquals(
              (short) c.get(1).intValue(), HalfFloat.fromDouble(Double.parseDouble(text)), text);
        }
      }
    }
  }
}
