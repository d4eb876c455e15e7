package dev.zaro.arrow.store;

/**
 * What a store can do, as data (zarrs' model): readers ask this instead of testing classes.
 *
 * @param listable whether {@link Store#list} returns every key (plain HTTP cannot list: its
 *     hierarchies are found through consolidated metadata)
 * @param partialReads whether a byte range costs only its bytes (a ranged read); when false a range
 *     may fetch the whole value first
 * @param latency how long a request waits before its first byte
 */
public record StoreCapabilities(boolean listable, boolean partialReads, Latency latency) {
  /** Local disk or memory: cheap requests, read by the decoding threads themselves. */
  public static final StoreCapabilities LOCAL = new StoreCapabilities(true, true, Latency.LOCAL);

  /** An object store or server: many requests in flight hide each one's latency. */
  public static final StoreCapabilities REMOTE = new StoreCapabilities(true, true, Latency.REMOTE);

  /** Request latency class. */
  public enum Latency {
    /** Microseconds: disk or memory. */
    LOCAL,
    /** Milliseconds: a network round trip per request. */
    REMOTE
  }

  /** Whether the store is remote (reads are requested ahead of the decoders). */
  public boolean isRemote() {
    return latency == Latency.REMOTE;
  }

  /** These capabilities, not listable. */
  public StoreCapabilities unlisted() {
    return new StoreCapabilities(false, partialReads, latency);
  }
}
