package dev.zaro.arrow.read;

import dev.zaro.arrow.codec.ChunkPart;
import dev.zaro.arrow.codec.PartialDecoder;
import dev.zaro.arrow.codec.Scratch;
import dev.zaro.arrow.codec.ShardIndex;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.exec.WorkRunner;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.Store;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Reads parts of shards, as a partial decoder that wraps the one below it (zarrs' model): the index
 * with one ranged read (prefix or suffix, cached per shard), then only the inner chunks a view
 * needs, their byte ranges read together through {@link Store#getRanges} (the store layer coalesces
 * them). An inner chunk that is itself a shard (nested sharding) is read the same way, one level
 * down, inside its byte range of the outer shard: at any depth only the indexes and the needed
 * innermost chunks are fetched.
 */
final class ShardReader {
  private static final int INDEX_CACHE_ENTRIES = 4096;

  private final Store store;
  private final PartialDecoder codec;
  private final Map<String, ShardIndex> indexes = new ConcurrentHashMap<>();
  private final dev.zaro.arrow.codec.ScratchPool scratchPool;

  /** The partial decoder of inner chunks that are shards themselves, else null. */
  private final ShardReader nested;

  /**
   * @param scratchPool where helpers borrow decode buffers, or null
   */
  ShardReader(Store store, PartialDecoder codec, dev.zaro.arrow.codec.ScratchPool scratchPool) {
    this.store = store;
    this.codec = codec;
    this.scratchPool = scratchPool;
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
   * Reads the part of shard {@code key} that {@code view} selects; idle threads of the read's
   * budget ({@code scratch.helpers()}) decode inner chunks beside the caller.
   *
   * @return false if the shard is absent from the store (the view then holds the fill value)
   */
  boolean read(
      String key, SlabView view, BufferAllocator allocator, Scratch scratch, ReadStats stats) {
    return read(new Source(key, 0, -1), view, allocator, scratch, stats);
  }

  private boolean read(
      Source source, SlabView view, BufferAllocator allocator, Scratch scratch, ReadStats stats) {
    Optional<ShardIndex> index = index(source, allocator, stats);
    byte[] fill = codec.fillElement();
    if (index.isEmpty()) {
      view.fill(fill);
      return false;
    }
    ShardIndex shardIndex = index.get();
    List<Wanted> wanted = new ArrayList<>();
    ChunkPart.forEachChunk(
        view,
        codec.innerShape(),
        (innerIndex, innerView) -> {
          int p = shardIndex.position(innerIndex);
          if (shardIndex.isAbsent(p)) {
            innerView.fill(fill);
          } else {
            wanted.add(
                new Wanted(innerIndex, innerView, shardIndex.offset(p), shardIndex.length(p)));
          }
        });
    List<ArrowBuf> fetched = new ArrayList<>();
    List<Runnable> decodes = new ArrayList<>();
    Thread caller = Thread.currentThread();
    try {
      if (nested != null) {
        // inner shards: read each one's index and needed chunks inside its range, one level down
        for (Wanted w : wanted) {
          Source inner = new Source(source.key(), source.base() + w.offset(), w.length());
          decodes.add(
              () ->
                  helping(
                      caller,
                      scratch,
                      s -> {
                        try {
                          nested.read(
                              inner, codec.innerChain().encodedView(w.view()), allocator, s, stats);
                        } catch (CodecException e) {
                          throw new CodecException(
                              "inner chunk "
                                  + Arrays.toString(w.innerIndex())
                                  + ": "
                                  + e.getMessage(),
                              e);
                        }
                      }));
        }
      } else {
        fetched.addAll(
            fetch(
                source,
                wanted.stream()
                    .map(w -> (ByteRange.FromStart) source.range(w.offset(), w.length()))
                    .toList(),
                allocator));
        if (stats != null && !wanted.isEmpty()) {
          stats.fetched(wanted.stream().mapToLong(Wanted::length).sum());
        }
        for (int i = 0; i < wanted.size(); i++) {
          Wanted w = wanted.get(i);
          ArrowBuf bytes = fetched.get(i);
          decodes.add(
              () -> {
                helping(caller, scratch, s -> decode(w, bytes, allocator, s));
                if (stats != null) {
                  stats.decoded(1, w.view().byteSize());
                }
              });
        }
      }
      // helpers only from threads of this read that are not running a chunk themselves
      int helpers = scratch.helpers();
      if (decodes.size() == 1 || helpers < 1) {
        decodes.forEach(Runnable::run);
      } else {
        WorkRunner.run(decodes, scratch.helperExecutor(), helpers);
      }
    } finally {
      fetched.forEach(ArrowBuf::close);
    }
    return true;
  }

  private List<ArrowBuf> fetch(
      Source source, List<ByteRange.FromStart> ranges, BufferAllocator allocator) {
    if (ranges.isEmpty()) {
      return List.of();
    }
    try {
      return store
          .getRanges(source.key(), ranges, allocator)
          .orElseThrow(
              () ->
                  new StoreException("shard '" + source.key() + "' disappeared while being read"));
    } catch (StoreException e) {
      throw new CodecException(
          "codec sharding_indexed: the index points at bytes that the shard does not hold: "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Runs {@code work} with the caller's scratch, or on a helper thread with a scratch of its own.
   */
  private void helping(
      Thread caller, Scratch callerScratch, java.util.function.Consumer<Scratch> work) {
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
  private void decode(Wanted w, ArrowBuf chunk, BufferAllocator allocator, Scratch scratch) {
    try {
      codec.decodeInner(chunk, w.view(), allocator, scratch);
    } catch (CodecException e) {
      throw new CodecException(
          "inner chunk " + Arrays.toString(w.innerIndex()) + ": " + e.getMessage(), e);
    }
  }

  private Optional<ShardIndex> index(Source source, BufferAllocator allocator, ReadStats stats) {
    ShardIndex cached = indexes.get(source.cacheKey());
    if (cached != null) {
      return Optional.of(cached);
    }
    long size = codec.indexSize();
    if (source.length() >= 0 && source.length() < size) {
      throw new CodecException(
          "codec sharding_indexed: a nested shard of "
              + source.length()
              + " bytes is shorter than its "
              + size
              + "-byte index");
    }
    ByteRange range =
        source.length() < 0
            ? (codec.indexAtEnd() ? ByteRange.suffix(size) : ByteRange.of(0, size))
            : source.range(codec.indexAtEnd() ? source.length() - size : 0, size);
    Optional<ArrowBuf> encoded;
    try {
      encoded = store.get(source.key(), range, allocator);
    } catch (StoreException e) {
      throw new CodecException(
          "codec sharding_indexed: cannot read the "
              + size
              + "-byte shard index (the shard is truncated?): "
              + e.getMessage(),
          e);
    }
    if (encoded.isEmpty()) {
      if (source.length() >= 0) {
        throw new StoreException("shard '" + source.key() + "' disappeared while being read");
      }
      return Optional.empty();
    }
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
    if (indexes.size() >= INDEX_CACHE_ENTRIES) {
      indexes.clear();
    }
    indexes.put(source.cacheKey(), index);
    return Optional.of(index);
  }
}
