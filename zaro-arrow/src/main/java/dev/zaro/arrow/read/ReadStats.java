package dev.zaro.arrow.read;

import java.util.concurrent.atomic.LongAdder;

/**
 * What reads cost, counted as they run: pass one in {@link ReadOptions#withStats} and read it after
 * (or during) the reads; one instance may collect many reads (a query, a Spark task). Thread-safe;
 * counting is a few uncontended adds per chunk.
 */
public final class ReadStats {
  private final LongAdder chunksDecoded = new LongAdder();
  private final LongAdder chunksMissing = new LongAdder();
  private final LongAdder requests = new LongAdder();
  private final LongAdder bytesFetched = new LongAdder();
  private final LongAdder bytesDecoded = new LongAdder();

  /** Counters at zero. */
  public ReadStats() {}

  /** Chunks decoded (inner chunks, for sharded arrays); a chunk decoded twice counts twice. */
  public long chunksDecoded() {
    return chunksDecoded.sum();
  }

  /** Chunks (or shards) absent from the store, read as the fill value. */
  public long chunksMissing() {
    return chunksMissing.sum();
  }

  /** Store requests that returned bytes (chunk reads, shard index and range reads). */
  public long requests() {
    return requests.sum();
  }

  /** Encoded bytes fetched from the store. */
  public long bytesFetched() {
    return bytesFetched.sum();
  }

  /** Decoded bytes written into read outputs (the selected elements times their size). */
  public long bytesDecoded() {
    return bytesDecoded.sum();
  }

  void fetched(long bytes) {
    requests.increment();
    bytesFetched.add(bytes);
  }

  void decoded(long chunks, long bytes) {
    chunksDecoded.add(chunks);
    bytesDecoded.add(bytes);
  }

  void missing(long bytes) {
    chunksMissing.increment();
    bytesDecoded.add(bytes);
  }

  @Override
  public String toString() {
    return "ReadStats[chunks decoded "
        + chunksDecoded()
        + ", missing "
        + chunksMissing()
        + ", requests "
        + requests()
        + ", bytes fetched "
        + bytesFetched()
        + ", bytes decoded "
        + bytesDecoded()
        + "]";
  }
}
