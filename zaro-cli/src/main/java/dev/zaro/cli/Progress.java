package dev.zaro.cli;

import dev.zaro.arrow.read.ReadOptions;

/** Chunk progress on stderr, shown only when a person is watching a terminal. */
final class Progress implements ReadOptions.Progress {
  private final String label;
  private final boolean enabled;
  private final long startNanos = System.nanoTime();
  private volatile long lastPrint;
  private volatile boolean printed;

  private Progress(String label, boolean enabled) {
    this.label = label;
    this.enabled = enabled;
  }

  static Progress forTerminal(String label) {
    return new Progress(label, System.console() != null && System.getenv("CI") == null);
  }

  @Override
  public void chunksDone(long done, long total) {
    if (!enabled) {
      return;
    }
    long now = System.nanoTime();
    if (now - startNanos < 500_000_000L || (now - lastPrint < 200_000_000L && done < total)) {
      return;
    }
    synchronized (this) {
      lastPrint = now;
      printed = true;
      System.err.printf(
          "\r%s: %d/%d chunks (%d%%)", label, done, total, total == 0 ? 100 : done * 100 / total);
      System.err.flush();
    }
  }

  void finish() {
    if (printed) {
      System.err.println();
    }
  }
}
