package dev.zaro.arrow.read;

import dev.zaro.arrow.codec.PartialDecoder;
import dev.zaro.arrow.codec.ShardIndex;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.exec.Futures;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.Store;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The shard indexes of one {@link ShardReader}: read with one ranged read (prefix or suffix),
 * decoded, validated and cached per shard under the version of the shard's file ({@link #version}),
 * read once however many threads ask at the same time, and the change detection that fails a read
 * whose shard was replaced between its index and its chunks ({@link #unchanged}).
 */
final class ShardIndexes {
  private static final int INDEX_CACHE_ENTRIES = 4096;

  /** The version of a shard on a store whose versions are not asked ({@link #version}). */
  private static final String UNVERSIONED = "";

  private final Store store;
  private final PartialDecoder codec;
  private final Map<String, CachedIndex> indexes = new ConcurrentHashMap<>();

  /** A cached index and the version of its shard's file it was read under. */
  private record CachedIndex(ShardIndex index, String version) {}

  /** Whether cached indexes are checked against the shard's version on every read. */
  private final boolean versioned;

  /** Index reads in progress, so that threads asking for one shard's index at once share one. */
  private final Map<String, CompletableFuture<Optional<ShardIndex>>> loading =
      new ConcurrentHashMap<>();

  ShardIndexes(Store store, PartialDecoder codec) {
    this.store = store;
    this.codec = codec;
    this.versioned = !store.capabilities().isRemote();
  }

  /** Where the index of {@code source} lies. */
  ByteRange indexRange(ShardSource source) {
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
  Optional<ShardIndex> index(
      ShardSource source, String version, BufferAllocator allocator, ReadStats stats) {
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

  /** The shard's index, cached or asked for with one asynchronous request. */
  CompletableFuture<Optional<ShardIndex>> indexAsync(
      ShardSource source,
      String version,
      ShardIndex cached,
      BufferAllocator allocator,
      Executor executor,
      ReadStats stats) {
    if (cached != null) {
      return CompletableFuture.completedFuture(Optional.of(cached));
    }
    return store
        .getAsync(source.key(), indexRange(source), allocator, executor)
        .handle(
            (encoded, error) -> {
              if (error != null) {
                Throwable e = Futures.unwrap(error);
                throw new CompletionException(
                    e instanceof StoreException se ? unreadableIndex(se) : e);
              }
              return indexFrom(source, version, encoded, allocator, stats);
            });
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
  Optional<ShardIndex> indexFrom(
      ShardSource source,
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

  /** The index at the start of a streaming shard, from its first bytes; validated and cached. */
  ShardIndex indexFromPrefix(
      ShardSource source,
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

  /**
   * The index of a whole shard {@code shard} of {@code n} bytes, from its own bytes; validated and
   * cached.
   */
  ShardIndex indexOfWhole(
      ShardSource source, String version, ArrowBuf shard, BufferAllocator allocator) {
    long n = shard.writerIndex();
    long size = codec.indexSize();
    if (n < size) {
      throw truncated(source, n);
    }
    ArrowBuf encodedIndex = shard.slice(codec.indexAtEnd() ? n - size : 0, size);
    encodedIndex.writerIndex(size);
    ShardIndex index = codec.decodeIndex(encodedIndex, allocator);
    index.validate(codec.dataStart(), codec.indexAtEnd() ? n - size : n);
    cache(source, version, index);
    return index;
  }

  /** The failure of a shard of {@code n} bytes, too few to hold its index. */
  CodecException truncated(ShardSource source, long n) {
    return new CodecException(
        "codec sharding_indexed: cannot read the "
            + codec.indexSize()
            + "-byte shard index: shard '"
            + source.key()
            + "' holds only "
            + n
            + " bytes (the shard is truncated?)");
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
  String version(ShardSource source) {
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
  private void checkUnchanged(ShardSource source, String version, RuntimeException failure) {
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
  <T> T unchanged(ShardSource source, String version, Supplier<T> read) {
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
  static final class ShardChanged extends StoreException {
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
  ShardIndex cached(ShardSource source, String version) {
    if (version == null) {
      return null;
    }
    CachedIndex c = indexes.get(source.cacheKey());
    return c != null && c.version().equals(version) ? c.index() : null;
  }

  /** Caches {@code index}, read under {@code version} (not at all when that is unknown). */
  private void cache(ShardSource source, String version, ShardIndex index) {
    if (version == null) {
      return;
    }
    if (indexes.size() >= INDEX_CACHE_ENTRIES) {
      indexes.clear();
    }
    indexes.put(source.cacheKey(), new CachedIndex(index, version));
  }
}
