package dev.zaro.arrow.read;

/**
 * How a read runs.
 *
 * @param progress told after every chunk; called from worker threads, so it must be
 *     thread-safe; may be {@link Progress#NONE}
 */
public record ReadOptions(Progress progress) {
  public static final ReadOptions DEFAULT = new ReadOptions(Progress.NONE);

  /** Chunk-level progress of a read. */
  @FunctionalInterface
  public interface Progress {
    Progress NONE = (done, total) -> { };

    void chunksDone(long done, long total);
  }
}
