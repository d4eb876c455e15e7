package dev.zaro.arrow.read;

import dev.zaro.arrow.codec.SlabView;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.memory.ArrowBuf;

/**
 * The fetch step of one shard read ({@link ShardReader#fetchAsync}): which inner chunks the view
 * needs and their bytes (none yet for nested shards, which are read one level down in the decode
 * step). Owns the fetched buffers until {@link #close}; the decode step ({@link
 * ShardReader#decode}) writes the view, including the fill of inner chunks the index marks absent.
 * Absent ({@link #present} false) when the shard is not in the store.
 */
final class FetchedShard implements AutoCloseable {
  final ShardSource source;
  private final boolean present;
  final List<WantedChunk> wanted;
  final List<SlabView> absent;

  /** The wanted chunks' bytes in order; null when each decode reads its own (a local file). */
  final ArrowBuf[] bytes;

  private final List<ArrowBuf> owned;

  /** The whole shard still arriving, its chunks handed out as they land; else null. */
  final ShardStream stream;

  /** The bytes the stream brings (known from the index before they arrive). */
  private final long streamBytes;

  /** This shard among the read's streamed shards, when the read groups them; else null. */
  LandedChunks.Shard grouped;

  /**
   * The version of the shard's file its index was read under, checked again once decoded ({@link
   * ShardIndexes#unchanged}); null when there is nothing to check (index and chunks from one
   * request).
   */
  final String version;

  FetchedShard(
      ShardSource source,
      String version,
      List<WantedChunk> wanted,
      List<SlabView> absent,
      ArrowBuf[] bytes,
      List<ArrowBuf> owned,
      ShardStream stream,
      long streamBytes) {
    this(source, version, true, wanted, absent, bytes, owned, stream, streamBytes);
  }

  private FetchedShard(
      ShardSource source,
      String version,
      boolean present,
      List<WantedChunk> wanted,
      List<SlabView> absent,
      ArrowBuf[] bytes,
      List<ArrowBuf> owned,
      ShardStream stream,
      long streamBytes) {
    this.source = source;
    this.version = version;
    this.present = present;
    this.wanted = wanted;
    this.absent = absent;
    this.bytes = bytes;
    this.owned = owned;
    this.stream = stream;
    this.streamBytes = streamBytes;
  }

  /** The fetch step of a shard absent from the store. */
  static FetchedShard missing(ShardSource source) {
    return new FetchedShard(source, null, false, List.of(), List.of(), null, List.of(), null, 0);
  }

  boolean present() {
    return present;
  }

  /**
   * Completes once the request bringing these bytes has settled: at once, unless the shard is still
   * arriving ({@link ShardStream}); a prefetch window counts the request in flight until then.
   */
  CompletableFuture<Void> settled() {
    return stream == null ? CompletableFuture.completedFuture(null) : stream.settled();
  }

  /** Bytes this holds (what a prefetch window counts). */
  long heldBytes() {
    return streamBytes + owned.stream().mapToLong(ArrowBuf::capacity).sum();
  }

  @Override
  public void close() {
    owned.forEach(ArrowBuf::close);
    if (grouped != null) {
      grouped.retire(); // no thread decodes from the body once it is freed below
    }
    if (stream != null) {
      stream.close();
    }
  }
}
