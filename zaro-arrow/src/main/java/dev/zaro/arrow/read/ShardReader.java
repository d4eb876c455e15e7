package dev.zaro.arrow.read;

import dev.zaro.arrow.codec.ChunkPart;
import dev.zaro.arrow.codec.Scratch;
import dev.zaro.arrow.exec.WorkRunner;
import dev.zaro.arrow.codec.ShardIndex;
import dev.zaro.arrow.codec.ShardingCodec;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.Store;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Reads parts of shards: the index with one ranged read (prefix or suffix, cached per shard),
 * then only the inner chunks a view needs, nearby byte ranges coalesced into one read.
 */
final class ShardReader {
  /** Ranges closer than this are fetched together. */
  static final long COALESCE_GAP = 64 * 1024;
  /** A coalesced read grows no larger than this (unless one chunk alone is larger). */
  static final long COALESCE_MAX = 16L << 20;
  private static final int INDEX_CACHE_ENTRIES = 4096;

  private final Store store;
  private final ShardingCodec codec;
  private final Map<String, ShardIndex> indexes = new ConcurrentHashMap<>();
  private final java.util.concurrent.Executor executor;
  private final dev.zaro.arrow.codec.ScratchPool scratchPool;

  /**
   * @param executor where idle workers help decode the inner chunks of one shard (so a read
   *     inside a single shard still uses every thread), or null
   * @param scratchPool where helpers borrow decode buffers, or null
   */
  ShardReader(Store store, ShardingCodec codec, java.util.concurrent.Executor executor,
      dev.zaro.arrow.codec.ScratchPool scratchPool) {
    this.store = store;
    this.codec = codec;
    this.executor = executor;
    this.scratchPool = scratchPool;
  }

  private record Wanted(long[] innerIndex, SlabView view, long offset, long length) {}

  /**
   * Reads the part of shard {@code key} that {@code view} selects, with up to {@code helpers}
   * idle executor threads decoding inner chunks beside the caller.
   *
   * @return false if the shard is absent from the store (the view then holds the fill value)
   */
  boolean read(String key, SlabView view, BufferAllocator allocator, Scratch scratch, ReadStats stats) {
    Optional<ShardIndex> index = index(key, allocator, stats);
    byte[] fill = codec.fillElement();
    if (index.isEmpty()) {
      view.fill(fill);
      return false;
    }
    ShardIndex shardIndex = index.get();
    List<Wanted> wanted = new ArrayList<>();
    ChunkPart.forEachChunk(view, codec.innerShape(), (innerIndex, innerView) -> {
      int p = shardIndex.position(innerIndex);
      if (shardIndex.isAbsent(p)) {
        innerView.fill(fill);
      } else {
        wanted.add(new Wanted(innerIndex, innerView, shardIndex.offset(p), shardIndex.length(p)));
      }
    });
    wanted.sort(Comparator.comparingLong(Wanted::offset));
    List<ArrowBuf> fetched = new ArrayList<>();
    List<Runnable> decodes = new ArrayList<>();
    Thread caller = Thread.currentThread();
    try {
      int i = 0;
      while (i < wanted.size()) {
        long start = wanted.get(i).offset();
        long end = start + wanted.get(i).length();
        int j = i + 1;
        while (j < wanted.size() && wanted.get(j).offset() - end <= COALESCE_GAP
            && wanted.get(j).offset() + wanted.get(j).length() - start <= COALESCE_MAX) {
          end = Math.max(end, wanted.get(j).offset() + wanted.get(j).length());
          j++;
        }
        ArrowBuf bytes = fetch(key, start, end, allocator);
        fetched.add(bytes);
        if (stats != null) {
          stats.fetched(end - start);
        }
        for (Wanted w : wanted.subList(i, j)) {
          long groupStart = start;
          decodes.add(() -> {
            decode(w, bytes, groupStart, allocator, caller, scratch);
            if (stats != null) {
              stats.decoded(1, w.view().byteSize());
            }
          });
        }
        i = j;
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

  private ArrowBuf fetch(String key, long start, long end, BufferAllocator allocator) {
    try {
      return store.get(key, ByteRange.of(start, end - start), allocator).orElseThrow(() ->
          new StoreException("shard '" + key + "' disappeared while being read"));
    } catch (StoreException e) {
      throw new CodecException("codec sharding_indexed: the index points at bytes " + start + ".." + end
          + " that the shard does not hold: " + e.getMessage(), e);
    }
  }

  /** Decodes one inner chunk; helper threads borrow their own scratch. */
  private void decode(Wanted w, ArrowBuf bytes, long bytesStart, BufferAllocator allocator, Thread caller,
      Scratch callerScratch) {
    boolean helper = Thread.currentThread() != caller;
    Scratch scratch = !helper ? callerScratch
        : scratchPool != null ? scratchPool.borrow(callerScratch.allocator(), null)
        : new Scratch(callerScratch.allocator());
    try {
      ArrowBuf chunk = bytes.slice(w.offset() - bytesStart, w.length());
      chunk.writerIndex(w.length());
      codec.decodeInner(chunk, w.view(), allocator, scratch);
    } catch (CodecException e) {
      throw new CodecException("inner chunk " + Arrays.toString(w.innerIndex()) + ": " + e.getMessage(), e);
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

  private Optional<ShardIndex> index(String key, BufferAllocator allocator, ReadStats stats) {
    ShardIndex cached = indexes.get(key);
    if (cached != null) {
      return Optional.of(cached);
    }
    ByteRange range = codec.indexAtEnd() ? ByteRange.suffix(codec.indexSize()) : ByteRange.of(0, codec.indexSize());
    Optional<ArrowBuf> encoded;
    try {
      encoded = store.get(key, range, allocator);
    } catch (StoreException e) {
      throw new CodecException("codec sharding_indexed: cannot read the " + codec.indexSize()
          + "-byte shard index (the shard is truncated?): " + e.getMessage(), e);
    }
    if (encoded.isEmpty()) {
      return Optional.empty();
    }
    if (stats != null) {
      stats.fetched(codec.indexSize());
    }
    ShardIndex index;
    try (ArrowBuf buf = encoded.get()) {
      index = codec.decodeIndex(buf, allocator);
    }
    index.validate(codec.dataStart(), Long.MAX_VALUE);
    if (indexes.size() >= INDEX_CACHE_ENTRIES) {
      indexes.clear();
    }
    indexes.put(key, index);
    return Optional.of(index);
  }
}
