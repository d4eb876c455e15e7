package dev.zaro.arrow.read;

import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.metadata.ArrayMetadata;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.OwnershipTransferResult;
import org.apache.arrow.memory.ReferenceManager;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.util.ByteFunctionHelpers;

/**
 * Decoded chunks shared by every read of one {@link dev.zaro.arrow.Zaro} (and so of a serving
 * process): least recently used entries are evicted to keep the cached bytes (decoded chunk plus
 * its stored bytes) within a capacity, in memory of the cache's own allocator.
 *
 * <p>An entry can never be served stale: it is keyed by store (an Icechunk store names its
 * snapshot), array path, chunk key, the array's metadata and the chunk's version as its store
 * reports it without reading ({@link dev.zaro.arrow.store.Store#version}: a local file's size,
 * modification and status-change times and inode; a constant for a chunk of an Icechunk snapshot).
 * A hit of a versioned entry needs no fetch at all. When the store cannot tell a version (remote
 * objects, Icechunk virtual chunks, a file modified in the last seconds), the entry keeps the
 * chunk's stored bytes instead, which a hit must match byte for byte: the hit saves the decoding,
 * not the fetch. A chunk rewritten in place, an Icechunk branch moved to a new snapshot, or a
 * metadata change all make a miss (the entry is replaced).
 *
 * <p>Thread-safe. A hit copies out of an entry it has pinned (retained), so eviction never frees
 * memory being read. Closing frees every entry; the caller must not read through the cache
 * afterwards.
 */
public final class ChunkCache implements AutoCloseable {
  private final BufferAllocator root;
  private final BufferAllocator allocator;
  private final long capacity;
  private final LinkedHashMap<Key, Entry> entries = new LinkedHashMap<>(64, 0.75f, true);
  private long bytes;
  private long hits;
  private long byReference;
  private long misses;
  private long evictions;
  private int regions; // handed out by region() and not yet released

  /**
   * What an entry is for: the store, the array, the chunk, the array's metadata, and the chunk's
   * version ({@link dev.zaro.arrow.store.Store#version}; null: the store cannot tell, a hit must
   * match the stored bytes).
   */
  record Key(String store, String array, String chunkKey, ArrayMetadata metadata, String version) {}

  /** A decoded chunk, and its stored bytes when its key has no version (else null). */
  private record Entry(ArrowBuf encoded, long encodedBytes, ArrowBuf decoded, long decodedBytes) {
    long size() {
      return (encoded == null ? 0 : encoded.capacity()) + decoded.capacity();
    }
  }

