package dev.zaro.arrow.exec;

/**
 * How one read splits its threads and requests, decided in one place from its options and its chunk
 * count (a pure function of its inputs, like zarrs' {@code calc_concurrency_outer_inner}):
 *
 * <ul>
 *   <li>{@code decodeThreads}: the read's {@link Budget}; a thread running a chunk holds one unit
 *       and work inside a chunk (a shard's inner chunks, a blosc chunk's blocks) may use only the
 *       idle rest. This is the read's one limit on decoding.
 *   <li>{@code chunkThreads}: threads that run chunk tasks (the caller plus {@code chunkThreads -
 *       1} workers). Equal to {@code decodeThreads} unless a remote read fetches on blocking
 *       workers (nested sharding), which then run one per request, up to {@link
 *       #MAX_BLOCKING_FETCHES}.
 *   <li>{@code fetchAhead}: chunks (or shards) are requested asynchronously ahead of the decoding
 *       threads, at most {@code requestsInFlight} at a time.
 * </ul>
 *
 * @param decodeThreads the read's budget of decoding threads, at least 1
 * @param chunkThreads threads running chunk tasks, at least 1 when there is a task
 * @param fetchAhead whether requests run ahead of the decoders (remote stores, more than one task)
 * @param requestsInFlight requests a remote read keeps in flight; 0 for local stores
 */
public record ConcurrencyPolicy(
    int decodeThreads, int chunkThreads, boolean fetchAhead, int requestsInFlight) {

  /** Blocking fetches a remote read runs at once when it cannot fetch asynchronously. */
  public static final int MAX_BLOCKING_FETCHES = 64;

  /**
   * The policy of one read.
   *
   * @param threads the read's decoding threads ({@code ZaroOptions.threads})
   * @param ioConcurrency requests in flight for a remote store, 0 for a local one
   * @param tasks chunks (or shards) the read touches
   * @param prefetchable whether a chunk's fetch can run apart from its decode (false for nested
   *     sharding, which fetches on the decoding thread)
   */
  public static ConcurrencyPolicy of(
      int threads, int ioConcurrency, int tasks, boolean prefetchable) {
    int decode = Math.max(1, threads);
    int io = Math.max(0, ioConcurrency);
    boolean ahead = io > 0 && tasks > 1 && prefetchable;
    int chunk = Math.min(ahead ? decode : blockingThreads(decode, io), tasks);
    return new ConcurrencyPolicy(decode, chunk, ahead, io);
  }

  /** The decoding threads, or enough for one blocking fetch per request in flight. */
  private static int blockingThreads(int decode, int io) {
    return Math.max(decode, Math.min(MAX_BLOCKING_FETCHES, io));
  }

  /**
   * The worker threads a store's reads need besides their callers, who always work themselves
   * ({@link WorkRunner}): for a local store one fewer than the decoding threads (at least one), for
   * a remote store enough for the blocking fetch path (one per request, up to {@link
   * #MAX_BLOCKING_FETCHES}) and the completions of its requests.
   *
   * <p>A local pool of {@code threads} workers was one too many: a read's helper tasks went to
   * whichever worker had waited longest, so each worker parked and was woken about once per small
   * read. With the spin before a run's owner parks ({@link Spin}), one worker fewer made random
   * boxes over 32^3 inner chunks about 9% faster; neither change alone did (benchmarks/README.md,
   * "A read's waits").
   *
   * @param threads the decoding threads
   * @param ioConcurrency requests in flight for a remote store, 0 for a local one
   */
  public static int poolThreads(int threads, int ioConcurrency) {
    int decode = Math.max(1, threads);
    return ioConcurrency <= 0 ? Math.max(1, decode - 1) : blockingThreads(decode, ioConcurrency);
  }
}
