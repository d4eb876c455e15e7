package dev.zaro.arrow.store;

import dev.zaro.arrow.error.StoreException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * A key-value store holding a Zarr hierarchy. Keys use {@code /} separators and never start with
 * {@code /}. Implementations are thread-safe.
 */
public interface Store extends AutoCloseable {

  /**
   * Reads a value, or part of it.
   *
   * @return empty if the key is absent; otherwise a buffer the caller owns (closes)
   * @throws dev.zaro.arrow.error.StoreException if the key exists but cannot be read, or the range
   *     lies outside the value
   */
  Optional<ArrowBuf> get(String key, ByteRange range, BufferAllocator allocator);

  /** Reads a whole value; the caller closes the returned buffer. */
  default Optional<ArrowBuf> get(String key, BufferAllocator allocator) {
    return get(key, ByteRange.ALL, allocator);
  }

  /**
   * Reads a value (or part of it) into {@code target} at {@code offset}, without allocating.
   *
   * @return the number of bytes read, or empty if the key is absent
   * @throws dev.zaro.arrow.error.StoreException if the value does not fit in {@code capacity}
   *     bytes, or cannot be read
   */
  default OptionalLong getInto(
      String key, ByteRange range, ArrowBuf target, long offset, long capacity) {
    Optional<ArrowBuf> value = get(key, range, target.getReferenceManager().getAllocator());
    if (value.isEmpty()) {
      return OptionalLong.empty();
    }
    try (ArrowBuf buf = value.get()) {
      long n = buf.writerIndex();
      if (n > capacity) {
        throw new StoreException(
            "key '"
                + key
                + "' in "
                + describe()
                + " holds "
                + n
                + " bytes, more than the "
                + capacity
                + " expected");
      }
      target.setBytes(offset, buf, 0, n);
      return OptionalLong.of(n);
    }
  }

  /**
   * Reads several ranges of one value, nearby ones merged into one request by {@link
   * RangeCoalescer} (the one coalescer: no caller merges ranges itself).
   *
   * @return one buffer per range, in the order asked, each owned (closed) by the caller; empty if
   *     the key is absent
   */
  default Optional<List<ArrowBuf>> getRanges(
      String key, List<ByteRange.FromStart> ranges, BufferAllocator allocator) {
    return RangeCoalescer.fetch(this, key, ranges, allocator);
  }

  /**
   * {@link #getRanges} without blocking: the coalesced requests all go out at once through {@link
   * #getAsync}, completing with every range or none (a failure frees what arrived).
   *
   * @return one buffer per range, in the order asked, each owned (closed) by the caller once the
   *     future completes; empty if the key is absent
   */
  default CompletableFuture<Optional<List<ArrowBuf>>> getRangesAsync(
      String key, List<ByteRange.FromStart> ranges, BufferAllocator allocator, Executor executor) {
    return RangeCoalescer.fetchAsync(this, key, ranges, allocator, executor);
  }

  /** Reads a small whole value (metadata documents) onto the heap; empty if absent. */
  Optional<byte[]> getBytes(String key);

  /**
   * Reads a whole value of at most {@code maxBytes} onto the heap (a metadata document, whose size
   * a hostile or broken server must not choose); empty if absent. Remote stores refuse a larger one
   * as soon as its reply announces its length (or its bytes pass the cap), before reading it; local
   * ones check its size first; this default reads it, then checks.
   *
   * @throws StoreException naming the key, the value's size and the cap when it is larger
   */
  default Optional<byte[]> getBytes(String key, long maxBytes) {
    Optional<byte[]> got = getBytes(key);
    if (got.isPresent() && got.get().length > maxBytes) {
      throw tooLarge(this, key, got.get().length, maxBytes);
    }
    return got;
  }

  /** The error for a value of {@code size} bytes read with a cap of {@code maxBytes}. */
  static StoreException tooLarge(Store store, String key, long size, long maxBytes) {
    return new StoreException(
        "key '"
            + key
            + "' in "
            + store.describe()
            + " is "
            + size
            + " bytes, more than the cap of "
            + maxBytes
            + " bytes on metadata documents (--max-metadata-size)");
  }