  /**
   * Counters and size, as the {@code stats} of a server report them; {@code byReference}: the hits
   * handed out by reference ({@link #region}) rather than copied.
   */
  public record Stats(
      long hits, long byReference, long misses, long evictions, long bytes, long capacity) {
    /** {@code "cache_hits":..,"cache_misses":..,...}: fields for a JSON object. */
    public String jsonFields() {
      return "\"cache_hits\":"
          + hits
          + ",\"cache_hits_by_reference\":"
          + byReference
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
    this.root = new RootAllocator();
    this.allocator =
        root.newChildAllocator(
            "zaro chunk cache", 0, capacity > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : 2 * capacity);
  }

  /**
   * A new allocator under the root of the cache's memory, owned and closed by the caller before the
   * cache (a server allocates from it, so one root holds all of its memory).
   */
  public BufferAllocator newAllocator(String name) {
    return root.newChildAllocator(name, 0, Long.MAX_VALUE);
  }

  /** The cache's counters and size now. */
  public synchronized Stats stats() {
    return new Stats(hits, byReference, misses, evictions, bytes, capacity);
  }

  /** Arrow memory the cache holds now (entries, and evicted ones still being copied from). */
  public long allocatedBytes() {
    return allocator.getAllocatedMemory();
  }

  /**
   * Copies the cached chunk into {@code view} if {@code key} (which has a version) has an entry,
   * without any fetch; false (a miss) otherwise.
   */
  boolean copyTo(Key key, SlabView view) {
    if (key.version() == null) {
      throw new IllegalArgumentException("a key without a version needs the stored bytes");
    }
    return copyTo(key, null, view);
  }

  /** Whether {@code key} (which has a version) has an entry now; counts neither hit nor miss. */
  synchronized boolean contains(Key key) {
    return key.version() != null && entries.containsKey(key);
  }

  /**
   * Copies the cached chunk into {@code view} if its entry's stored bytes equal {@code encoded}'s
   * readable bytes (or, for a key with a version, if it has an entry); false (a miss) otherwise.
   */
  boolean copyTo(Key key, ArrowBuf encoded, SlabView view) {
    Entry e;
    synchronized (this) {
      e = entries.get(key);
      if (e == null
          || (key.version() == null && !sameBytes(e.encoded(), e.encodedBytes(), encoded))) {
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

  /**
   * A reference to bytes {@code [offset, offset + length)} of the cached chunk of {@code key} (a
   * key with a version), without copying; null without an entry. Counts nothing: the caller counts
   * the regions it sends with {@link #countByReference} (a block sends all of its chunks' regions
   * or, if one is missing, reads them all and counts hits and misses then).
   *
   * <p>The caller closes the returned buffer, which keeps the memory valid until then, even past
   * the entry's eviction: the memory stays accounted to the cache's allocator until the buffer and
   * every buffer derived from it (slices, the buffers a vector loading it retains, those a
   * transport holds while it writes them) are released. No other allocator ever holds a ledger of
   * cached memory (see {@link Region}), so the caller's allocator, {@code holder}, may close before
   * a transport lets go of a region it sent; {@link #close} waits for that.
   */
  ArrowBuf region(Key key, long offset, long length, BufferAllocator holder) {
    if (key.version() == null) {
      return null;
    }
    synchronized (this) {
      Entry e = entries.get(key);
      if (e == null || offset < 0 || length < 0 || offset + length > e.decodedBytes()) {
        return null;
      }
      e.decoded().getReferenceManager().retain();
      regions++;
      Region region = new Region(e.decoded(), length);
      ArrowBuf part = new ArrowBuf(region, null, length, e.decoded().memoryAddress() + offset);
      part.writerIndex(length);
      return part;
    }
  }

  private synchronized void regionReleased() {
    regions--;
    notifyAll();
  }

  /**
   * The reference count of one region handed out by {@link #region}, shared by every buffer derived
   * from it. Arrow's own ledgers would give each allocator that retains the buffer (the vectors a
   * batch is loaded into, under a request's allocator) a ledger of the cached memory, and move the
   * memory's accounting to one of them when the cache frees the entry, even after that allocator
   * closed: a request's allocator, which Arrow lets close while a transport still holds buffers of
   * memory it does not own, then made the cache's eviction or close fail. Here the region holds one
   * reference to the cached chunk (on the cache's ledger) until its count drops to zero; retaining
   * it into any allocator only counts up.
   */
  private final class Region implements ReferenceManager {
    private final ArrowBuf chunk;
    private final long size;
    private final AtomicInteger refs = new AtomicInteger(1);

    Region(ArrowBuf chunk, long size) {
      this.chunk = chunk;
      this.size = size;
    }

    @Override
    public int getRefCount() {
      return refs.get();
    }

    @Override
    public boolean release() {
      return release(1);
    }

    @Override
    public boolean release(int decrement) {
      if (decrement < 1) {
        throw new IllegalArgumentException("a release must be positive, not " + decrement);
      }
      int left = refs.addAndGet(-decrement);
      if (left < 0) {
        throw new IllegalStateException(
            "a cached chunk's region released more often than it was retained");
      }
      if (left > 0) {
        return false;
      }
      chunk.getReferenceManager().release();
      regionReleased();
      return true;
    }

    @Override
    public void retain() {
      retain(1);
    }

    @Override
    public void retain(int increment) {
      if (increment < 1) {
        throw new IllegalArgumentException("a retain must be positive, not " + increment);
      }
      if (refs.getAndUpdate(n -> n > 0 ? n + increment : n) <= 0) {
        throw new IllegalStateException("a released region of a cached chunk retained again");
      }
    }

    @Override
    public ArrowBuf retain(ArrowBuf source, BufferAllocator target) {
      retain();
      ArrowBuf derived = deriveBuffer(source, 0, source.capacity());
      derived.readerIndex(source.readerIndex());
      derived.writerIndex(source.writerIndex());
      return derived;
    }

    @Override
    public ArrowBuf deriveBuffer(ArrowBuf source, long index, long length) {
      if (index < 0 || length < 0 || index + length > source.capacity()) {
        throw new IndexOutOfBoundsException(
            "["
                + index
                + ", "
                + (index + length)
                + ") of a region of "
                + source.capacity()
                + " bytes");
      }
      return new ArrowBuf(this, null, length, source.memoryAddress() + index);
    }

    @Override
    public OwnershipTransferResult transferOwnership(ArrowBuf source, BufferAllocator target) {
      ArrowBuf transferred = retain(source, target);
      return new OwnershipTransferResult() {
        @Override
        public boolean getAllocationFit() {
          return true; // nothing moves: the memory stays the cache's
        }

        @Override
        public ArrowBuf getTransferredBuffer() {
          return transferred;
        }
      };
    }

    @Override
    public BufferAllocator getAllocator() {
      return allocator;
    }

    @Override
    public long getSize() {
      return size;
    }

    @Override
    public long getAccountedSize() {
      return 0; // accounted once, to the cache's allocator, with the entry
    }
  }

  /**
   * The decoded chunk of {@code key} (a key with a version) with one more reference, which the
   * caller releases ({@code getReferenceManager().release()}), when it has an entry of at least
   * {@code bytes}; null otherwise. Counts nothing: the caller counts its hits with {@link
   * #countHits} once it has all the chunks it needs (or reads them, counting then).
   */
  synchronized ArrowBuf retainDecoded(Key key, long bytes) {
    Entry e = key.version() == null ? null : entries.get(key);
    if (e == null || e.decodedBytes() < bytes) {
      return null;
    }
    e.decoded().getReferenceManager().retain();
    return e.decoded();
  }

  /** Counts {@code chunks} hits (copied from entries taken with {@link #retainDecoded}). */
  synchronized void countHits(int chunks) {
    hits += chunks;
  }

  /** Counts {@code chunks} hits, each of them by reference ({@link #region} counts nothing). */
  synchronized void countByReference(int chunks) {
    hits += chunks;
    byReference += chunks;
  }

  private static boolean sameBytes(ArrowBuf cached, long cachedBytes, ArrowBuf encoded) {
    long n = encoded.readableBytes();
    return cachedBytes == n
        && ByteFunctionHelpers.equal(
                cached, 0, n, encoded, encoded.readerIndex(), encoded.readerIndex() + n)
            == 1;
  }

  /**
   * A chunk on its way into the cache: a copy of its stored bytes (null for a key with a version)
   * and a buffer to decode into.
   */
  record Pending(ArrowBuf encoded, long encodedBytes, ArrowBuf decoded, long decodedBytes) {
    /** Frees the buffers (the chunk's decoding failed). */
    void discard() {
      if (encoded != null) {
        encoded.close();
      }
      decoded.close();
    }
  }

  /**
   * Allocates {@code decodedBytes} for the chunk of {@code key} to be decoded into and then {@link
   * #put}, and for a key without a version a copy of {@code encoded}'s readable bytes, from the
   * cache's memory; null when the chunk would take over a quarter of the capacity or the memory is
   * taken (the read then decodes without the cache).
   */
  Pending reserve(Key key, ArrowBuf encoded, long decodedBytes) {
    long n = key.version() == null ? encoded.readableBytes() : 0;
    if ((n + decodedBytes) * 4 > capacity) {
      return null;
    }
    ArrowBuf copy = null;
    try {
      if (key.version() == null) {
        copy = allocator.buffer(n);
        copy.setBytes(0, encoded, encoded.readerIndex(), n);
      }
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

  /**
   * {@link #put}s {@code chunk} under {@code key} (a key with a version) and returns a region of
   * all of it for {@code holder} ({@link #region}), in one step, so that no other put can evict the
   * entry in between.
   */
  synchronized ArrowBuf putAndTake(Key key, Pending chunk, BufferAllocator holder) {
    put(key, chunk);
    return region(key, 0, chunk.decodedBytes(), holder);
  }

  private static void free(Entry e) {
    if (e.encoded() != null) {
      e.encoded().close();
    }
    e.decoded().close();
  }

  /**
   * Frees every entry and the cache's allocators (those of {@link #newAllocator} closed first).
   * Regions handed out by reference ({@link #region}) that a transport still holds keep their
   * memory until released: this waits for them (up to {@value #RELEASE_WAIT_SECONDS} s), then fails
   * naming how many are still held.
   *
   * @throws IllegalStateException when regions are still held after the wait (their memory and the
   *     cache's allocators stay allocated: a leak)
   */
  @Override
  public synchronized void close() {
    entries.values().forEach(ChunkCache::free);
    entries.clear();
    bytes = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RELEASE_WAIT_SECONDS);
    boolean interrupted = false;
    while (regions > 0 && System.nanoTime() < deadline) {
      try {
        wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      } catch (InterruptedException e) {
        interrupted = true;
        break;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (regions > 0) {
      throw new IllegalStateException(
          regions
              + " region(s) of cached chunks still held when the cache closed: close every slab,"
              + " vector and batch taken by reference before the cache");
    }
    allocator.close();
    root.close();
  }

  private static final int RELEASE_WAIT_SECONDS = 10;
}
