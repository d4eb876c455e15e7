package dev.zaro.arrow.read;

/**
 * How a read runs.
 *
 * @param progress told after every chunk; called from worker threads, so it must be
 *     thread-safe; may be {@link Progress#NONE}
 * @param stats where the read counts chunks and bytes, or null not to count
 */
public record ReadOptions(Progress progress, ReadStats stats) {
  public static final ReadOptions DEFAULT = new ReadOptions(Progress.NONE, null);

  public ReadOptions(Progress progress) {
    this(progress, null);
  }

  /** These options, counting into {@code stats}. */
  public ReadOptions withStats(ReadStats stats) {
    return new ReadOptions(progress, stats);
  }

  /** Chunk-level progress of a read. */
  @FunctionalInterface
  public interface Progress {
    Progress NONE = (done, total) -> { };

    void chunksDone(long done, long total);
  }
}
