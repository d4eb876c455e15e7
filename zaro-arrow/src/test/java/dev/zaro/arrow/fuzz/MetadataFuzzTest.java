package dev.zaro.arrow.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.NodeMetadata;
import dev.zaro.arrow.metadata.internal.V2Metadata;
import dev.zaro.arrow.metadata.internal.V3Metadata;
import java.util.Arrays;

/**
 * Zarr v3 {@code zarr.json} and v2 {@code .zarray}/{@code .zgroup} (+ {@code .zattrs}) documents on
 * any bytes, as far as a reader takes them before touching chunks: the parsed metadata and the
 * codec chain built from it (every codec's configuration parser, sharding's nested chains).
 */
class MetadataFuzzTest {

  /** One {@code zarr.json}. */
  @FuzzTest
  void v3(byte[] json) {
    FuzzChecks.run(
        () -> {
          NodeMetadata node = V3Metadata.parse("zarr.json", json);
          if (node instanceof ArrayMetadata array) {
            FuzzChecks.resolve(array);
          }
        });
  }

  /**
   * A node document, parsed both as a {@code .zarray} and as a {@code .zgroup}, and, after the
   * first NUL byte (which JSON text never holds), its {@code .zattrs}.
   */
  @FuzzTest
  void v2(byte[] input) {
    int nul = 0;
    while (nul < input.length && input[nul] != 0) {
      nul++;
    }
    byte[] node = Arrays.copyOf(input, nul);
    byte[] attrs = nul < input.length ? Arrays.copyOfRange(input, nul + 1, input.length) : null;
    FuzzChecks.run(
        () -> {
          ArrayMetadata array = V2Metadata.parseArray(".zarray", node, ".zattrs", attrs);
          FuzzChecks.resolve(array);
        });
    FuzzChecks.run(() -> V2Metadata.parseGroup(".zgroup", node, ".zattrs", attrs));
  }
}
