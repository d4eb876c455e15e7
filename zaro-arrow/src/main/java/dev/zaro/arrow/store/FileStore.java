package dev.zaro.arrow.store;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.memory.HugePages;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * A store on a local file system: key {@code a/b/c} is the file {@code root/a/b/c}. Reads are
 * positional reads straight into the target ArrowBuf, on read channels the store keeps open between
 * reads (at most {@link #DEFAULT_OPEN_FILES} by default, least recently used closed first) and
 * closes with {@link #close}; a read racing the close either finishes or fails with a {@link
 * StoreException} saying the store is closed. A cached channel is used only while its path still
 * names the same file (one stat per read): a file replaced under an open store is read afresh, a
 * deleted one is no value. A store whose directory itself is gone (removed or renamed while open)
 * is not a store of absent values: a read of a key not found then fails with a {@link
 * StoreException} naming the key and the directory (one more stat, on absent keys only).
 * Thread-safe.
 */
public final class FileStore implements Store {
  /** Read channels a store keeps open between reads unless told otherwise. */
  public static final int DEFAULT_OPEN_FILES = 128;

  private final Path root;
  private final FileChannels channels;

  /** The store rooted at the directory {@code root}. */
  public FileStore(Path root) {
    this(root, DEFAULT_OPEN_FILES);
  }

  /**
   * @param maxOpenFiles read channels kept open between reads, at least 1
   */
  public FileStore(Path root, int maxOpenFiles) {
    this.root = root.toAbsolutePath().normalize();
    if (!Files.isDirectory(this.root)) {
      throw new StoreException(
          Files.exists(this.root)
              ? "not a directory: " + this.root
              : "no such directory: " + this.root + NearPaths.hint(this.root));
    }
    this.channels = new FileChannels(maxOpenFiles, this.root.toString());
  }

  /** The directory keys are resolved against. */
  public Path root() {
    return root;
  }

  private Path resolve(String key) {
    return root.resolve(StoreKeys.checked(key, this));
  }

  /** Reads the resolved byte range of a key with an open channel. */
  @FunctionalInterface
  private interface RangeRead<T> {
    T read(FileChannel channel, long position, long length) throws IOException;
  }

  /** Reads from a key's open channel. */
  @FunctionalInterface
  private interface ChannelRead<T> {
    T read(FileChannel channel) throws IOException;
  }

  /**
   * Leases the key's file channel, resolves {@code range} against its size, and hands both to
   * {@code reader}. A channel closed under the read by another thread's interrupt is dropped and
   * the read runs once more on a fresh one.
   */
  private <T> Optional<T> readRange(String key, ByteRange range, RangeRead<T> reader) {
    return withChannel(
        key,
        channel -> {
          long[] offsetLength = range.resolve(channel.size(), key, describe());
          return reader.read(channel, offsetLength[0], offsetLength[1]);
        });
  }

  /**
   * Leases the key's file channel (one stat: see {@link FileChannels}) and hands it to {@code
   * reader}; empty when the file does not exist. A channel closed under the read by another
   * thread's interrupt is dropped and the read runs once more on a fresh one.
   */
  private <T> Optional<T> withChannel(String key, ChannelRead<T> reader) {
    Path file = resolve(key);
    for (int attempt = 0; ; attempt++) {
      try (FileChannels.Lease lease = channels.acquire(file, key)) {
        if (lease == null) {
          checkRootExists(key);
          return Optional.empty();
        }
        try {
          return Optional.of(reader.read(lease.channel()));
        } catch (ClosedChannelException e) {
          lease.invalidate();
          if (e instanceof ClosedByInterruptException || attempt > 0) {
            throw e;
          }
          channels.checkOpen(key);
        }
      } catch (NoSuchFileException e) {
        checkRootExists(key);
        return Optional.empty();
      } catch (IOException e) {
        throw new StoreException("cannot read key '" + key + "' in " + describe() + ": " + e, e);
      }
    }
  }

  /**
   * A key not found is an absent value (a chunk of fill values, a node that is not there) only
   * while the store's directory exists: once it is gone, every key would be "absent", and an open
   * store would silently read as fill values.
   *
   * @throws StoreException naming the key and the directory when the directory is gone
   */
  private void checkRootExists(String key) {
    if (!Files.isDirectory(root)) {
      throw new StoreException(
          "cannot read key '"
              + key
              + "': the store's directory "
              + root
              + " no longer exists (removed or renamed while the store was open)");
    }
  }

  @Override
  public Optional<ArrowBuf> get(String key, ByteRange range, BufferAllocator allocator) {
    return readRange(
        key,
        range,
        (channel, position, length) -> {
          if (length > Integer.MAX_VALUE) {
            throw tooLarge(key, length);
          }
          ArrowBuf buf = allocator.buffer(length);
          HugePages.advise(buf.memoryAddress(), length);
          try {
            readFully(channel, buf, 0, position, (int) length, key);
            buf.writerIndex(length);
            return buf;
          } catch (RuntimeException | IOException e) {
            buf.close();
            throw e;
          }
        });
  }

  /**
   * Ranges closer than this are read together from a local file: one positional read costs about as
   * much as copying a few KiB from the page cache, so larger gaps (the remote stores' {@link
   * RangeCoalescer#MAX_GAP}) would only copy bytes nobody asked for.
   */
  static final long LOCAL_MAX_GAP = 4 << 10;

  /**
   * Several ranges of one file under one channel lease (one stat and one size for all of them),
   * nearby ones merged by {@link RangeCoalescer#plan} with the local gap {@link #LOCAL_MAX_GAP}.
   */
  @Override
  public Optional<List<ArrowBuf>> getRanges(
      String key, List<ByteRange.FromStart> ranges, BufferAllocator allocator) {
    List<RangeCoalescer.Group> groups =
        RangeCoalescer.plan(ranges, LOCAL_MAX_GAP, RangeCoalescer.MAX_REQUEST);
    ArrowBuf[] bodies = new ArrowBuf[groups.size()];
    Optional<ArrowBuf[]> read;
    try {
      read =
          withChannel(
              key,
              channel -> {
                // a retry on a fresh channel reads every group again
                RangeCoalescer.closeAll(bodies);
                Arrays.fill(bodies, null);
                long size = channel.size();
                for (int i = 0; i < bodies.length; i++) {
                  RangeCoalescer.Group g = groups.get(i);
                  long[] offsetLength =
                      ByteRange.of(g.offset(), g.length()).resolve(size, key, describe());
                  if (offsetLength[1] > Integer.MAX_VALUE) {
                    throw tooLarge(key, offsetLength[1]);
                  }
                  bodies[i] = allocator.buffer(offsetLength[1]);
                  readFully(channel, bodies[i], 0, offsetLength[0], (int) offsetLength[1], key);
                  bodies[i].writerIndex(offsetLength[1]);
                }
                return bodies;
              });
    } catch (RuntimeException | Error e) {
      RangeCoalescer.closeAll(bodies);
      throw e;
    }
    if (read.isEmpty()) {
      RangeCoalescer.closeAll(bodies);
      return Optional.empty();
    }
    return Optional.of(RangeCoalescer.slice(this, key, ranges, groups, bodies));
  }

  private StoreException tooLarge(String key, long length) {
    return new StoreException(
        "key '"
            + key
            + "' in "
            + describe()
            + " is "
            + length
            + " bytes; single reads over 2 GiB are not supported");
  }

  @Override
  public OptionalLong getInto(
      String key, ByteRange range, ArrowBuf target, long offset, long capacity) {
    Optional<Long> n =
        readRange(
            key,
            range,
            (channel, position, length) -> {
              if (length > capacity || length > Integer.MAX_VALUE) {
                throw new StoreException(
                    "key '"
                        + key
                        + "' in "
                        + describe()
                        + " holds "
                        + length
                        + " bytes, more than the "
                        + capacity
                        + " expected");
              }
              readFully(channel, target, offset, position, (int) length, key);
              return length;
            });
    return n.map(OptionalLong::of).orElse(OptionalLong.empty());
  }

  private void readFully(
      FileChannel channel, ArrowBuf buf, long bufOffset, long position, int length, String key)
      throws IOException {
    if (length == 0) {
      return;
    }
    ByteBuffer target = buf.nioBuffer(bufOffset, length);
    long pos = position;
    while (target.hasRemaining()) {
      int n = channel.read(target, pos);
      if (n < 0) {
        throw new StoreException(
            "key '" + key + "' in " + describe() + " ended early: it shrank while being read");
      }
      pos += n;
    }
  }

  @Override
  public Optional<byte[]> getBytes(String key) {
    Path file = resolve(key);
    try {
      if (Files.isRegularFile(file)) {
        return Optional.of(Files.readAllBytes(file));
      }
    } catch (NoSuchFileException e) {
      // deleted between the two calls: absent, as below
    } catch (IOException e) {
      throw new StoreException("cannot read key '" + key + "' in " + describe() + ": " + e, e);
    }
    checkRootExists(key);
    return Optional.empty();
  }

  /** {@inheritDoc} The file's size is checked before it is read. */
  @Override
  public Optional<byte[]> getBytes(String key, long maxBytes) {
    Path file = resolve(key);
    try {
      if (Files.isRegularFile(file) && Files.size(file) > maxBytes) {
        throw Store.tooLarge(this, key, Files.size(file), maxBytes);
      }
    } catch (IOException e) {
      throw new StoreException("cannot read key '" + key + "' in " + describe() + ": " + e, e);
    }
    return Store.super.getBytes(key, maxBytes); // checked again: it may have grown since
  }

  @Override
  public Stream<String> list(String prefix) {
    return list(prefix, dir -> false);
  }

  /** Walks the tree, listing only the files of a directory below which nothing is wanted. */
  @Override
  public Stream<String> list(String prefix, Predicate<String> skipBelow) {
    return walk(prefix, skipBelow, null).stream().filter(k -> k.startsWith(prefix)).sorted();
  }

  /**
   * {@inheritDoc} The files' sizes, from the attributes the walk reads anyway (a symbolic link to a
   * file counts as its target's size).
   */
  @Override
  public Optional<SortedMap<String, Long>> listSizes(String prefix) {
    SortedMap<String, Long> sizes = new TreeMap<>();
    walk(prefix, dir -> false, sizes);
    return Optional.of(sizes);
  }

  /**
   * The keys in {@code prefix}'s directory, at any depth (some outside {@code prefix}); the sizes
   * of those under it into {@code sizes} when not null.
   */
  private List<String> walk(
      String prefix, Predicate<String> skipBelow, SortedMap<String, Long> sizes) {
    int slash = prefix.lastIndexOf('/');
    String dirKey = slash < 0 ? "" : prefix.substring(0, slash);
    Path dir = dirKey.isEmpty() ? root : resolve(dirKey);
    List<String> keys = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return keys;
    }
    try {
      Files.walkFileTree(
          dir,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes a)
                throws IOException {
              if (!d.equals(root) && skipBelow.test(key(d))) {
                try (Stream<Path> files = Files.list(d)) {
                  files.filter(Files::isRegularFile).forEach(f -> keys.add(key(f)));
                }
                return FileVisitResult.SKIP_SUBTREE;
              }
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes a) throws IOException {
              if (a.isRegularFile()) {
                add(keys, f, a.size(), sizes, prefix);
              } else if (Files.isRegularFile(f)) { // a symbolic link to a file, listed as always
                add(keys, f, sizes == null ? 0 : Files.size(f), sizes, prefix);
              }
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return keys;
  }

  private void add(
      List<String> keys, Path f, long size, SortedMap<String, Long> sizes, String prefix) {
    String k = key(f);
    keys.add(k);
    if (sizes != null && k.startsWith(prefix)) {
      sizes.put(k, size);
    }
  }

  private String key(Path p) {
    return root.relativize(p).toString().replace(p.getFileSystem().getSeparator(), "/");
  }

  /** Closes the read channels (leased ones as their reads finish); later reads fail. */
  @Override
  public void close() {
    channels.close();
  }

  /** Read channels open now, cached or in use by a read. */
  int openChannels() {
    return channels.openChannels();
  }

  @Override
  public StoreCapabilities capabilities() {
    return StoreCapabilities.LOCAL;
  }

  /**
   * A file changed this long ago or less has no version: file systems stamp modification times from
   * a coarse clock (and some to the second), so a rewrite of the same size this soon after could
   * keep the stamp ("racy git").
   */
  private static final long RACY_NANOS = TimeUnit.SECONDS.toNanos(3);

  /**
   * The file's size, modification time, status-change time and identity (device and inode), when it
   * was last modified more than three seconds ago (and not in the future); empty otherwise, or when
   * it cannot be read. The status-change time (ctime) moves on every write and every change of the
   * stamps, and no call can set it back: a rewrite in place of the same size whose modification
   * time is then restored ({@code touch -r}, {@code cp -p} onto the file) still changes the
   * version. Only two such rewrites within one tick of the kernel's clock could keep it. Where the
   * file system has no such time (no "unix" attribute view): size, modification time and inode.
   */
  @Override
  public Optional<String> version(String key) {
    Path file = resolve(key);
    try {
      if (UNIX_VIEW) {
        Map<String, Object> a = Files.readAttributes(file, UNIX_ATTRIBUTES);
        long modified = ((FileTime) a.get("lastModifiedTime")).to(TimeUnit.NANOSECONDS);
        long changed = ((FileTime) a.get("ctime")).to(TimeUnit.NANOSECONDS);
        if (!Boolean.TRUE.equals(a.get("isRegularFile")) || racy(modified)) {
          return Optional.empty();
        }
        return Optional.of(
            a.get("size")
                + "@"
                + modified
                + "/"
                + changed
                + "#"
                + a.get("dev")
                + ":"
                + a.get("ino"));
      }
      BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
      long modified = a.lastModifiedTime().to(TimeUnit.NANOSECONDS);
      if (!a.isRegularFile() || racy(modified)) {
        return Optional.empty();
      }
      return Optional.of(a.size() + "@" + modified + "#" + a.fileKey());
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static final String UNIX_ATTRIBUTES =
      "unix:size,lastModifiedTime,ctime,isRegularFile,dev,ino";
  private static final boolean UNIX_VIEW =
      FileSystems.getDefault().supportedFileAttributeViews().contains("unix");

  /** Changed within {@link #RACY_NANOS} of now, or in the future. */
  private static boolean racy(long changedNanos) {
    long now = TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis());
    return now - changedNanos <= RACY_NANOS;
  }

  @Override
  public String describe() {
    return root.toString();
  }
}
