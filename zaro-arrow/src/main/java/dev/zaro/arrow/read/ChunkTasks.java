package dev.zaro.arrow.read;

import dev.zaro.arrow.codec.Codec;
import dev.zaro.arrow.codec.CodecChain;
import dev.zaro.arrow.codec.Scratch;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.codec.internal.ScratchPool;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.exec.ConcurrencyPolicy;
import dev.zaro.arrow.exec.WorkRunner;
import dev.zaro.arrow.metadata.ChunkGrid;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.Store;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The chunk tasks of one array's reads: each chunk a read touches fetched (ahead of the decoders on
 * a remote store, through {@link Prefetch}), decoded or filled into its view of the output, on the
 * calling thread plus the read's workers; missing chunks per {@link MissingChunks}. Thread-safe: it
 * holds only the array's read setup.
 */
final class ChunkTasks {
  private final Store store;
  private final String displayPath;
  private final ChunkGrid grid;
  private final Function<long[], String> chunkKey;

  /** Codec chains per chunk shape and the decode step. */
  private final ChunkDecoder decoder;

  private final Executor executor;
  private final int parallelism;

  /** Reused decode buffers, or null for a fresh scratch per read. */
  private final ScratchPool scratchPool;

  /** Chunk requests in flight for a remote store (see Prefetch), else 0. */
  private final int ioConcurrency;

  private final MissingChunks missingChunks;

  /** Remote stores: bodies held ahead of the decoders before requesting more; see Prefetch. */
  private final long maxBytesInFlight;

  ChunkTasks(
      Store store,
      String displayPath,
      ChunkGrid grid,
      Function<long[], String> chunkKey,
      ChunkDecoder decoder,
      Executor executor,
      int parallelism,
      ScratchPool scratchPool,
      int ioConcurrency,
      MissingChunks missingChunks,
      long maxBytesInFlight) {
    this.store = store;
    this.displayPath = displayPath;
    this.grid = grid;
    this.chunkKey = chunkKey;
    this.decoder = decoder;
    this.executor = executor;
    this.parallelism = parallelism;
    this.scratchPool = scratchPool;
    this.ioConcurrency = ioConcurrency;
    this.missingChunks = missingChunks;
    this.maxBytesInFlight = maxBytesInFlight;
  }

  /**
   * Reads every chunk task on the calling thread plus up to {@code parallelism - 1} (or {@code
   * ioConcurrency - 1}) workers, through the one {@link WorkRunner}. A worker holds a scratch only
   * while it runs a task, so nothing of a read is in use once the read returns.
   */
  void runChunks(ReadTarget target, int tasks, BufferAllocator allocator, ReadOptions options) {
    if (tasks == 0) {
      return; // an empty selection touches no chunk
    }
    if (CachedGather.gatherCached(target, tasks, grid, decoder, chunkKey, ioConcurrency == 0)) {
      return;
    }
    // remote: fetches run ahead of the decoders (Prefetch), decoding keeps `threads`; a shard's
    // fetch is its index (unless cached) then its needed ranges, or the whole shard at once
    ChunkDecoder.Resolved first =
        decoder.resolve(grid.chunkShape(ReadTarget.chunkIndexOf(target.parts(), 0)));
    ShardReader sharded = first.shardReader();
    ConcurrencyPolicy policy =
        ConcurrencyPolicy.of(
            parallelism, ioConcurrency, tasks, sharded == null || sharded.prefetchable());
    boolean ahead = policy.fetchAhead();
    // what one fetch is expected to hold before any has arrived: a decoded chunk (or shard)
    long firstGuess =
        Math.multiplyExact(
            Math.max(1, target.itemSize()), first.chain().decodedSpec().elementCount());
    // the streamed shards' chunks, decoded by any thread of the read as they land
    LandedChunks landed = ahead && sharded != null ? new LandedChunks() : null;
    try (Prefetch<ArrowBuf> chunks =
            ahead && sharded == null
                ? new Prefetch<>(
                    tasks,
                    t -> fetchChunk(target, t, allocator),
                    ArrowBuf::capacity,
                    firstGuess,
                    policy.requestsInFlight(),
                    maxBytesInFlight)
                : null;
        Prefetch<FetchedShard> shards =
            ahead && sharded != null
                ? new Prefetch<>(
                    tasks,
                    t -> fetchShard(target, t, allocator, landed),
                    FetchedShard::heldBytes,
                    FetchedShard::settled,
                    firstGuess,
                    policy.requestsInFlight(),
                    maxBytesInFlight)
                : null) {
      if (chunks != null) {
        chunks.pump();
      }
      if (shards != null) {
        shards.pump();
      }
      WorkRunner.run(
          tasks,
          t -> {
            Scratch scratch =
                scratchPool != null
                    ? scratchPool.borrow(
                        target.scratch(), target.budget()::idle, target.budget().executor())
                    : new Scratch(target.scratch())
                        .bind(target.scratch(), target.budget()::idle, target.budget().executor());
            try {
              readChunk(target, t, allocator, scratch, chunks, shards);
            } finally {
              if (scratchPool != null) {
                scratchPool.release(scratch);
              } else {
                scratch.close();
              }
            }
          },
          executor,
          policy.chunkThreads() - 1,
          options.control(),
          target.budget());
    } catch (Error e) {
      throw new ZaroException("reading array '" + displayPath + "' failed: " + e, e);
    }
  }

