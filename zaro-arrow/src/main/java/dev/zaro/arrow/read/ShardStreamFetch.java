package dev.zaro.arrow.read;

import dev.zaro.arrow.codec.PartialDecoder;
import dev.zaro.arrow.codec.ShardIndex;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.exec.Futures;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.Store;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The fetch step of a shard a read takes whole ({@link ShardReader#fetchAsync}): one request for
 * all of its bytes, whose inner chunks are decoded as their bytes land ({@link ShardStream}), the
 * index from the shard's first bytes, the cache, or a second request for its last bytes beside the
 * body.
 */
final class ShardStreamFetch {
  private final Store store;
  private final PartialDecoder codec;
  private final ShardIndexes indexes;

  ShardStreamFetch(Store store, PartialDecoder codec, ShardIndexes indexes) {
    this.store = store;
    this.codec = codec;
    this.indexes = indexes;
  }

  /**
   * A whole shard with one request whose inner chunks are decoded as their bytes land: the fetch
   * step completes as soon as the index is known (cached, or the first bytes of a shard whose index
   * is at its start), and the decode step takes each chunk once its bytes are there ({@link
   * ShardStream}). A shard whose index is at its end and not cached yet (a read's first) has its
   * index asked for beside the body, by a second request for its last bytes; until that answers,
   * the body's landed pieces wait, and a body that settles first is read whole, its own last bytes
   * the index (so is one whose index request fails).
   */
  CompletableFuture<FetchedShard> stream(
      ShardSource source,
      ShardIndex cached,
      String version,
      SlabView view,
      BufferAllocator allocator,
      Executor executor,
      ReadStats stats,
      LandedChunks landed) {
    ShardStream stream = new ShardStream(source.key());
    CompletableFuture<FetchedShard> ready = new CompletableFuture<>();
    AtomicReference<RuntimeException> indexFailure = new AtomicReference<>();
    AtomicBoolean indexing = new AtomicBoolean(cached != null);
    Store.Arrivals arrivals =
        (body, offset, length) -> {
          if (stream.arrived(body, offset, length) && landed != null) {
            landed.landed();
          }
          if (!indexing.get()
              && !codec.indexAtEnd()
              && stream.prefix() >= codec.indexSize()
              && indexing.compareAndSet(false, true)) {
            try {
              ShardIndex index = indexes.indexFromPrefix(source, version, stream, allocator, stats);
              ready.complete(streamed(source, null, index, view, stream, allocator, stats, landed));
            } catch (RuntimeException e) {
              indexFailure.set(e); // reported once the request settles and its body is freed
            }
          }
        };
    CompletableFuture<Optional<ArrowBuf>> request;
    try {
      request = store.getAsync(source.key(), ByteRange.ALL, allocator, executor, arrivals);
    } catch (RuntimeException e) {
      request = CompletableFuture.failedFuture(e);
    }
    stream.request(request);
    if (cached != null) {
      ready.complete(streamed(source, version, cached, view, stream, allocator, stats, landed));
    }
    // an index at the end, not cached: asked for beside the body; the first of the two to settle
    // decides, under `ahead`'s lock, whether the stream is planned from the index (index first) or
    // the body read whole (body first), so that exactly one of them builds the fetch step's result
    IndexAhead ahead = cached == null && codec.indexAtEnd() ? new IndexAhead() : null;
    CompletableFuture<Void> indexSettled =
        ahead == null
            ? CompletableFuture.completedFuture(null)
            : askIndex(
                source, version, view, stream, allocator, executor, stats, landed, ahead, ready);
    var unused =
        request.whenComplete(
            (body, error) -> {
              stream.settle(body, error);
              if (landed != null) {
                landed.landed(); // a stream that failed or ended short: its waiters look again
              }
              if (ahead != null) {
                synchronized (ahead) {
                  ahead.bodySettled = true;
                  if (ahead.claimed && ahead.failure == null) {
                    return; // the index's answer plans the stream (or has)
                  }
                }
              }
              Runnable after =
                  () ->
                      afterBody(
                          source,
                          version,
                          view,
                          stream,
                          body,
                          error,
                          allocator,
                          stats,
                          ahead,
                          indexFailure,
                          ready);
              if (ahead == null) {
                after.run();
              } else {
                // after the index request too, so that no request of this read outlives it
                var unusedAfter = indexSettled.thenRun(after);
              }
            });
    return ready;
  }

  /**
   * What a streaming shard's fetch step completes with once its body settled, unless the stream was
   * planned already: the body read whole (an index at its end that has not answered first), absent,
   * or the failure.
   */
  private void afterBody(
      ShardSource source,
      String version,
      SlabView view,
      ShardStream stream,
      Optional<ArrowBuf> body,
      Throwable error,
      BufferAllocator allocator,
      ReadStats stats,
      IndexAhead ahead,
      AtomicReference<RuntimeException> indexFailure,
      CompletableFuture<FetchedShard> ready) {
    if (ahead != null) {
      if (ahead.failure != null) {
        stream.close();
        ready.completeExceptionally(ahead.failure);
        return;
      }
      if (error == null && body.isPresent()) {
        // the whole body before its index: read whole, its own last bytes the index
        body.get().getReferenceManager().retain(); // for whole(): the stream frees its own
        stream.close();
        try {
          ready.complete(whole(source, version, body.get(), view, allocator, stats));
        } catch (RuntimeException e) {
          ready.completeExceptionally(e);
        }
        return;
      }
    }
    if (ready.isDone()) {
      return;
    }
    stream.close();
    if (error != null) {
      ready.completeExceptionally(Futures.unwrap(error));
    } else if (body.isEmpty()) {
      ready.complete(FetchedShard.missing(source));
    } else if (indexFailure.get() != null) {
      ready.completeExceptionally(indexFailure.get());
    } else {
      ready.completeExceptionally(indexes.truncated(source, body.get().writerIndex()));
    }
  }

  /**
   * Asks for the index at the end of {@code stream}'s shard beside its body ({@link #stream}): if
   * it answers before the body settles, the stream is planned from it and {@code ready} completes
   * with that; else the body decides. Completes once the index request has settled and its buffer
   * is freed or used.
   */
  private CompletableFuture<Void> askIndex(
      ShardSource source,
      String version,
      SlabView view,
      ShardStream stream,
      BufferAllocator allocator,
      Executor executor,
      ReadStats stats,
      LandedChunks landed,
      IndexAhead ahead,
      CompletableFuture<FetchedShard> ready) {
    CompletableFuture<Optional<ArrowBuf>> indexRequest;
    try {
      indexRequest = store.getAsync(source.key(), indexes.indexRange(source), allocator, executor);
    } catch (RuntimeException e) {
      indexRequest = CompletableFuture.failedFuture(e);
    }
    return indexRequest.handle(
        (encoded, error) -> {
          boolean take = error == null && encoded.isPresent();
          synchronized (ahead) {
            take &= !ahead.bodySettled;
            ahead.claimed = take;
          }
          if (!take) {
            if (error == null) {
              encoded.ifPresent(ArrowBuf::close); // the body decides (read whole, or absent)
            }
            return null;
          }
          try {
            ShardIndex index =
                indexes.indexFrom(source, version, encoded, allocator, stats).orElseThrow();
            ready.complete(
                streamed(source, version, index, view, stream, allocator, stats, landed));
          } catch (RuntimeException e) {
            synchronized (ahead) {
              ahead.failure = e;
              if (!ahead.bodySettled) {
                return null; // reported once the body settles (its buffer freed then)
              }
            }
            stream.close(); // settled already: does not wait
            ready.completeExceptionally(e);
          }
          return null;
        });
  }

  /**
   * Which of a shard's two requests, its index (at its end) and its whole body, settled first; read
   * and written under its own lock.
   */
  private static final class IndexAhead {
    boolean claimed; // the index answered first: it plans the stream
    boolean bodySettled;
    RuntimeException failure; // the index that answered first was unreadable
  }

  /** The fetch step's result for a streaming shard: its plan and the stream its chunks come by. */
  private FetchedShard streamed(
      ShardSource source,
      String version,
      ShardIndex index,
      SlabView view,
      ShardStream stream,
      BufferAllocator allocator,
      ReadStats stats,
      LandedChunks landed) {
    List<WantedChunk> wanted = new ArrayList<>();
    List<SlabView> absent = new ArrayList<>();
    WantedChunk.plan(codec, index, view, wanted, absent);
    long[] offsets = new long[wanted.size()];
    long[] lengths = new long[wanted.size()];
    long end = codec.indexAtEnd() ? 0 : codec.indexSize();
    for (int i = 0; i < offsets.length; i++) {
      offsets[i] = wanted.get(i).offset();
      lengths[i] = wanted.get(i).length();
      end = Math.max(end, offsets[i] + lengths[i]);
    }
    long size = end + (codec.indexAtEnd() ? codec.indexSize() : 0);
    stream.want(offsets, lengths, size);
    WantedChunk.fetchedStats(stats, wanted);
    FetchedShard f =
        new FetchedShard(source, version, wanted, absent, null, List.of(), stream, size);
    if (landed != null && !wanted.isEmpty()) {
      f.grouped =
          landed.add(
              stream,
              wanted.size(),
              (k, scratch) -> {
                WantedChunk w = wanted.get(k);
                w.decode(codec, stream.slice(w.offset(), w.length()), allocator, scratch);
                if (stats != null) {
                  stats.decoded(1, w.view().byteSize());
                }
              });
    }
    return f;
  }

  /**
   * A whole shard read with one request: the index from its own bytes, the chunks as slices.
   * Consumes {@code shard}.
   */
  private FetchedShard whole(
      ShardSource source,
      String version,
      ArrowBuf shard,
      SlabView view,
      BufferAllocator allocator,
      ReadStats stats) {
    try {
      long n = shard.writerIndex();
      ShardIndex index = indexes.indexOfWhole(source, version, shard, allocator);
      List<WantedChunk> wanted = new ArrayList<>();
      List<SlabView> absent = new ArrayList<>();
      WantedChunk.plan(codec, index, view, wanted, absent);
      ArrowBuf[] bytes = new ArrowBuf[wanted.size()];
      for (int i = 0; i < bytes.length; i++) {
        WantedChunk w = wanted.get(i);
        bytes[i] = shard.slice(w.offset(), w.length());
        bytes[i].writerIndex(w.length());
      }
      if (stats != null) {
        stats.fetched(n);
      }
      return new FetchedShard(source, null, wanted, absent, bytes, List.of(shard), null, 0);
    } catch (RuntimeException e) {
      shard.close();
      throw e;
    }
  }
}