  /**
   * Asynchronous {@link #get}; remote stores override this to keep many requests in flight. The
   * caller owns (closes) the buffer the future completes with.
   */
  default CompletableFuture<Optional<ArrowBuf>> getAsync(
      String key, ByteRange range, BufferAllocator allocator, Executor executor) {
    return CompletableFuture.supplyAsync(() -> get(key, range, allocator), executor);
  }

  /**
   * Told of a value's bytes as they land in the buffer a {@link #getAsync(String, ByteRange,
   * BufferAllocator, Executor, Arrivals)} completes with, so that a reader can use the first bytes
   * before the last arrive.
   */
  @FunctionalInterface
  interface Arrivals {
    /**
     * Bytes {@code [offset, offset + length)} of {@code body} are written and stay as they are.
     * Pieces come in any order, from any thread (one at a time), never overlap, and all come before
     * the future completes. {@code body} is the buffer the future completes with; until then the
     * store owns it and frees it on a failure, so a reader that keeps reading it past a failure
     * retains it ({@code body.getReferenceManager().retain()}) and releases it after.
     */
    void arrived(ArrowBuf body, long offset, long length);
  }

  /**
   * {@link #getAsync(String, ByteRange, BufferAllocator, Executor)}, telling {@code arrivals} of
   * the bytes as they land. The default tells of the whole value at once when it has arrived;
   * stores that receive a body in pieces override this to tell of each piece.
   */
  default CompletableFuture<Optional<ArrowBuf>> getAsync(
      String key,
      ByteRange range,
      BufferAllocator allocator,
      Executor executor,
      Arrivals arrivals) {
    return getAsync(key, range, allocator, executor)
        .thenApply(
            body -> {
              body.ifPresent(
                  b -> {
                    try {
                      arrivals.arrived(b, 0, b.writerIndex());
                    } catch (RuntimeException e) {
                      b.close();
                      throw e;
                    }
                  });
              return body;
            });
  }

  /**
   * Every key that starts with {@code prefix}, at any depth, in lexicographic order. A store that
   * cannot list (see {@link StoreCapabilities#listable()}) returns none.
   */
  Stream<String> list(String prefix);

  /**
   * {@link #list(String)}, told that the keys inside the subdirectories of a directory {@code d} (a
   * key prefix ending before a '/') are not wanted when {@code skipBelow.test(d)}: a store with
   * real directories does not walk them. The keys directly in {@code d} are still listed. Only a
   * hint: a store may list everything (the default does), callers must tolerate both.
   */
  default Stream<String> list(String prefix, Predicate<String> skipBelow) {
    return list(prefix);
  }

  /**
   * The stored size in bytes (as stored: compressed, encoded) of every key {@link #list(String)}
   * lists under {@code prefix}, in key order, when this store learns sizes as cheaply as it lists
   * keys (a local directory's file sizes, an object store's listing that carries them); empty when
   * it would have to read values or ask per key (the default). Never reads a value.
   */
  default Optional<SortedMap<String, Long>> listSizes(String prefix) {
    return Optional.empty();
  }

  /**
   * What this store can do (listing, ranged reads, latency); readers plan by it. The default is a
   * remote, listable store with ranged reads.
   */
  default StoreCapabilities capabilities() {
    return StoreCapabilities.REMOTE;
  }

  /**
   * A token that changes whenever the value at {@code key} changes, learned without reading the
   * value (a local file's size, modification time and identity; a constant for a value that can
   * never change, such as a native chunk of an Icechunk snapshot), or empty when the store cannot
   * tell without reading it. Caches of decoded values use it to skip the fetch; empty (the default)
   * makes them fetch and compare the stored bytes.
   */
  default Optional<String> version(String key) {
    return Optional.empty();
  }

  /** Where this store lives, for messages: a path or URL. */
  String describe();

  @Override
  default void close() {}
}
