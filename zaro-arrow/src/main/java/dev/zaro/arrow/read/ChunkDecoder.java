package dev.zaro.arrow.read;

import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecChain;
import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.codec.Scratch;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.codec.internal.ScratchPool;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.error.MetadataException;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.exec.Budget;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.store.Store;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The decoding half of one array's reads: its codec chains, resolved once per chunk shape (one
 * entry on a regular grid; rectilinear grids add more), and the decode step, which turns a chunk's
 * (or shard's) stored bytes into its view of the output and names the array, chunk and key in every
 * failure. Thread-safe.
 */
final class ChunkDecoder {
  private final Store store;
  private final String displayPath;
  private final ArrayMetadata metadata;
  private final CodecRegistry registry;
  private final ScratchPool scratchPool;
  private final ChunkCache cache;
  private final Map<List<Integer>, Resolved> resolved = new ConcurrentHashMap<>();

  /** A codec chain resolved for one chunk shape, and its shard reader (null when not sharded). */
  record Resolved(CodecChain chain, ShardReader shardReader) {}

  ChunkDecoder(
      Store store,
      String displayPath,
      ArrayMetadata metadata,
      CodecRegistry registry,
      ScratchPool scratchPool,
      ChunkCache cache) {
    this.cache = cache;
    this.store = store;
    this.displayPath = displayPath;
    this.metadata = metadata;
    this.registry = registry;
    this.scratchPool = scratchPool;
  }

  /** The shape resolved last and its chain: every chunk of a regular grid (one per chunk task). */
  private volatile LastResolved last;

  @SuppressWarnings("ArrayRecordComponent") // compared by content in resolve, never by equals
  private record LastResolved(int[] shape, Resolved resolved) {}

  /** The chain and shard reader for chunks of {@code shape}, resolved once per shape. */
  Resolved resolve(int[] shape) {
    LastResolved l = last;
    if (l != null && Arrays.equals(l.shape(), shape)) {
      return l.resolved();
    }
    Resolved r = resolveShape(shape);
    last = new LastResolved(shape.clone(), r);
    return r;
  }

  private Resolved resolveShape(int[] shape) {
    return resolved.computeIfAbsent(
        Arrays.stream(shape).boxed().toList(),
        k -> {
          CodecChain c;
          try {
            c =
                CodecChain.resolve(
                    metadata.codecs(),
                    new ChunkSpec(shape, metadata.dataType(), metadata.fillValue()),
                    registry);
          } catch (CodecException e) {
            throw new MetadataException(
                "array '"
                    + displayPath
                    + "' in "
                    + store.describe()
                    + ": "
                    + (metadata.chunkGrid().isRegular()
                        ? ""
                        : "chunks of shape " + Arrays.toString(shape) + ": ")
                    + e.getMessage(),
                e);
          }
          return new Resolved(
              c,
              c.partialReader()
                  .map(codec -> new ShardReader(store, codec, scratchPool))
                  .orElse(null));
        });
  }

  /**
   * The cache key of chunk {@code key} read into {@code view}, its version asked of the store now
   * (before any fetch of the chunk, so that bytes fetched later are at least as new); null without
   * a cache or for variable-width views.
   */
  ChunkCache.Key cacheKey(String key, SlabView view) {
    return view.heap() != null ? null : cacheKey(key);
  }

  /**
   * The cache key of a C-order assembly of {@code selection} (fixed width) from chunks {@code
   * chunks} (their keys, from {@link #cacheKey(String, SlabView)}): its version names every
   * chunk's, so a rewritten chunk makes it a different key. Null without a cache or when a chunk's
   * store cannot tell its version.
   */
  ChunkCache.Key assembledKey(String selection, List<ChunkCache.Key> chunks) {
    if (cache == null) {
      return null;
    }
    StringBuilder versions = new StringBuilder();
    for (ChunkCache.Key k : chunks) {
      if (k == null || k.version() == null) {
        return null;
      }
      versions.append(k.chunkKey()).append('@').append(k.version()).append('\n');
    }
    return new ChunkCache.Key(
        store.describe(), displayPath, "assembled " + selection, metadata, versions.toString());
  }

  /**
   * Reserves cache memory for an assembly of {@code bytes} under {@code key} (see {@link
   * ChunkCache#reserve}); null when it would not fit.
   */
  ChunkCache.Pending reserveAssembly(ChunkCache.Key key, long bytes) {
    return cache.reserve(key, null, bytes);
  }

  /**
   * Keeps an assembly in the cache and returns all of it by reference ({@link
   * ChunkCache#putAndTake}).
   */
  ArrowBuf keepAssembly(ChunkCache.Key key, ChunkCache.Pending assembly, BufferAllocator holder) {
    return cache.putAndTake(key, assembly, holder);
  }

  /**
   * A reference to all {@code bytes} of the cached entry {@code k} (a key with a version) for
   * {@code holder}, or null (see {@link ChunkCache#region}); counts nothing.
   */
  ArrowBuf cachedRegion(ChunkCache.Key k, long bytes, BufferAllocator holder) {
    return k == null ? null : cache.region(k, 0, bytes, holder);
  }

  /** The cache key of fixed-width chunk {@code key}, its version asked of the store now. */
  ChunkCache.Key cacheKey(String key) {
    if (cache == null) {
      return null;
    }
    return new ChunkCache.Key(
        store.describe(), displayPath, key, metadata, store.version(key).orElse(null));
  }

  /**
   * A reference to bytes {@code [offset, offset + length)} of fixed-width chunk {@code key} decoded
   * in the cache under its version now, for {@code target} (see {@link ChunkCache#region}; counts
   * nothing); null without a cache or such an entry.
   */
  ArrowBuf cachedRegion(String key, long offset, long length, BufferAllocator target) {
    ChunkCache.Key k = cacheKey(key);
    return k == null ? null : cache.region(k, offset, length, target);
  }

  /**
   * Counts {@code chunks} cache hits sent by reference (see {@link ChunkCache#countByReference}).
   */
  void countByReference(int chunks) {
    cache.countByReference(chunks);
  }

  /**
   * Cached chunk {@code k} (a key with a version) with one more reference for the caller to
   * release, if cached now with at least {@code bytes}; null otherwise (and without a cache or a
   * key). Counts nothing ({@link ChunkCache#retainDecoded}).
   */
  ArrowBuf retainCached(ChunkCache.Key k, long bytes) {
    return k == null ? null : cache.retainDecoded(k, bytes);
  }

  /** Counts {@code chunks} cache hits copied from chunks taken with {@link #retainCached}. */
  void countHits(int chunks) {
    cache.countHits(chunks);
  }

  /** Whether chunk {@code k} (a key with a version) is cached now; counts no hit or miss. */
  boolean isCached(ChunkCache.Key k) {
    return k != null && cache.contains(k);
  }

  /**
   * Copies chunk {@code k} from the cache into {@code view} without fetching it, when {@code k} has
   * a version and an entry; false otherwise (a miss is counted only for a key with a version).
   */
  boolean fromCache(ChunkCache.Key k, SlabView view) {
    return k != null && k.version() != null && cache.copyTo(k, view);
  }

  /**
   * Decodes one chunk's stored bytes (not closed here) into {@code view}; a chunk whose codec
   * splits (blosc blocks) may use the read's idle threads ({@code scratch.helpers()}). With a
   * {@link ChunkCache} ({@code cacheKey} not null, from {@link #cacheKey}), a chunk decoded before
   * from the same stored bytes is copied from the cache instead (and not counted as decoded), and a
   * chunk decoded now is kept there.
   */
  void decode(
      ArrowBuf encoded,
      SlabView view,
      CodecChain chain,
      BufferAllocator allocator,
      Scratch scratch,
      ReadStats stats,
      String key,
      long[] chunkIndex,
      ChunkCache.Key cacheKey) {
    if (stats != null) {
      stats.fetched(encoded.readableBytes());
    }
    try {
      if (cacheKey != null) {
        ChunkCache.Key k = cacheKey;
        if (k.version() == null && cache.copyTo(k, encoded, view)) {
          return; // decoded before, from these very bytes
        }
        ChunkCache.Pending chunk = cache.reserve(k, encoded, view.chunkBytes());
        if (chunk != null) {
          try {
            chain.decodeInto(
                encoded,
                SlabView.whole(chunk.decoded(), 0, view.itemSize(), view.shape()),
                allocator,
                scratch);
            view.scatterFrom(chunk.decoded(), chunk.decodedBytes(), 0);
          } catch (RuntimeException e) {
            chunk.discard();
            throw e;
          }
          cache.put(k, chunk);
        } else {
          chain.decodeInto(encoded, view, allocator, scratch);
        }
      } else {
        chain.decodeInto(encoded, view, allocator, scratch);
      }
    } catch (CodecException | IllegalArgumentException | IndexOutOfBoundsException e) {
      throw new CodecException(context(key, chunkIndex) + e.getMessage(), e);
    }
    if (stats != null) {
      stats.decoded(1, view.byteSize());
    }
  }

  /**
   * Decodes a chunk read at its fixed stored size into {@code scratch}-held bytes, without the
   * read's helpers (the bytes are already the chunk's, so no stats are counted here).
   */
  void decodeFixed(
      ArrowBuf encoded,
      SlabView view,
      CodecChain chain,
      BufferAllocator allocator,
      String key,
      long[] chunkIndex) {
    try {
      chain.decodeInto(encoded, view, allocator, null);
    } catch (CodecException | IllegalArgumentException | IndexOutOfBoundsException e) {
      throw new CodecException(context(key, chunkIndex) + e.getMessage(), e);
    }
  }

  /**
   * Decodes one shard into {@code view}: from its fetched bytes when they were fetched ahead
   * ({@code fetched} not null, not closed here), else fetching them on this thread.
   *
   * @return false when the shard is absent from the store
   */
  boolean decodeShard(
      Resolved r,
      FetchedShard fetched,
      SlabView view,
      BufferAllocator allocator,
      Scratch scratch,
      Budget budget,
      ReadStats stats,
      String key,
      long[] chunkIndex) {
    try {
      SlabView encodedView = r.chain().encodedView(view);
      return fetched != null
          ? r.shardReader().decode(fetched, encodedView, allocator, scratch, budget, stats)
          : r.shardReader().read(key, encodedView, allocator, scratch, budget, stats);
    } catch (CodecException | IllegalArgumentException | IndexOutOfBoundsException e) {
      throw new CodecException(context(key, chunkIndex) + e.getMessage(), e);
    } catch (StoreException e) {
      throw new StoreException(context(key, chunkIndex) + e.getMessage(), e);
    }
  }

  /** What every failure of a chunk's read starts with: the array, the chunk, its key and store. */
  String context(String key, long[] chunkIndex) {
    return "array '"
        + displayPath
        + "', chunk "
        + Arrays.toString(chunkIndex)
        + " (key '"
        + key
        + "' in "
        + store.describe()
        + "): ";
  }
}
