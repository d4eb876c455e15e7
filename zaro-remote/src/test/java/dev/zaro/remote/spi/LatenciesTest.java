package dev.zaro.remote.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LatenciesTest {
  /** The one-pass 95th percentile equals the sorted array's element at ceil(0.95 n) - 1. */
  @ParameterizedTest
  @ValueSource(longs = {1, 7, 1000})
  void percentile95IsTheSortedValue(long spread) {
    Random random = new Random(spread);
    for (int n = 1; n <= 64; n++) {
      for (int round = 0; round < 20; round++) {
        long[] values = new long[64];
        for (int i = 0; i < n; i++) {
          values[i] = (long) random.nextInt((int) spread + 1) * 1_000_000 + 5; // ties when small
        }
        long[] sorted = Arrays.copyOf(values, n);
        Arrays.sort(sorted);
        assertEquals(
            sorted[(int) Math.ceil(0.95 * n) - 1],
            Latencies.percentile95(values, n),
            "n " + n + ": " + Arrays.toString(Arrays.copyOf(values, n)));
      }
    }
  }
}
