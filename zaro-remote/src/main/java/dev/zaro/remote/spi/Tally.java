package dev.zaro.remote.spi;

import dev.zaro.arrow.error.StoreException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** What one request's attempts have done so far, for its deadline's message. */
final class Tally {
  final long sentNanos = System.nanoTime();
  final AtomicInteger attempts = new AtomicInteger(); // started (got a permit)
  final AtomicInteger silent = new AtomicInteger(); // cancelled by the no-progress timeout
  volatile boolean expired; // the total deadline passed

  /**
   * The error of a request past its total deadline: one line, naming the request, the host and the
   * wait.
   *
   * @param what the request, for example {@code key 'a/b' (URL)}
   * @param timeout the request's total deadline
   * @param requestTimeout how long one attempt may go without hearing from its server
   */
  StoreException deadlineError(
      String what, String host, Duration timeout, Duration requestTimeout) {
    long waited = System.nanoTime() - sentNanos;
    int sent = attempts.get();
    int quiet = silent.get();
    return new StoreException(
        "cannot read "
            + what
            + ": no complete reply from "
            + host
            + " within the "
            + seconds(timeout.toNanos())
            + " s timeout (waited "
            + seconds(waited)
            + " s; "
            + sent
            + (sent == 1 ? " attempt" : " attempts")
            + " sent"
            + (quiet > 0
                ? ", " + quiet + " of them silent for " + seconds(requestTimeout.toNanos()) + " s"
                : "")
            + (sent == 0 ? ", all waiting for the host's request limit" : "")
            + ")");
  }

  /** Nanoseconds as seconds with at most one decimal ({@code 2.5}, {@code 30}). */
  static String seconds(long nanos) {
    long tenths = Math.round(nanos / 100_000_000.0);
    return tenths % 10 == 0 ? String.valueOf(tenths / 10) : tenths / 10 + "." + tenths % 10;
  }
}
