package dev.zaro.remote.spi;

/**
 * The latencies of recent good replies, and the hedge budget: at most {@code 2 + requests / 20}
 * hedges (5%).
 */
final class Latencies {
  static final long FLOOR_MILLIS = 100;
  private static final int WINDOW = 64;
  private static final int MIN_SAMPLES = 16;
  private final long[] recent = new long[WINDOW];
  private int count;
  private long requests;
  private long hedges;

  synchronized void record(long nanos) {
    recent[count++ % WINDOW] = nanos;
  }

  /** How long a request may wait before it is hedged, or -1 before there is enough history. */
  synchronized long hedgeDelayMillis() {
    requests++;
    int n = Math.min(count, WINDOW);
    if (n < MIN_SAMPLES) {
      return -1;
    }
    return Math.max(FLOOR_MILLIS, 3 * percentile95(recent, n) / 1_000_000);
  }

  /**
   * The 95th percentile of {@code values[0, n)} (n > 0), the value at index {@code ceil(0.95 n) -
   * 1} of them sorted: the k-th largest for a small k (at most 4 of a window of 64), found in one
   * pass instead of a sort per request.
   */
  static long percentile95(long[] values, int n) {
    int k = n - (int) Math.ceil(0.95 * n) + 1;
    long[] top = new long[k]; // the k largest so far, descending
    int filled = 0;
    for (int i = 0; i < n; i++) {
      long v = values[i];
      if (filled == k && v <= top[k - 1]) {
        continue;
      }
      int j = filled < k ? filled++ : k - 1;
      while (j > 0 && top[j - 1] < v) {
        top[j] = top[j - 1];
        j--;
      }
      top[j] = v;
    }
    return top[k - 1];
  }

  synchronized boolean tryHedge() {
    if (hedges >= 2 + requests / 20) {
      return false;
    }
    hedges++;
    return true;
  }

  synchronized long hedges() {
    return hedges;
  }
}
