package dev.zaro.arrow.exec;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import java.util.function.BooleanSupplier;

/**
 * What a caller steers a running read with, in one place: cancellation (checked before every task),
 * a deadline, and progress (told after every task). Immutable; thread-safe if its parts are.
 *
 * @param cancelled true once the caller gives up (a client hung up, a query was cancelled)
 * @param deadlineNanos {@link System#nanoTime()} after which the read fails, or {@link
 *     Long#MAX_VALUE} for none
 * @param progress told {@code (done, total)} after each task, from worker threads
 */
public record Control(BooleanSupplier cancelled, long deadlineNanos, Progress progress) {
  /** No cancellation, no deadline, no progress reports. */
  public static final Control NONE = new Control(() -> false, Long.MAX_VALUE, Progress.NONE);

  /** Progress of a run of tasks; must be thread-safe. */
  @FunctionalInterface
  public interface Progress {
    /** Reports nothing. */
    Progress NONE = (done, total) -> {};

    /** {@code done} of {@code total} tasks have finished. */
    void done(long done, long total);
  }

  /** Fails if the caller cancelled or the deadline passed. */
  public void check() {
    if (cancelled.getAsBoolean()) {
      throw new ZaroException(ErrorKind.INTERNAL, "the read was cancelled");
    }
    if (deadlineNanos != Long.MAX_VALUE && System.nanoTime() - deadlineNanos > 0) {
      throw new ZaroException(ErrorKind.INTERNAL, "the read ran past its deadline");
    }
  }
}
