package dev.zaro.arrow.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.zaro.arrow.plan.Selection;
import java.nio.charset.StandardCharsets;

/**
 * The selection parser ({@link Selection#parse}) on any text and shape. Input: one byte of rank
 * (0..7), a 4-byte big-endian size per dimension, then the selection text (UTF-8).
 *
 * <p>Beyond "typed errors only", a parsed selection must stay inside the shape and its {@link
 * Selection#canonical()} text must parse back to the same dimensions, as documented.
 */
class SelectionFuzzTest {

  @FuzzTest
  void parse(byte[] input) {
    if (input.length < 1) {
      return;
    }
    int rank = (input[0] & 0xff) % 8;
    if (input.length < 1 + 4 * rank) {
      return;
    }
    long[] shape = new long[rank];
    for (int d = 0; d < rank; d++) {
      shape[d] = FuzzChecks.unsigned(input, 1 + 4 * d, 4) & 0xffffffffL;
    }
    String text =
        new String(input, 1 + 4 * rank, input.length - 1 - 4 * rank, StandardCharsets.UTF_8);
    FuzzChecks.run(
        () -> {
          Selection s = Selection.parse(text, shape);
          assertEquals(rank, s.dims().size());
          for (int d = 0; d < rank; d++) {
            Selection.Dim dim = s.dims().get(d);
            assertTrue(dim.count() >= 0, dim.toString());
            if (dim.isList()) {
              for (long k = 0; k < dim.count(); k++) {
                assertTrue(dim.index(k) >= 0 && dim.index(k) < shape[d], dim + " outside");
              }
              continue;
            }
            assertTrue(dim.step() > 0 && dim.start() >= 0, dim.toString());
            if (dim.count() > 0) {
              assertTrue(
                  dim.start() + (dim.count() - 1) * dim.step() < shape[d],
                  dim + " outside size " + shape[d]);
            }
          }
          assertEquals(
              s.dims(),
              Selection.parse(s.canonical(), shape).dims(),
              "canonical form " + s.canonical());
        });
  }
}