  /**
   * The request for task {@code t}'s chunk (a null body: the chunk is absent); none for a chunk
   * cached under its version now: an empty buffer then tells {@link #readChunk} to copy it from the
   * cache (or, evicted meanwhile, to fetch it after all).
   */
  private CompletableFuture<ArrowBuf> fetchChunk(
      ReadTarget target, int t, BufferAllocator allocator) {
    String key = chunkKey.apply(ReadTarget.chunkIndexOf(target.parts(), t));
    if (target.heap() == null && decoder.isCached(decoder.cacheKey(key))) {
      return CompletableFuture.completedFuture(allocator.getEmpty());
    }
    return store
        .getAsync(key, ByteRange.ALL, allocator, executor)
        .thenApply(body -> body.orElse(null));
  }

  /** The fetch step of task {@code t}'s shard read (its view planned, not written). */
  private CompletableFuture<FetchedShard> fetchShard(
      ReadTarget target, int t, BufferAllocator allocator, LandedChunks landed) {
    ReadTarget.TaskView tv = target.taskView(grid, t);
    ChunkDecoder.Resolved r = decoder.resolve(tv.chunkShape());
    return r.shardReader()
        .fetchAsync(
            chunkKey.apply(tv.chunkIndex()),
            r.chain().encodedView(tv.view()),
            tv.whole(),
            allocator,
            executor,
            target.stats(),
            landed);
  }

  private void readChunk(
      ReadTarget target,
      int task,
      BufferAllocator allocator,
      Scratch scratch,
      Prefetch<ArrowBuf> chunks,
      Prefetch<FetchedShard> shards) {
    ReadTarget.TaskView tv = target.taskView(grid, task);
    decodeChunk(target, task, tv, allocator, scratch, chunks, shards);
    if (target.lists() != null) {
      target.lists().gather(task, tv.view(), target.out(), target.stride());
    }
  }

