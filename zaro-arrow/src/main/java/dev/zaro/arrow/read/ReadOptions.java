package dev.zaro.arrow.read;

import dev.zaro.arrow.exec.Control;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * How a read runs.
 *
 * @param progress told after every chunk; called from worker threads, so it must be thread-safe;
 *     may be {@link Progress#NONE}
 * @param stats where the read counts chunks and bytes, or null not to count
 * @param cancelled checked before every chunk: once true, the read stops with an error
 * @param deadlineNanos {@link System#nanoTime()} after which the read fails, or {@link
 *     Long#MAX_VALUE} for none
 */
public record ReadOptions(
    Progress progress, ReadStats stats, BooleanSupplier cancelled, long deadlineNanos) {
  /** No progress, no stats, no cancellation, no deadline. */
  public static final ReadOptions DEFAULT = new ReadOptions(Progress.NONE);

  /** Options reporting to {@code progress}, without stats, cancellation or deadline. */
  public ReadOptions(Progress progress) {
    this(progress, null);
  }

  /** Options reporting to {@code progress} and counting into {@code stats}. */
  public ReadOptions(Progress progress, ReadStats stats) {
    this(progress, stats, () -> false, Long.MAX_VALUE);
  }

  /** These options, counting into {@code stats}. */
  public ReadOptions withStats(ReadStats stats) {
    return new ReadOptions(progress, stats, cancelled, deadlineNanos);
  }

  /** These options, stopping the read once {@code cancelled} turns true. */
  public ReadOptions withCancellation(BooleanSupplier cancelled) {
    return new ReadOptions(progress, stats, cancelled, deadlineNanos);
  }

  /** These options, failing a read still running {@code timeout} from now. */
  public ReadOptions withTimeout(Duration timeout) {
    return new ReadOptions(progress, stats, cancelled, System.nanoTime() + timeout.toNanos());
  }

  /** Cancellation, deadline and progress as the work runner takes them. */
  Control control() {
    return new Control(cancelled, deadlineNanos, progress::chunksDone);
  }

  /** Chunk-level progress of a read. */
  @FunctionalInterface
  public interface Progress {
    /** Reports nothing. */
    Progress NONE = (done, total) -> {};

    /** {@code done} of the read's {@code total} chunks are finished. */
    void chunksDone(long done, long total);
  }
}
