package dev.zaro.arrow.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.NodeMetadata;
import dev.zaro.arrow.metadata.internal.ConsolidatedMetadata;
import dev.zaro.arrow.metadata.internal.JsonDocument;

/**
 * Consolidated metadata on any bytes: a v2 {@code .zmetadata} and a v3 root {@code zarr.json} with
 * inline {@code consolidated_metadata}. Every entry is then parsed on its own (one broken entry
 * must not hide the others) and its codec chain built, as opening a hierarchy does.
 */
class ConsolidatedMetadataFuzzTest {

  @FuzzTest
  void v2(byte[] json) {
    FuzzChecks.run(() -> entries(ConsolidatedMetadata.v2(".zmetadata", json)));
  }

  @FuzzTest
  void v3(byte[] json) {
    FuzzChecks.run(
        () ->
            ConsolidatedMetadata.v3Inline(JsonDocument.parse("zarr.json", json))
                .ifPresent(ConsolidatedMetadataFuzzTest::entries));
  }

  private static void entries(ConsolidatedMetadata consolidated) {
    for (String path : consolidated.entries().keySet()) {
      consolidated.hasDescendants(path);
      FuzzChecks.run(
          () -> {
            NodeMetadata node = consolidated.entries().get(path).parse();
            if (node instanceof ArrayMetadata array) {
              FuzzChecks.resolve(array);
            }
          });
    }
  }
}