  /** Decodes (or fills) task {@code task}'s chunk into its view. */
  private void decodeChunk(
      ReadTarget target,
      int task,
      ReadTarget.TaskView tv,
      BufferAllocator allocator,
      Scratch scratch,
      Prefetch<ArrowBuf> chunks,
      Prefetch<FetchedShard> shards) {
    long[] chunkIndex = tv.chunkIndex();
    SlabView view = tv.view();
    ChunkDecoder.Resolved r = decoder.resolve(tv.chunkShape());
    CodecChain chain = r.chain();
    String key = chunkKey.apply(chunkIndex);
    if (r.shardReader() != null) {
      boolean present;
      try (FetchedShard fetched =
          shards != null ? takeShard(shards, task, key, chunkIndex) : null) {
        // null: fetched on this thread (nested sharding)
        present =
            decoder.decodeShard(
                r,
                fetched,
                view,
                allocator,
                scratch,
                target.budget(),
                target.stats(),
                key,
                chunkIndex);
      }
      if (!present) {
        missing(key, chunkIndex, view, target);
      }
      return;
    }
    long fixedSize = chain.encodedSize();
    if (fixedSize >= 0 && ioConcurrency == 0) {
      readFixedSize(key, chunkIndex, view, fixedSize, target, chain, allocator, scratch);
      return;
    }
    // a chunk cached under its version (asked of the store before any fetch) is not fetched
    ChunkCache.Key cacheKey = decoder.cacheKey(key, view);
    Optional<ArrowBuf> encoded;
    try {
      ArrowBuf ahead = chunks != null ? chunks.take(task) : null;
      // empty: cached when the window reached it, not fetched (or a stored chunk of 0 bytes,
      // then fetched again below)
      boolean skipped = ahead != null && ahead.capacity() == 0;
      boolean hit;
      try {
        hit = decoder.fromCache(cacheKey, view);
      } catch (RuntimeException | Error e) {
        if (ahead != null) {
          ahead.close();
        }
        throw e;
      }
      if (hit) {
        if (ahead != null) {
          ahead.close(); // fetched before another read cached the chunk
        }
        return;
      }
      encoded = chunks == null || skipped ? store.get(key, allocator) : Optional.ofNullable(ahead);
      if (skipped) {
        ahead.close(); // the empty buffer: a no-op
      }
    } catch (ZaroException e) {
      throw new StoreException(decoder.context(key, chunkIndex) + e.getMessage(), e);
    }
    if (encoded.isEmpty()) {
      missing(key, chunkIndex, view, target);
      view.fill(target.fill());
      return;
    }
    try (ArrowBuf buf = encoded.get()) {
      decoder.decode(
          buf, view, chain, allocator, scratch, target.stats(), key, chunkIndex, cacheKey);
    }
  }

  /** A shard fetched ahead, its fetch failure naming the array, chunk and key. */
  private FetchedShard takeShard(
      Prefetch<FetchedShard> shards, int task, String key, long[] chunkIndex) {
    try {
      return shards.take(task);
    } catch (CodecException | IllegalArgumentException | IndexOutOfBoundsException e) {
      throw new CodecException(decoder.context(key, chunkIndex) + e.getMessage(), e);
    } catch (StoreException e) {
      throw new StoreException(decoder.context(key, chunkIndex) + e.getMessage(), e);
    }
  }

  /**
   * Chunks of a fixed stored size (uncompressed): read straight into place when the chunk is a
   * contiguous region of the output and needs no decoding, else into the worker's scratch.
   */
  private void readFixedSize(
      String key,
      long[] chunkIndex,
      SlabView view,
      long size,
      ReadTarget target,
      CodecChain chain,
      BufferAllocator allocator,
      Scratch scratch) {
    boolean direct = chain.isPlain() && view.isWholeContiguous();
    ArrowBuf into = direct ? view.target() : scratch.buffer(size);
    long at = direct ? view.offset() : 0;
    OptionalLong n;
    try {
      n = store.getInto(key, ByteRange.ALL, into, at, size);
    } catch (StoreException e) {
      throw new StoreException(decoder.context(key, chunkIndex) + e.getMessage(), e);
    }
    if (n.isEmpty()) {
      missing(key, chunkIndex, view, target);
      view.fill(target.fill());
      return;
    }
    if (target.stats() != null) {
      target.stats().fetched(n.getAsLong());
      target.stats().decoded(1, view.byteSize());
    }
    if (n.getAsLong() != size) {
      List<Codec> codecs = chain.codecs(); // the last one reads the stored bytes
      throw new CodecException(
          decoder.context(key, chunkIndex)
              + "codec "
              + codecs.get(codecs.size() - 1).name()
              + ": chunk has "
              + n.getAsLong()
              + " bytes, expected "
              + size);
    }
    if (!direct) {
      ArrowBuf encoded = into.slice(0, size);
      encoded.writerIndex(size);
      decoder.decodeFixed(encoded, view, chain, allocator, key, chunkIndex);
    }
  }

  /** A chunk absent from the store: an error under {@link MissingChunks#ERROR}, else nothing. */
  private void missing(String key, long[] chunkIndex, SlabView view, ReadTarget target) {
    if (target.stats() != null) {
      target.stats().missing(view.byteSize());
    }
    if (missingChunks == MissingChunks.ERROR) {
      throw new StoreException(
          ErrorKind.MISSING_CHUNK,
          decoder.context(key, chunkIndex)
              + "the chunk is absent from the store (missing chunks are errors here; by default they read as the"
              + " fill value)");
    }
  }
}
