package dev.zaro.arrow.store;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.store.internal.StoreKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
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
 * deleted one is no value. Thread-safe.
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
              : "no such directory: " + this.root);
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

  /**
   * Leases the key's file channel, resolves {@code range} against its size, and hands both to
   * {@code reader}. A channel closed under the read by another thread's interrupt is dropped and
   * the read runs once more on a fresh one.
   */
  private <T> Optional<T> readRange(String key, ByteRange range, RangeRead<T> reader) {
    Path file = resolve(key);
    for (int attempt = 0; ; attempt++) {
      try (FileChannels.Lease lease = channels.acquire(file, key)) {
        try {
          FileChannel channel = lease.channel();
          long[] offsetLength = range.resolve(channel.size(), key, describe());
          return Optional.of(reader.read(channel, offsetLength[0], offsetLength[1]));
        } catch (ClosedChannelException e) {
          lease.invalidate();
          if (e instanceof ClosedByInterruptException || attempt > 0) {
            throw e;
          }
          channels.checkOpen(key);
        }
      } catch (NoSuchFileException e) {
        return Optional.empty();
      } catch (IOException e) {
        throw new StoreException("cannot read key '" + key + "' in " + describe() + ": " + e, e);
      }
    }
  }

  @Override
  public Optional<ArrowBuf> get(String key, ByteRange range, BufferAllocator allocator) {
    return readRange(
        key,
        range,
        (channel, position, length) -> {
          if (length > Integer.MAX_VALUE) {
            throw new StoreException(
                "key '"
                    + key
                    + "' in "
                    + describe()
                    + " is "
                    + length
                    + " bytes; single reads over 2 GiB are not supported");
          }
          ArrowBuf buf = allocator.buffer(length);
          dev.zaro.arrow.memory.HugePages.advise(buf.memoryAddress(), length);
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

  @Override
  public java.util.OptionalLong getInto(
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
    return n.map(java.util.OptionalLong::of).orElse(java.util.OptionalLong.empty());
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
      return Files.isRegularFile(file) ? Optional.of(Files.readAllBytes(file)) : Optional.empty();
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new StoreException("cannot read key '" + key + "' in " + describe() + ": " + e, e);
    }
  }

  @Override
  public Stream<String> list(String prefix) {
    return list(prefix, dir -> false);
  }

  /** Walks the tree, listing only the files of a directory below which nothing is wanted. */
  @Override
  public Stream<String> list(String prefix, java.util.function.Predicate<String> skipBelow) {
    int slash = prefix.lastIndexOf('/');
    String dirKey = slash < 0 ? "" : prefix.substring(0, slash);
    Path dir = dirKey.isEmpty() ? root : resolve(dirKey);
    if (!Files.isDirectory(dir)) {
      return Stream.empty();
    }
    java.util.List<String> keys = new java.util.ArrayList<>();
    try {
      Files.walkFileTree(
          dir,
          new java.nio.file.SimpleFileVisitor<>() {
            @Override
            public java.nio.file.FileVisitResult preVisitDirectory(
                Path d, java.nio.file.attribute.BasicFileAttributes a) throws IOException {
              if (!d.equals(root) && skipBelow.test(key(d))) {
                try (Stream<Path> files = Files.list(d)) {
                  files.filter(Files::isRegularFile).forEach(f -> keys.add(key(f)));
                }
                return java.nio.file.FileVisitResult.SKIP_SUBTREE;
              }
              return java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult visitFile(
                Path f, java.nio.file.attribute.BasicFileAttributes a) {
              if (Files.isRegularFile(
                  f)) { // follows a symbolic link to a file, as listings always did
                keys.add(key(f));
              }
              return java.nio.file.FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return keys.stream().filter(k -> k.startsWith(prefix)).sorted();
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
   * The file's size, modification time and identity (inode), when it was last modified more than
   * three seconds ago (and is not in the future); empty otherwise, or when it cannot be read.
   */
  @Override
  public Optional<String> version(String key) {
    try {
      BasicFileAttributes a = Files.readAttributes(resolve(key), BasicFileAttributes.class);
      long modified = a.lastModifiedTime().to(TimeUnit.NANOSECONDS);
      long now = TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis());
      if (!a.isRegularFile() || now - modified <= RACY_NANOS) {
        return Optional.empty();
      }
      return Optional.of(a.size() + "@" + modified + "#" + a.fileKey());
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  @Override
  public String describe() {
    return root.toString();
  }
}
