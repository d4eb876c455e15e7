package dev.zaro.cli;

import dev.zaro.arrow.read.ReadOptions;
import java.io.Console;

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
    return new Progress(label, consoleIsTerminal() && System.getenv("CI") == null);
  }

  /**
   * Whether the JVM is connected to a terminal. Before JDK 22 that is exactly when {@link
   * System#console()} is not null; from 22 on it may also return a console over redirected streams,
   * and {@code Console.isTerminal()} (not in JDK 17's API, hence reflection) tells.
   */
  @SuppressWarnings("SystemConsoleNull") // the null check is the test before JDK 22
  private static boolean consoleIsTerminal() {
    Console console = System.console();
    if (console == null || Runtime.version().feature() < 22) {
      return console != null;
    }
    try {
      return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
    } catch (ReflectiveOperationException e) {
      return false; // no progress rather than a failed command
    }
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
