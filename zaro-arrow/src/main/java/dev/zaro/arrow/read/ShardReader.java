package dev.zaro.arrow.read;

import dev.zaro.arrow.codec.PartialDecoder;
import dev.zaro.arrow.codec.Scratch;
import dev.zaro.arrow.codec.ShardIndex;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.codec.internal.ChunkPart;
import dev.zaro.arrow.codec.internal.ScratchPool;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.exec.Budget;
import dev.zaro.arrow.exec.Futures;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.Store;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Reads parts of shards, as a partial decoder that wraps the one below it (zarrs' model): the index
 * with one ranged read (prefix or suffix, cached per shard: see {@link #version}), then only the
 * inner chunks a view needs, their byte ranges read together through {@link Store#getRanges} (the
 * store layer coalesces them). An inner chunk that is itself a shard (nested sharding) is read the
 * same way, one level down, inside its byte range of the outer shard: at any depth only the indexes
 * and the needed innermost chunks are fetched.
 *
 * <p>A read is two steps, fetch then decode, so that remote reads can run the fetches ahead of the
 * decoding threads ({@link #fetchAsync}, used by ZarrArray's prefetch window; docs/cloud.md,
 * "Reading from the cloud"): the fetch step reads the index and the needed bytes into a {@link
 * Fetched}, the decode step ({@link #decode}) writes the view. A shard the view covers whole is
 * fetched with one request (index and chunks together) when its index is not cached yet: one round
 * trip, not two.
 */
final class ShardReader {
  private static final int INDEX_CACHE_ENTRIES = 4096;

  /**
   * The most inner chunks of one local shard whose bytes each decode reads for itself: a read of a
   * few (a box: up to eight) waits on its first thread's reads otherwise; a read of many keeps one
   * coalesced read, since per-chunk reads of 64 or more chunks cost more than they overlap
   * (benchmarks/README.md, "A box's reads beside its decodes").
   */
  static final int SPLIT_FETCH_MAX = 8;

  private final Store store;
  private final PartialDecoder codec;
  private final Map<String, CachedIndex> indexes = new ConcurrentHashMap<>();

  /** A cached index and the version of its shard's file it was read under. */
  private record CachedIndex(ShardIndex index, String version) {}

  /** The version of a shard on a store whose versions are not asked ({@link #version}). */
  private static final String UNVERSIONED = "";

  /** Whether cached indexes are checked against the shard's version on every read. */
  private final boolean versioned;

  /** Index reads in progress, so that threads asking for one shard's index at once share one. */
  private final Map<String, CompletableFuture<Optional<ShardIndex>>> loading =
      new ConcurrentHashMap<>();

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
    this.versioned = !store.capabilities().isRemote();
    this.nested =
        codec
            .innerChain()
            .partialReader()
            .map(inner -> new ShardReader(store, inner, scratchPool))
            .orElse(null);
  }

  /**
   * Where a shard's bytes are: the whole value of {@code key} ({@code length < 0}), or {@code
   * length} bytes at {@code base} inside it (a shard nested in another).
   */
  private record Source(String key, long base, long length) {
    ByteRange range(long offset, long n) {
      return ByteRange.of(base + offset, n);
    }

    String cacheKey() {
      return length < 0 ? key : key + "@" + base;
    }
  }

  @SuppressWarnings("ArrayRecordComponent") // a read's private carrier, never compared
  private record Wanted(long[] innerIndex, SlabView view, long offset, long length) {}

  /**
   * The fetch step of one shard read: which inner chunks the view needs and their bytes (none yet
   * for nested shards, which are read one level down in the decode step). Owns the fetched buffers
   * until {@link #close}; the decode step writes the view, including the fill of inner chunks the
   * index marks absent. Absent ({@link #present} false) when the shard is not in the store.
   */
  static final class Fetched implements AutoCloseable {
    private final Source source;
    private final boolean present;
    private final List<Wanted> wanted;
    private final List<SlabView> absent;
    private final ArrowBuf[] bytes;
    private final List<ArrowBuf> owned;

    /** The whole shard still arriving, its chunks handed out as they land; else null. */
    private final ShardStream stream;

    /** The bytes the stream brings (known from the index before they arrive). */
    private final long streamBytes;

    /** This shard among the read's streamed shards, when the read groups them; else null. */
    private LandedChunks.Shard grouped;

    /**
     * The version of the shard's file its index was read under, checked again once decoded ({@link
     * #checkUnchanged}); null when there is nothing to check (index and chunks from one request).
     */
    private final String version;

    private Fetched(
        Source source,
        String version,
        boolean present,
        List<Wanted> wanted,
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

    static Fetched missing(Source source) {
      return new Fetched(source, null, false, List.of(), List.of(), null, List.of(), null, 0);
    }

    boolean present() {
      return present;
    }

    /**
     * Completes once the request bringing these bytes has settled: at once, unless the shard is
     * still arriving ({@link ShardStream}); a prefetch window counts the request in flight until
     * then.
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
    return read(new Source(key, 0, -1), view, allocator, scratch, budget, stats);
  }

  private boolean read(
      Source source,
      SlabView view,
      BufferAllocator allocator,
      Scratch scratch,
      Budget budget,
      ReadStats stats) {
    try {
      return readChecked(source, view, allocator, scratch, budget, stats);
    } catch (ShardChanged e) {
      // once more, index and chunks read again; a second change fails the read
      return readChecked(source, view, allocator, scratch, budget, stats);
    }
  }

  /** {@link #read} under the shard's version now, checked again once decoded. */
  private boolean readChecked(
      Source source,
      SlabView view,
      BufferAllocator allocator,
      Scratch scratch,
      Budget budget,
      ReadStats stats) {
    String version = version(source);
    return unchanged(
        source,
        version,
        () -> {
          Optional<ShardIndex> index = index(source, version, allocator, stats);
          if (index.isEmpty()) {
            view.fill(codec.fillElement());
            return false;
          }
          List<Wanted> wanted = new ArrayList<>();
          List<SlabView> absent = new ArrayList<>();
          plan(index.get(), view, wanted, absent);
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
              owned = fetch(source, ranges(source, wanted), allocator);
              bytes = owned.toArray(new ArrowBuf[0]);
            }
            fetchedStats(stats, wanted);
          }
          try (Fetched f =
              new Fetched(source, version, true, wanted, absent, bytes, owned, null, 0)) {
            return decode(f, allocator, scratch, budget, stats);
          }
        });
  }

  /**
   * The fetch step of {@link #read}, asynchronous and without decoding: the index (cached, or one
   * request), then the needed inner chunks' ranges in one coalesced batch; a shard the view takes
   * whole ({@code whole}: every element inside the array) in one request for all of its bytes,
   * streamed ({@link #stream}). Not for nested sharding ({@link #prefetchable}). {@code view} is
   * only planned here, never written.
   *
   * @param landed the read's streamed shards, which a shard that streams joins (any thread of the
   *     read then decodes its chunks as they land); null: none
   * @return the fetched bytes, owned by the caller ({@link Fetched#close}) once the future
   *     completes
   */
  CompletableFuture<Fetched> fetchAsync(
      String key,
      SlabView view,
      boolean whole,
      BufferAllocator allocator,
      Executor executor,
      ReadStats stats,
      LandedChunks landed) {
    Source source = new Source(key, 0, -1);
    String version = version(source);
    ShardIndex cached = cached(source, version);
    if (whole) {
      return stream(source, cached, version, view, allocator, executor, stats, landed);
    }
    CompletableFuture<Optional<ShardIndex>> index =
        cached != null
            ? CompletableFuture.completedFuture(Optional.of(cached))
            : store
                .getAsync(key, indexRange(source), allocator, executor)
                .handle(
                    (encoded, error) -> {
                      if (error != null) {
                        Throwable e = Futures.unwrap(error);
                        throw new CompletionException(
                            e instanceof StoreException se ? unreadableIndex(se) : e);
                      }
                      return indexFrom(source, version, encoded, allocator, stats);
                    });
    return index.thenCompose(
        found -> {
          if (found.isEmpty()) {
            return CompletableFuture.completedFuture(Fetched.missing(source));
          }
          List<Wanted> wanted = new ArrayList<>();
          List<SlabView> absent = new ArrayList<>();
          plan(found.get(), view, wanted, absent);
          if (wanted.isEmpty()) {
            return CompletableFuture.completedFuture(
                new Fetched(
                    source, version, true, wanted, absent, new ArrowBuf[0], List.of(), null, 0));
          }
          return store
              .getRangesAsync(key, ranges(source, wanted), allocator, executor)
              .handle(
                  (got, error) -> {
                    if (error != null) {
                      throw new CompletionException(indexMismatch(Futures.unwrap(error)));
                    }
                    List<ArrowBuf> bufs =
                        got.orElseThrow(
                            () ->
                                new CompletionException(
                                    indexMismatch(
                                        new StoreException(
                                            "shard '"
                                                + source.key()
                                                + "' disappeared while being read"))));
                    fetchedStats(stats, wanted);
                    return new Fetched(
                        source,
                        version,
                        true,
                        wanted,
                        absent,
                        bufs.toArray(new ArrowBuf[0]),
                        bufs,
                        null,
                        0);
                  });
        });
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
  private CompletableFuture<Fetched> stream(
      Source source,
      ShardIndex cached,
      String version,
      SlabView view,
      BufferAllocator allocator,
      Executor executor,
      ReadStats stats,
      LandedChunks landed) {
    ShardStream stream = new ShardStream(source.key());
    CompletableFuture<Fetched> ready = new CompletableFuture<>();
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
              ShardIndex index = indexFromPrefix(source, version, stream, allocator, stats);
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
      Source source,
      String version,
      SlabView view,
      ShardStream stream,
      Optional<ArrowBuf> body,
      Throwable error,
      BufferAllocator allocator,
      ReadStats stats,
      IndexAhead ahead,
      AtomicReference<RuntimeException> indexFailure,
      CompletableFuture<Fetched> ready) {
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
          ready.complete(whole(source, version, body, view, allocator, stats));
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
      ready.complete(Fetched.missing(source));
    } else if (indexFailure.get() != null) {
      ready.completeExceptionally(indexFailure.get());
    } else {
      ready.completeExceptionally(
          new CodecException(
              "codec sharding_indexed: cannot read the "
                  + codec.indexSize()
                  + "-byte shard index: shard '"
                  + source.key()
                  + "' holds only "
                  + body.get().writerIndex()
                  + " bytes (the shard is truncated?)"));
    }
  }

  /**
   * Asks for the index at the end of {@code stream}'s shard beside its body ({@link #stream}): if
   * it answers before the body settles, the stream is planned from it and {@code ready} completes
   * with that; else the body decides. Completes once the index request has settled and its buffer
   * is freed or used.
   */
  private CompletableFuture<Void> askIndex(
      Source source,
      String version,
      SlabView view,
      ShardStream stream,
      BufferAllocator allocator,
      Executor executor,
      ReadStats stats,
      LandedChunks landed,
      IndexAhead ahead,
      CompletableFuture<Fetched> ready) {
    CompletableFuture<Optional<ArrowBuf>> indexRequest;
    try {
      indexRequest = store.getAsync(source.key(), indexRange(source), allocator, executor);
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
            ShardIndex index = indexFrom(source, version, encoded, allocator, stats).orElseThrow();
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

  /** The index at the start of a streaming shard, from its first bytes; validated and cached. */
  private ShardIndex indexFromPrefix(
      Source source,
      String version,
      ShardStream stream,
      BufferAllocator allocator,
      ReadStats stats) {
    ShardIndex index = codec.decodeIndex(stream.slice(0, codec.indexSize()), allocator);
    index.validate(codec.dataStart(), Long.MAX_VALUE);
    if (stats != null) {
      stats.fetched(codec.indexSize());
    }
    cache(source, version, index);
    return index;
  }

  /** The fetch step's result for a streaming shard: its plan and the stream its chunks come by. */
  private Fetched streamed(
      Source source,
      String version,
      ShardIndex index,
      SlabView view,
      ShardStream stream,
      BufferAllocator allocator,
      ReadStats stats,
      LandedChunks landed) {
    List<Wanted> wanted = new ArrayList<>();
    List<SlabView> absent = new ArrayList<>();
    plan(index, view, wanted, absent);
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
    fetchedStats(stats, wanted);
    Fetched f = new Fetched(source, version, true, wanted, absent, null, List.of(), stream, size);
    if (landed != null && !wanted.isEmpty()) {
      f.grouped =
          landed.add(
              stream,
              wanted.size(),
              (k, scratch) -> {
                Wanted w = wanted.get(k);
                decodeInner(w, stream.slice(w.offset(), w.length()), allocator, scratch);
                if (stats != null) {
                  stats.decoded(1, w.view().byteSize());
                }
              });
    }
    return f;
  }

  /** True when {@link #fetchAsync} can fetch this shard's bytes (no nested sharding below). */
  boolean prefetchable() {
    return nested == null;
  }

  /** A whole shard read with one request: the index from its own bytes, the chunks as slices. */
  private Fetched whole(
      Source source,
      String version,
      Optional<ArrowBuf> body,
      SlabView view,
      BufferAllocator allocator,
      ReadStats stats) {
    if (body.isEmpty()) {
      return Fetched.missing(source);
    }
    ArrowBuf shard = body.get();
    try {
      long n = shard.writerIndex();
      long size = codec.indexSize();
      if (n < size) {
        throw new CodecException(
            "codec sharding_indexed: cannot read the "
                + size
                + "-byte shard index: shard '"
                + source.key()
                + "' holds only "
                + n
                + " bytes (the shard is truncated?)");
      }
      ArrowBuf encodedIndex = shard.slice(codec.indexAtEnd() ? n - size : 0, size);
      encodedIndex.writerIndex(size);
      ShardIndex index = codec.decodeIndex(encodedIndex, allocator);
      index.validate(codec.dataStart(), codec.indexAtEnd() ? n - size : n);
      cache(source, version, index);
      List<Wanted> wanted = new ArrayList<>();
      List<SlabView> absent = new ArrayList<>();
      plan(index, view, wanted, absent);
      ArrowBuf[] bytes = new ArrowBuf[wanted.size()];
      for (int i = 0; i < bytes.length; i++) {
        Wanted w = wanted.get(i);
        bytes[i] = shard.slice(w.offset(), w.length());
        bytes[i].writerIndex(w.length());
      }
      if (stats != null) {
        stats.fetched(n);
      }
      return new Fetched(source, null, true, wanted, absent, bytes, List.of(shard), null, 0);
    } catch (RuntimeException e) {
      shard.close();
      throw e;
    }
  }

  /** The inner chunks {@code view} needs: present ones into {@code wanted}, absent ones' views. */
  private void plan(ShardIndex index, SlabView view, List<Wanted> wanted, List<SlabView> absent) {
    ChunkPart.forEachChunk(
        view,
        codec.innerShape(),
        (innerIndex, innerView) -> {
          int p = index.position(innerIndex);
          if (index.isAbsent(p)) {
            absent.add(innerView);
          } else {
            wanted.add(new Wanted(innerIndex, innerView, index.offset(p), index.length(p)));
          }
        });
  }

  private static List<ByteRange.FromStart> ranges(Source source, List<Wanted> wanted) {
    return wanted.stream()
        .map(w -> (ByteRange.FromStart) source.range(w.offset(), w.length()))
        .toList();
  }

  private static void fetchedStats(ReadStats stats, List<Wanted> wanted) {
    if (stats != null && !wanted.isEmpty()) {
      stats.fetched(wanted.stream().mapToLong(Wanted::length).sum());
    }
  }

  /**
   * The decode step: fills the inner chunks the index marks absent and decodes the wanted ones (or
   * reads nested shards one level down); idle threads of the read's budget help.
   *
   * @return false if the shard is absent from the store (the whole view is then the fill value)
   */
  boolean decode(
      Fetched f,
      SlabView view,
      BufferAllocator allocator,
      Scratch scratch,
      Budget budget,
      ReadStats stats) {
    if (!f.present()) {
      view.fill(codec.fillElement());
      return false;
    }
    return unchanged(f.source, f.version, () -> decode(f, allocator, scratch, budget, stats));
  }

  private boolean decode(
      Fetched f, BufferAllocator allocator, Scratch scratch, Budget budget, ReadStats stats) {
    byte[] fill = codec.fillElement();
    for (SlabView v : f.absent) {
      v.fill(fill);
    }
    List<Runnable> decodes = new ArrayList<>();
    Thread caller = Thread.currentThread();
    for (int i = 0; i < f.wanted.size(); i++) {
      Wanted w = f.wanted.get(i);
      if (nested != null) {
        // inner shards: read each one's index and needed chunks inside its range, one level down
        Source inner = new Source(f.source.key(), f.source.base() + w.offset(), w.length());
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
                        throw new CodecException(
                            "inner chunk "
                                + Arrays.toString(w.innerIndex())
                                + ": "
                                + e.getMessage(),
                            e);
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
              Wanted landed = f.wanted.get(k);
              ArrowBuf bytes = f.stream.slice(landed.offset(), landed.length());
              helping(caller, scratch, s -> decodeInner(landed, bytes, allocator, s));
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
                      : fetch(f.source, ranges(f.source, List.of(w)), allocator).get(0)) {
                ArrowBuf bytes = fetched != null ? fetched : own;
                helping(caller, scratch, s -> decodeInner(w, bytes, allocator, s));
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
      Source source, List<ByteRange.FromStart> ranges, BufferAllocator allocator) {
    try {
      return store
          .getRanges(source.key(), ranges, allocator)
          .orElseThrow(
              () ->
                  new StoreException("shard '" + source.key() + "' disappeared while being read"));
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

  /** Decodes one inner chunk from its bytes. */
  private void decodeInner(Wanted w, ArrowBuf chunk, BufferAllocator allocator, Scratch scratch) {
    try {
      codec.decodeInner(chunk, w.view(), allocator, scratch);
    } catch (CodecException e) {
      throw new CodecException(
          "inner chunk " + Arrays.toString(w.innerIndex()) + ": " + e.getMessage(), e);
    }
  }

  /** Where the index of {@code source} lies. */
  private ByteRange indexRange(Source source) {
    long size = codec.indexSize();
    if (source.length() >= 0 && source.length() < size) {
      throw new CodecException(
          "codec sharding_indexed: a nested shard of "
              + source.length()
              + " bytes is shorter than its "
              + size
              + "-byte index");
    }
    return source.length() < 0
        ? (codec.indexAtEnd() ? ByteRange.suffix(size) : ByteRange.of(0, size))
        : source.range(codec.indexAtEnd() ? source.length() - size : 0, size);
  }

  /**
   * The shard's index: cached under the shard's version now, or read once however many threads of a
   * read (boxes and inner chunks of one shard, shards read side by side) ask for it at the same
   * time.
   */
  private Optional<ShardIndex> index(
      Source source, String version, BufferAllocator allocator, ReadStats stats) {
    String cacheKey = source.cacheKey();
    ShardIndex cached = cached(source, version);
    if (cached != null) {
      return Optional.of(cached);
    }
    CompletableFuture<Optional<ShardIndex>> mine = new CompletableFuture<>();
    CompletableFuture<Optional<ShardIndex>> reading = loading.putIfAbsent(cacheKey, mine);
    if (reading != null) {
      try {
        return reading.join();
      } catch (CompletionException e) {
        throw e.getCause() instanceof RuntimeException r ? r : e;
      }
    }
    try {
      ByteRange range = indexRange(source);
      Optional<ArrowBuf> encoded;
      try {
        encoded = store.get(source.key(), range, allocator);
      } catch (StoreException e) {
        throw unreadableIndex(e);
      }
      Optional<ShardIndex> index = indexFrom(source, version, encoded, allocator, stats);
      mine.complete(index);
      return index;
    } catch (RuntimeException | Error e) {
      mine.completeExceptionally(e);
      throw e;
    } finally {
      loading.remove(cacheKey, mine);
    }
  }

  private CodecException unreadableIndex(StoreException e) {
    return new CodecException(
        "codec sharding_indexed: cannot read the "
            + codec.indexSize()
            + "-byte shard index (the shard is truncated?): "
            + e.getMessage(),
        e);
  }

  /** The index decoded from its encoded bytes (consumed), validated and cached. */
  private Optional<ShardIndex> indexFrom(
      Source source,
      String version,
      Optional<ArrowBuf> encoded,
      BufferAllocator allocator,
      ReadStats stats) {
    if (encoded.isEmpty()) {
      if (source.length() >= 0) {
        throw new StoreException("shard '" + source.key() + "' disappeared while being read");
      }
      return Optional.empty();
    }
    long size = codec.indexSize();
    if (stats != null) {
      stats.fetched(size);
    }
    ShardIndex index;
    try (ArrowBuf buf = encoded.get()) {
      index = codec.decodeIndex(buf, allocator);
    }
    // chunk data of a nested shard must lie inside its range, before an index at its end
    index.validate(
        codec.dataStart(),
        source.length() < 0
            ? Long.MAX_VALUE
            : codec.indexAtEnd() ? source.length() - size : source.length());
    cache(source, version, index);
    return Optional.of(index);
  }

  /**
   * The version a cached index of {@code source} must have been read under, asked of the store now
   * (before the index is read, so that an index read later is at least as new): on a local store
   * its shard file's {@link Store#version} (one stat), so that a shard rewritten in place or
   * replaced under an open array has its index read again, never decoded with the old one's
   * offsets; null when the store cannot tell (a file changed in the last seconds, a store without
   * versions), and then the index is read on every read and not cached. A remote store is not asked
   * (a request per read would cost what the cache saves): its indexes are cached for the life of
   * the reader, as its chunks' bytes are read as they are.
   */
  private String version(Source source) {
    return versioned ? store.version(source.key()).orElse(null) : UNVERSIONED;
  }

  /**
   * Fails the read of {@code source} when its shard file's version is no longer {@code version},
   * the one its index was read under: a file replaced or rewritten between the index read and the
   * chunks' reads could have had chunks of the new file decoded at the old index's offsets (wrong
   * values, or an error about bytes that are not there: {@code failure}, then the cause). Nested
   * shards are checked by the read of the shard that holds them; an unknown version (a store
   * without versions, a file changed in the last seconds) cannot be checked.
   */
  private void checkUnchanged(Source source, String version, RuntimeException failure) {
    if (!versioned || version == null || source.length() >= 0) {
      return;
    }
    if (!version.equals(version(source))) {
      throw new ShardChanged(source.key(), failure);
    }
  }

  /**
   * The result of {@code read}, a read of {@code source} begun under {@code version}, once {@link
   * #checkUnchanged} found the shard unchanged; checked too when the read fails, whose failure then
   * becomes the cause of the change's.
   */
  private <T> T unchanged(Source source, String version, Supplier<T> read) {
    T result;
    try {
      result = read.get();
    } catch (RuntimeException e) {
      checkUnchanged(source, version, e);
      throw e;
    }
    checkUnchanged(source, version, null);
    return result;
  }

  /** {@link #checkUnchanged}'s failure: the shard changed while it was read. */
  private static final class ShardChanged extends StoreException {
    private static final long serialVersionUID = 1L;

    ShardChanged(String key, RuntimeException failure) {
      super(
          ErrorKind.IO,
          "shard '"
              + key
              + "' changed while it was read (its file was replaced or rewritten): its index and"
              + " its chunks could come from different files; read again",
          failure);
    }
  }

  /** The cached index of {@code source} read under {@code version}, else null. */
  private ShardIndex cached(Source source, String version) {
    if (version == null) {
      return null;
    }
    CachedIndex c = indexes.get(source.cacheKey());
    return c != null && c.version().equals(version) ? c.index() : null;
  }

  /** Caches {@code index}, read under {@code version} (not at all when that is unknown). */
  private void cache(Source source, String version, ShardIndex index) {
    if (version == null) {
      return;
    }
    if (indexes.size() >= INDEX_CACHE_ENTRIES) {
      indexes.clear();
    }
    indexes.put(source.cacheKey(), new CachedIndex(index, version));
  }
}
