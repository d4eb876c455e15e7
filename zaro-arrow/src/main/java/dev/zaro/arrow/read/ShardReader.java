package dev.zaro.arrow.read;

import dev.zaro.arrow.codec.PartialDecoder;
import dev.zaro.arrow.codec.Scratch;
import dev.zaro.arrow.codec.ShardIndex;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.codec.internal.ScratchPool;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.exec.Budget;
import dev.zaro.arrow.exec.Futures;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.Store;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Reads parts of shards, as a partial decoder that wraps the one below it (zarrs' model): the index
 * with one ranged read (prefix or suffix, cached per shard: {@link ShardIndexes}), then only the
 * inner chunks a view needs, their byte ranges read together through {@link Store#getRanges} (the
 * store layer coalesces them). An inner chunk that is itself a shard (nested sharding) is read the
 * same way, one level down, inside its byte range of the outer shard: at any depth only the indexes
 * and the needed innermost chunks are fetched.
 *
 * <p>A read is two steps, fetch then decode, so that remote reads can run the fetches ahead of the
 * decoding threads ({@link #fetchAsync}, used by ZarrArray's prefetch window; docs/cloud.md,
 * "Reading from the cloud"): the fetch step reads the index and the needed bytes into a {@link
 * FetchedShard}, the decode step ({@link #decode}) writes the view. A shard the view covers whole
 * is fetched with one request (index and chunks together) when its index is not cached yet: one
 * round trip, not two.
 */
final class ShardReader {
  /**
   * The most inner chunks of one local shard whose bytes each decode reads for itself: a read of a
   * few (a box: up to eight) waits on its first thread's reads otherwise; a read of many keeps one
   * coalesced read, since per-chunk reads of 64 or more chunks cost more than they overlap
   * (benchmarks/README.md, "A box's reads beside its decodes").
   */
  static final int SPLIT_FETCH_MAX = 8;

  private final Store store;
  private final PartialDecoder codec;
  private final ShardIndexes indexes;
  private final ShardStreamFetch streaming;
  private final ScratchPool scratchPool;

  /** The partial decoder of inner chunks that are shards themselves, else null. */
  private final ShardReader nested;

  /**
   * @param scratchPool where helpers borrow decode buffers, or null
   */
  ShardReader(Store store, PartialDecoder codec, ScratchPool scratchPool) {
    this.store = store;
    this.codec = codec;
    this.scratchPool = scratchPool;
    this.indexes = new ShardIndexes(store, codec);
    this.streaming = new ShardStreamFetch(store, codec, indexes);
    this.nested =
        codec
            .innerChain()
            .partialReader()
            .map(inner -> new ShardReader(store, inner, scratchPool))
            .orElse(null);
  }

  /**
   * Reads the part of shard {@code key} that {@code view} selects; idle threads of the read's
   * budget ({@code scratch.helpers()}) decode inner chunks beside the caller.
   *
   * @return false if the shard is absent from the store (the view then holds the fill value)
   */
  boolean read(
      String key,
      SlabView view,
      BufferAllocator allocator,
      Scratch scratch,
      Budget budget,
      ReadStats stats) {
    return read(ShardSource.whole(key), view, allocator, scratch, budget, stats);
  }

  private boolean read(
      ShardSource source,
      SlabView view,
      BufferAllocator allocator,
      Scratch scratch,
      Budget budget,
      ReadStats stats) {
    try {
      return readChecked(source, view, allocator, scratch, budget, stats);
    } catch (ShardIndexes.ShardChanged e) {
      // once more, index and chunks read again; a second change fails the read
      return readChecked(source, view, allocator, scratch, budget, stats);
    }
  }

  /** {@link #read} under the shard's version now, checked again once decoded. */
  private boolean readChecked(
      ShardSource source,
      SlabView view,
      BufferAllocator allocator,
      Scratch scratch,
      Budget budget,
      ReadStats stats) {
    String version = indexes.version(source);
    return indexes.unchanged(
        source,
        version,
        () -> {
          Optional<ShardIndex> index = indexes.index(source, version, allocator, stats);
          if (index.isEmpty()) {
            view.fill(codec.fillElement());
            return false;
          }
          List<WantedChunk> wanted = new ArrayList<>();
          List<SlabView> absent = new ArrayList<>();
          WantedChunk.plan(codec, index.get(), view, wanted, absent);
          ArrowBuf[] bytes = null;
          List<ArrowBuf> owned = List.of();
          if (nested == null && !wanted.isEmpty()) {
            // a few chunks of a local file: each decode reads its own chunk's bytes (bytes stays
            // null), so the read's helpers read and decode side by side from the start instead of
            // waiting for one thread to read every chunk first
            boolean split =
                wanted.size() > 1
                    && wanted.size() <= SPLIT_FETCH_MAX
                    && !store.capabilities().isRemote();
            if (!split) {
              owned = fetch(source, WantedChunk.ranges(source, wanted), allocator);
              bytes = owned.toArray(new ArrowBuf[0]);
            }
            WantedChunk.fetchedStats(stats, wanted);
          }
          try (FetchedShard f =
              new FetchedShard(source, version, wanted, absent, bytes, owned, null, 0)) {
            return decode(f, allocator, scratch, budget, stats);
          }
        });
  }

  /**
   * The fetch step of {@link #read}, asynchronous and without decoding: the index (cached, or one
   * request), then the needed inner chunks' ranges in one coalesced batch; a shard the view takes
   * whole ({@code whole}: every element inside the array) in one request for all of its bytes,
   * streamed ({@link ShardStreamFetch}). Not for nested sharding ({@link #prefetchable}). {@code
   * view} is only planned here, never written.
   *
   * @param landed the read's streamed shards, which a shard that streams joins (any thread of the
   *     read then decodes its chunks as they land); null: none
   * @return the fetched bytes, owned by the caller ({@link FetchedShard#close}) once the future
   *     completes
   */
  CompletableFuture<FetchedShard> fetchAsync(
      String key,
      SlabView view,
      boolean whole,
      BufferAllocator allocator,
      Executor executor,
      ReadStats stats,
      LandedChunks landed) {
    ShardSource source = ShardSource.whole(key);
    String version = indexes.version(source);
    ShardIndex cached = indexes.cached(source, version);
    if (whole) {
      return streaming.stream(source, cached, version, view, allocator, executor, stats, landed);
    }
    return indexes
        .indexAsync(source, version, cached, allocator, executor, stats)
        .thenCompose(
            found -> {
              if (found.isEmpty()) {
                return CompletableFuture.completedFuture(FetchedShard.missing(source));
              }
              List<WantedChunk> wanted = new ArrayList<>();
              List<SlabView> absent = new ArrayList<>();
              WantedChunk.plan(codec, found.get(), view, wanted, absent);
              if (wanted.isEmpty()) {
                return CompletableFuture.completedFuture(
                    new FetchedShard(
                        source, version, wanted, absent, new ArrowBuf[0], List.of(), null, 0));
              }
              return store
                  .getRangesAsync(key, WantedChunk.ranges(source, wanted), allocator, executor)
                  .handle(
                      (got, error) -> {
                        if (error != null) {
                          throw new CompletionException(indexMismatch(Futures.unwrap(error)));
                        }
                        List<ArrowBuf> bufs =
                            got.orElseThrow(
                                () -> new CompletionException(indexMismatch(disappeared(source))));
                        WantedChunk.fetchedStats(stats, wanted);
                        return new FetchedShard(
                            source,
                            version,
                            wanted,
                            absent,
                            bufs.toArray(new ArrowBuf[0]),
                            bufs,
                            null,
                            0);
                      });
            });
  }

  private static StoreException disappeared(ShardSource source) {
    return new StoreException("shard '" + source.key() + "' disappeared while being read");
  }

  /** True when {@link #fetchAsync} can fetch this shard's bytes (no nested sharding below). */
  boolean prefetchable() {
    return nested == null;
  }

  /**
   * The decode step: fills the inner chunks the index marks absent and decodes the wanted ones (or
   * reads nested shards one level down); idle threads of the read's budget help.
   *
   * @return false if the shard is absent from the store (the whole view is then the fill value)
   */
  boolean decode(
      FetchedShard f,
      SlabView view,
      BufferAllocator allocator,
      Scratch scratch,
      Budget budget,
      ReadStats stats) {
    if (!f.present()) {
      view.fill(codec.fillElement());
      return false;
    }
    return indexes.unchanged(
        f.source, f.version, () -> decode(f, allocator, scratch, budget, stats));
  }

  private boolean decode(
      FetchedShard f, BufferAllocator allocator, Scratch scratch, Budget budget, ReadStats stats) {
    byte[] fill = codec.fillElement();
    for (SlabView v : f.absent) {
      v.fill(fill);
    }
    List<Runnable> decodes = new ArrayList<>();
    Thread caller = Thread.currentThread();
    for (int i = 0; i < f.wanted.size(); i++) {
      WantedChunk w = f.wanted.get(i);
      if (nested != null) {
        // inner shards: read each one's index and needed chunks inside its range, one level down
        ShardSource inner =
            new ShardSource(f.source.key(), f.source.base() + w.offset(), w.length());
        decodes.add(
            () ->
                helping(
                    caller,
                    scratch,
                    s -> {
                      try {
                        nested.read(
                            inner,
                            codec.innerChain().encodedView(w.view()),
                            allocator,
                            s,
                            budget,
                            stats);
                      } catch (CodecException e) {
                        throw w.failed(e);
                      }
                    }));
      } else if (f.grouped != null) {
        // whichever chunk has landed next, of this shard or (while none of it has) of another
        // streamed shard of the read; returns once all of this shard's are decoded
        decodes.add(() -> helping(caller, scratch, s -> f.grouped.decodeAll(s)));
      } else if (f.stream != null) {
        // whichever wanted chunk has landed next, once its bytes are all there
        decodes.add(
            () -> {
              int k = f.stream.next();
              WantedChunk landed = f.wanted.get(k);
              ArrowBuf bytes = f.stream.slice(landed.offset(), landed.length());
              helping(caller, scratch, s -> landed.decode(codec, bytes, allocator, s));
              if (stats != null) {
                stats.decoded(1, landed.view().byteSize());
              }
            });
      } else {
        // null: the decode reads the chunk's bytes itself (a local file: see readChecked)
        ArrowBuf fetched = f.bytes == null ? null : f.bytes[i];
        decodes.add(
            () -> {
              try (ArrowBuf own =
                  fetched != null
                      ? null
                      : fetch(f.source, WantedChunk.ranges(f.source, List.of(w)), allocator)
                          .get(0)) {
                ArrowBuf bytes = fetched != null ? fetched : own;
                helping(caller, scratch, s -> w.decode(codec, bytes, allocator, s));
              }
              if (stats != null) {
                stats.decoded(1, w.view().byteSize());
              }
            });
      }
    }
    // helpers: threads of this read idle now, and any that runs out of chunks meanwhile
    if (decodes.size() == 1) {
      decodes.get(0).run();
    } else {
      budget.share(decodes, scratch.helperExecutor(), scratch.helpers());
    }
    if (f.stream != null) {
      f.stream.awaitSettled();
    }
    return true;
  }

  private List<ArrowBuf> fetch(
      ShardSource source, List<ByteRange.FromStart> ranges, BufferAllocator allocator) {
    try {
      return store
          .getRanges(source.key(), ranges, allocator)
          .orElseThrow(() -> disappeared(source));
    } catch (StoreException e) {
      throw indexMismatch(e);
    }
  }

  private static RuntimeException indexMismatch(Throwable e) {
    if (!(e instanceof StoreException)) {
      return e instanceof RuntimeException r ? r : new CompletionException(e);
    }
    return new CodecException(
        "codec sharding_indexed: the index points at bytes that the shard does not hold: "
            + e.getMessage(),
        e);
  }

  /**
   * Runs {@code work} with the caller's scratch, or on a helper thread with a scratch of its own.
   */
  private void helping(Thread caller, Scratch callerScratch, Consumer<Scratch> work) {
    boolean helper = Thread.currentThread() != caller;
    Scratch scratch =
        !helper
            ? callerScratch
            : scratchPool != null
                ? scratchPool.borrow(callerScratch.allocator(), null, null)
                : new Scratch(callerScratch.allocator());
    try {
      work.accept(scratch);
    } finally {
      if (helper) {
        if (scratchPool != null) {
          scratchPool.release(scratch);
        } else {
          scratch.close();
        }
      }
    }
  }
}
