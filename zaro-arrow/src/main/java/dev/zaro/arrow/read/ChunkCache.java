package dev.zaro.arrow.read;

import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.metadata.ArrayMetadata;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.util.ByteFunctionHelpers;

/**
 * Decoded chunks shared by every read of one {@link dev.zaro.arrow.Zaro} (and so of a serving
 * process): least recently used entries are evicted to keep the cached bytes (decoded chunk plus
 * its stored bytes) within a capacity, in memory of the cache's own allocator.
 *
 * <p>An entry can never be served stale: it is keyed by store, array path, chunk key and the
 * array's metadata, and it keeps the chunk's stored (encoded) bytes, which a hit must match byte
 * for byte. A chunk rewritten in place, an Icechunk branch moved to a new snapshot, or a metadata
 * change all make a miss (the entry is replaced). A hit therefore saves the decoding, not the
 * fetch.
 *
 * <p>Thread-safe. A hit copies out of an entry it has pinned (retained), so eviction never frees
 * memory being read. Closing frees every entry; the caller must not read through the cache
 * afterwards.
 */
public final class ChunkCache implements AutoCloseable {
  private final BufferAllocator allocator;
  private final long capacity;
  private final LinkedHashMap<Key, Entry> entries = new LinkedHashMap<>(64, 0.75f, true);
  private long bytes;
  private long hits;
  private long misses;
  private long evictions;

  /** What an entry is for: the store, the array, the chunk and the array's metadata. */
  record Key(String store, String array, String chunkKey, ArrayMetadata metadata) {}

  private record Entry(ArrowBuf encoded, long encodedBytes, ArrowBuf decoded, long decodedBytes) {
    long size() {
      return encoded.capacity() + decoded.capacity();
    }
  }

  /** Counters and size, as the {@code stats} of a server report them. */
  public record Stats(long hits, long misses, long evictions, long bytes, long capacity) {
    /** {@code "cache_hits":..,"cache_misses":..,...}: fields for a JSON object. */
    public String jsonFields() {
      return "\"cache_hits\":"
          + hits
          + ",\"cache_misses\":"
          + misses
          + ",\"cache_evictions\":"
          + evictions
          + ",\"cache_bytes\":"
          + bytes
          + ",\"cache_capacity_bytes\":"
          + capacity;
    }
  }

  /** A cache of at most {@code capacity} bytes (at least 1), in memory of its own. */
  public ChunkCache(long capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("the cache capacity must be positive, not " + capacity);
    }
    this.capacity = capacity;
    // pinned entries may outlive their eviction briefly: the allocator allows twice the capacity,
    // the accounting below keeps the entries within it
    this.allocator =
        new RootAllocator(capacity > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : 2 * capacity);
  }

  /** The cache's counters and size now. */
  public synchronized Stats stats() {
    return new Stats(hits, misses, evictions, bytes, capacity);
  }

  /** Arrow memory the cache holds now (entries, and evicted ones still being copied from). */
  public long allocatedBytes() {
    return allocator.getAllocatedMemory();
  }

  /**
   * Copies the cached chunk into {@code view} if its entry's stored bytes equal {@code encoded}'s
   * readable bytes; false (a miss) otherwise.
   */
  boolean copyTo(Key key, ArrowBuf encoded, SlabView view) {
    Entry e;
    synchronized (this) {
      e = entries.get(key);
      if (e == null || !sameBytes(e.encoded(), e.encodedBytes(), encoded)) {
        misses++;
        return false;
      }
      hits++;
      e.decoded().getReferenceManager().retain();
    }
    try {
      view.scatterFrom(e.decoded(), e.decodedBytes(), 0);
    } finally {
      e.decoded().getReferenceManager().release();
    }
    return true;
  }

  private static boolean sameBytes(ArrowBuf cached, long cachedBytes, ArrowBuf encoded) {
    long n = encoded.readableBytes();
    return cachedBytes == n
        && ByteFunctionHelpers.equal(
                cached, 0, n, encoded, encoded.readerIndex(), encoded.readerIndex() + n)
            == 1;
  }

  /** A chunk on its way into the cache: a copy of its stored bytes and a buffer to decode into. */
  record Pending(ArrowBuf encoded, long encodedBytes, ArrowBuf decoded, long decodedBytes) {
    /** Frees both buffers (the chunk's decoding failed). */
    void discard() {
      encoded.close();
      decoded.close();
    }
  }

  /**
   * Copies {@code encoded}'s readable bytes and allocates {@code decodedBytes} for the chunk to be
   * decoded into and then {@link #put}, from the cache's memory; null when the chunk would take
   * over a quarter of the capacity or the memory is taken (the read then decodes without the
   * cache).
   */
  Pending reserve(ArrowBuf encoded, long decodedBytes) {
    long n = encoded.readableBytes();
    if ((n + decodedBytes) * 4 > capacity) {
      return null;
    }
    ArrowBuf copy = null;
    try {
      copy = allocator.buffer(n);
      copy.setBytes(0, encoded, encoded.readerIndex(), n);
      return new Pending(copy, n, allocator.buffer(decodedBytes), decodedBytes);
    } catch (OutOfMemoryException e) {
      if (copy != null) {
        copy.close();
      }
      return null;
    }
  }

  /**
   * Takes a decoded chunk into the cache under {@code key}, evicting least recently used entries to
   * make room; its buffers belong to the cache from now on.
   */
  void put(Key key, Pending chunk) {
    Entry entry =
        new Entry(chunk.encoded(), chunk.encodedBytes(), chunk.decoded(), chunk.decodedBytes());
    synchronized (this) {
      Entry old = entries.put(key, entry);
      if (old != null) {
        bytes -= old.size();
        free(old);
      }
      bytes += entry.size();
      Iterator<Map.Entry<Key, Entry>> it = entries.entrySet().iterator();
      while (bytes > capacity && it.hasNext()) {
        Entry victim = it.next().getValue();
        it.remove();
        bytes -= victim.size();
        evictions++;
        free(victim);
      }
    }
  }

  private static void free(Entry e) {
    e.encoded().close();
    e.decoded().close();
  }

  /** Frees every entry and the cache's allocator. */
  @Override
  public synchronized void close() {
    entries.values().forEach(ChunkCache::free);
    entries.clear();
    bytes = 0;
    allocator.close();
  }
}
