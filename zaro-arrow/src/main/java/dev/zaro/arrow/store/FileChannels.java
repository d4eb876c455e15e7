package dev.zaro.arrow.store;

import dev.zaro.arrow.error.StoreException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The open read channels of one {@link FileStore}: at most {@code capacity} kept open between
 * reads, the least recently used closed first. A read {@link #acquire}s a file's channel and {@link
 * Lease#close}s its lease; a channel evicted (or the cache {@link #close}d) while leased is closed
 * by its last lease, so a read in progress is never cut off and no channel outlives its reads.
 * After {@link #close}, acquiring fails with a {@link StoreException} naming the store.
 *
 * <p>A cached channel is used only while the path still names the file it was opened on: every
 * acquire stats the path (one {@code stat}, cheaper than the open and close it saves) and compares
 * the file's identity (its {@link BasicFileAttributes#fileKey}, device and inode on Linux; size and
 * modification time where a file system has none). A file replaced (a writer's write-and-rename) is
 * opened afresh, a deleted one is no value: an open store never reads bytes the path no longer
 * holds. Thread-safe; every read on a channel is positional, so concurrent readers share it.
 */
final class FileChannels implements AutoCloseable {
  private final int capacity;
  private final String where;
  private final Map<Path, Entry> open = new LinkedHashMap<>(16, 0.75f, true);
  private boolean closed;
  private int channels; // opened and not yet closed, cached or leased

  /** One open channel and its leases; retired once out of the cache, closed at zero leases. */
  private static final class Entry {
    final Path file;
    final FileChannel channel;
    final Object identity;
    int leases;
    boolean retired;

    Entry(Path file, FileChannel channel, Object identity) {
      this.file = file;
      this.channel = channel;
      this.identity = identity;
    }
  }

  /** A read's hold on one channel; closing it lets the channel close once evicted. */
  final class Lease implements AutoCloseable {
    private final Entry entry;
    private boolean released;

    private Lease(Entry entry) {
      this.entry = entry;
    }

    FileChannel channel() {
      return entry.channel;
    }

    /**
     * Takes the channel out of the cache (it was closed under the read, by an interrupt): the next
     * acquire opens the file again.
     */
    void invalidate() {
      synchronized (FileChannels.this) {
        if (open.get(entry.file) == entry) {
          open.remove(entry.file);
        }
        entry.retired = true;
      }
    }

    @Override
    public void close() {
      FileChannel toClose = null;
      synchronized (FileChannels.this) {
        if (released) {
          return;
        }
        released = true;
        if (--entry.leases == 0 && entry.retired) {
          toClose = entry.channel;
          channels--;
        }
      }
      closeQuietly(toClose);
    }
  }

  /**
   * @param capacity channels kept open between reads, at least 1
   * @param where the store, for messages
   */
  FileChannels(int capacity, String where) {
    if (capacity < 1) {
      throw new IllegalArgumentException("a FileStore keeps at least one open file: " + capacity);
    }
    this.capacity = capacity;
    this.where = where;
  }

  /**
   * A lease on {@code file}'s read channel, opening the file if no channel of it is cached; null
   * when there is no regular file (a directory is no value). An absent file, the common case of a
   * chunk never written, is told without an exception: {@link Files#isRegularFile} answers it from
   * one stat, where a failed {@link Files#readAttributes} makes an exception with its stack trace
   * (a picture of a sparse array meets thousands; three to four times the cost).
   *
   * @throws NoSuchFileException if the file vanishes while it is opened
   * @throws StoreException if the store is closed
   */
  Lease acquire(Path file, String key) throws IOException {
    BasicFileAttributes attributes = null;
    if (Files.isRegularFile(file)) { // follows a link
      try {
        attributes = Files.readAttributes(file, BasicFileAttributes.class);
      } catch (NoSuchFileException e) {
        // removed since: absent
      }
    }
    if (attributes == null || !attributes.isRegularFile()) {
      checkOpen(key);
      forget(file);
      return null;
    }
    Object identity = identity(attributes);
    List<FileChannel> stale = new ArrayList<>();
    synchronized (this) {
      checkOpen(key);
      Entry e = open.get(file);
      if (e != null && e.identity.equals(identity)) {
        e.leases++;
        return new Lease(e);
      }
      if (e != null) { // the path names another file now
        open.remove(file);
        retire(e, stale);
      }
    }
    closeAll(stale);
    FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
    List<FileChannel> toClose = new ArrayList<>();
    Lease lease;
    synchronized (this) {
      channels++;
      Entry e = open.get(file);
      if (closed || e != null) {
        channels--;
        toClose.add(channel); // closed meanwhile, or another read opened the file first
      }
      if (closed) {
        closeAll(toClose);
        throw closedError(key);
      }
      if (e == null) {
        // the identity stat'ed before the open: if the path changed in between, the next acquire
        // sees a mismatch and opens it again (never the other way round)
        e = new Entry(file, channel, identity);
        open.put(file, e);
      }
      e.leases++;
      lease = new Lease(e);
      for (Iterator<Entry> it = open.values().iterator(); open.size() > capacity; ) {
        Entry eldest = it.next();
        it.remove();
        retire(eldest, toClose);
      }
    }
    closeAll(toClose);
    return lease;
  }

  /** The file's identity: its file key, or where a file system has none, size and mtime. */
  private static Object identity(BasicFileAttributes a) {
    Object key = a.fileKey();
    return key != null
        ? key
        : List.of(a.size(), a.lastModifiedTime().toMillis(), a.creationTime().toMillis());
  }

  /** Drops a cached channel of a path that no longer names a file. */
  private void forget(Path file) {
    List<FileChannel> toClose = new ArrayList<>();
    synchronized (this) {
      Entry e = open.remove(file);
      if (e != null) {
        retire(e, toClose);
      }
    }
    closeAll(toClose);
  }

  /** Channels open now, cached or leased (what a test checks after {@link #close}). */
  synchronized int openChannels() {
    return channels;
  }

  /** True once {@link #close} ran. */
  synchronized boolean isClosed() {
    return closed;
  }

  /**
   * Closes every cached channel not leased now; leased ones close with their last lease. Later
   * acquires fail.
   */
  @Override
  public void close() {
    List<FileChannel> toClose = new ArrayList<>();
    synchronized (this) {
      closed = true;
      for (Entry e : open.values()) {
        retire(e, toClose);
      }
      open.clear();
    }
    closeAll(toClose);
  }

  /** Must hold the lock. */
  private void retire(Entry e, List<FileChannel> toClose) {
    e.retired = true;
    if (e.leases == 0) {
      toClose.add(e.channel);
      channels--;
    }
  }

  void checkOpen(String key) {
    synchronized (this) {
      if (closed) {
        throw closedError(key);
      }
    }
  }

  StoreException closedError(String key) {
    return new StoreException(
        "cannot read key '" + key + "' in " + where + ": the store is closed");
  }

  private static void closeAll(List<FileChannel> channels) {
    channels.forEach(FileChannels::closeQuietly);
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel == null) {
      return;
    }
    try {
      channel.close();
    } catch (IOException e) {
      // a read-only channel has nothing to flush; the descriptor is released regardless
    }
  }
}
