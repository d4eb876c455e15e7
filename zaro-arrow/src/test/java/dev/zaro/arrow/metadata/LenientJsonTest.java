package dev.zaro.arrow.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.read.Slab;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Metadata with bare NaN / Infinity / -Infinity, as zarr-python 2 (Python's json) writes them:
 * testdata/lenient, written by zarr-python 2. Read consolidated, unconsolidated and through a
 * kerchunk reference file that holds bare tokens itself.
 */
class LenientJsonTest extends AllocatorTest {
  @TempDir Path temp;

  @ParameterizedTest
  @ValueSource(strings = {"consolidated", "unconsolidated", "reference"})
  void nonFiniteTokensParseAsDoubles(String how) throws IOException {
    Path lenient = Fixtures.testdata().resolve("lenient");
    String location =
        switch (how) {
          case "consolidated" -> lenient.resolve("stores/attrs.zarr").toString();
          case "unconsolidated" ->
              copyWithout(lenient.resolve("stores/attrs.zarr"), ".zmetadata").toString();
          default -> "reference+json://" + lenient.resolve("refs/attrs.json");
        };
    ByteBuffer want =
        ByteBuffer.wrap(Files.readAllBytes(lenient.resolve("expected/attrs.bin")))
            .order(ByteOrder.LITTLE_ENDIAN);
    try (Zaro zaro = Zaro.open(location)) {
      JsonNode attrs = zaro.meta("v").attributes();
      assertTrue(Double.isNaN(attrs.get("valid_min").doubleValue()), attrs.toString());
      assertEquals(Double.POSITIVE_INFINITY, attrs.get("valid_max").doubleValue());
      assertEquals(Double.NEGATIVE_INFINITY, attrs.get("offsets").get(0).doubleValue());
      assertTrue(Double.isNaN(zaro.node("").attributes().get("history").doubleValue()));
      assertEquals(Arrays.asList("y", "x"), zaro.meta("v").dimensionNames());
      try (Slab slab = zaro.read("v", "", allocator)) {
        assertEquals(want.capacity(), slab.byteSize());
        for (int i = 0; i < want.capacity() / 4; i++) {
          float w = want.getFloat(i * 4);
          float g = slab.data().getFloat(i * 4L);
          assertEquals(Float.floatToIntBits(w), Float.floatToIntBits(g), "element " + i);
        }
      }
    }
  }

  private Path copyWithout(Path store, String skip) throws IOException {
    Path out = temp.resolve("copy.zarr");
    try (Stream<Path> files = Files.walk(store)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path target = out.resolve(store.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else if (!f.getFileName().toString().equals(skip)) {
          Files.copy(f, target);
        }
      }
    }
    return out;
  }
}
