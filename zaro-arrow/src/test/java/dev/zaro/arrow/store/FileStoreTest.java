package dev.zaro.arrow.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.StoreException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileStoreTest extends AbstractStoreTest {
  @TempDir Path dir;

  @Override
  protected Store createStore(Map<String, byte[]> contents) throws Exception {
    Path root = dir.resolve("store");
    for (var e : contents.entrySet()) {
      Path file = root.resolve(e.getKey());
      Files.createDirectories(file.getParent());
      Files.write(file, e.getValue());
    }
    Files.writeString(dir.resolve("outside"), "secret");
    return new FileStore(root);
  }

  /**
   * A file's version (what the chunk cache keys a decoded chunk by) is there once the file is a few
   * seconds old, stays while nothing changes, and changes with a rewrite in place of the same size
   * whose modification time is then put back (the status-change time moves, and cannot be put
   * back), as well as with an ordinary rewrite.
   */
  @Test
  void aFilesVersionChangesWithARewriteWhoseTimeStampWasPutBack() throws Exception {
    Path file = dir.resolve("v");
    Files.write(file, new byte[] {1, 2, 3, 4});
    try (FileStore files = new FileStore(dir)) {
      assertEquals(Optional.empty(), files.version("v"), "just written: too recent to tell");
      FileTime old = FileTime.from(Instant.now().minusSeconds(3600));
      Files.setLastModifiedTime(file, old);
      Optional<String> before = files.version("v");
      assertTrue(before.isPresent());
      assertEquals(before, files.version("v"), "unchanged");
      Object inode = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
      Files.write(file, new byte[] {4, 3, 2, 1}); // in place: same file, same size
      Files.setLastModifiedTime(file, old);
      assertEquals(inode, Files.readAttributes(file, BasicFileAttributes.class).fileKey());
      assertEquals(old, Files.getLastModifiedTime(file));
      assertNotEquals(before, files.version("v"), "same size, time stamp and inode");
      Files.setLastModifiedTime(file, FileTime.from(Instant.now().minusSeconds(60)));
      assertNotEquals(before, files.version("v"));
      assertEquals(Optional.empty(), files.version("missing"));
      assertEquals(Optional.empty(), files.version(""), "a directory");
    }
  }

  @Test
  void aMissingRootIsAClearError() {
    StoreException e = assertThrows(StoreException.class, () -> new FileStore(dir.resolve("nope")));
    assertTrue(e.getMessage().contains("no such directory"), e.getMessage());
  }

  @Test
  void directoriesAreNotValues() {
    assertEquals(Optional.empty(), store.getBytes("a"));
    assertEquals(Optional.empty(), store.get("a/c", ByteRange.ALL, allocator));
  }

  @Test
  void storesOpenByPathAndFileUrl() {
    try (Store s = Stores.open(dir.resolve("store").toString())) {
      assertTrue(s.getBytes("zarr.json").isPresent());
    }
    try (Store s = Stores.open(dir.resolve("store").toUri().toString())) {
      assertTrue(s.getBytes("zarr.json").isPresent());
    }
    StoreException e = assertThrows(StoreException.class, () -> Stores.open("ftp://x/y"));
    assertTrue(e.getMessage().contains("unknown scheme 'ftp'"), e.getMessage());
  }

  /** Directories below an array are never walked: a/c/... is left out, a/zarr.json is not. */
  @Test
  void doesNotWalkBelowSkippedDirectories() {
    assertEquals(
        List.of("a/zarr.json", "b/x/y/z", "zarr.json"),
        store.list("", d -> d.equals("a")).toList());
    assertEquals(List.of("a/zarr.json", "zarr.json"), store.list("", d -> true).toList());
  }

  /** Concurrent readers over more files than the channel bound: every value right, none leaked. */
  @Test
  void concurrentReadsOverMoreFilesThanOpenChannels() throws Exception {
    Path root = Files.createDirectories(dir.resolve("many"));
    int files = 24;
    for (int i = 0; i < files; i++) {
      Files.write(root.resolve("k" + i), bytes(i, 1000 + i));
    }
    FileStore many = new FileStore(root, 4);
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      List<Future<?>> readers = new ArrayList<>();
      for (int r = 0; r < 6; r++) {
        int seed = r;
        readers.add(
            pool.submit(
                () -> {
                  for (int n = 0; n < 400; n++) {
                    int i = (seed * 7 + n * 5) % files;
                    long offset = n % 100;
                    try (ArrowBuf buf =
                        many.get("k" + i, ByteRange.of(offset, 50), allocator).orElseThrow()) {
                      byte[] got = new byte[50];
                      buf.getBytes(0, got);
                      assertArrayEquals(
                          Arrays.copyOfRange(bytes(i, 1000 + i), (int) offset, (int) offset + 50),
                          got,
                          "k" + i);
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : readers) {
        f.get();
      }
      assertTrue(many.openChannels() <= 4, "open channels: " + many.openChannels());
    } finally {
      pool.shutdownNow();
      many.close();
    }
    assertEquals(0, many.openChannels());
    StoreException e =
        assertThrows(StoreException.class, () -> many.get("k1", ByteRange.ALL, allocator));
    assertTrue(
        e.getMessage().contains("'k1'") && e.getMessage().contains("closed"), e.getMessage());
    assertEquals(ErrorKind.IO, e.kind());
  }

  /**
   * A close racing reads: each read either returns the right bytes or fails with the typed
   * closed-store error, nothing hangs, and every channel is closed once the reads are done.
   */
  @Test
  void closeDuringReadsClosesEveryChannel() throws Exception {
    Path root = Files.createDirectories(dir.resolve("race"));
    int files = 10;
    for (int i = 0; i < files; i++) {
      Files.write(root.resolve("k" + i), bytes(i, 4096));
    }
    FileStore racing = new FileStore(root, 3);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    CountDownLatch started = new CountDownLatch(4 * 20);
    try {
      List<Future<Integer>> readers = new ArrayList<>();
      for (int r = 0; r < 4; r++) {
        int seed = r;
        readers.add(
            pool.submit(
                () -> {
                  for (int n = 0; ; n++) {
                    int i = (seed + n) % files;
                    try (ArrowBuf buf = racing.get("k" + i, allocator).orElseThrow()) {
                      byte[] got = new byte[4096];
                      buf.getBytes(0, got);
                      assertArrayEquals(bytes(i, 4096), got, "k" + i);
                    } catch (StoreException e) {
                      assertTrue(e.getMessage().contains("the store is closed"), e.getMessage());
                      return n;
                    }
                    started.countDown();
                  }
                }));
      }
      started.await();
      racing.close();
      int reads = 0;
      for (Future<Integer> f : readers) {
        reads += f.get();
      }
      assertTrue(reads >= 4 * 20, "reads before the close: " + reads);
    } finally {
      pool.shutdownNow();
      racing.close();
    }
    assertEquals(0, racing.openChannels());
  }

  /**
   * A reader interrupted during a read closes the shared channel under it (FileChannel does): that
   * read fails, and the next read of the file opens it again and succeeds.
   */
  @Test
  void anInterruptedReadDoesNotBreakTheFileForOthers() throws Exception {
    FileStore files = (FileStore) store;
    try (ArrowBuf buf = files.get("a/c/0/0", allocator).orElseThrow()) {
      assertEquals(100, buf.writerIndex());
    }
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread interrupted =
        new Thread(
            () -> {
              Thread.currentThread().interrupt();
              try (ArrowBuf buf = files.get("a/c/0/0", allocator).orElseThrow()) {
                failure.set(new AssertionError("an interrupted read returned " + buf));
              } catch (RuntimeException e) {
                failure.set(e);
              }
            });
    interrupted.start();
    interrupted.join();
    assertTrue(failure.get() instanceof StoreException, String.valueOf(failure.get()));
    assertTrue(failure.get().getMessage().contains("'a/c/0/0'"), failure.get().getMessage());
    try (ArrowBuf buf = files.get("a/c/0/0", allocator).orElseThrow()) {
      byte[] got = new byte[100];
      buf.getBytes(0, got);
      assertArrayEquals(bytes(0, 100), got);
    }
    files.close();
    assertEquals(0, files.openChannels());
  }

  /** A cached channel never reads a file the path no longer names (a writer's write-and-rename). */
  @Test
  void aReplacedOrDeletedFileIsNeverReadThroughItsCachedChannel() throws Exception {
    FileStore files = (FileStore) store;
    Path file = files.root().resolve("a/c/0/0");
    try (ArrowBuf buf = files.get("a/c/0/0", allocator).orElseThrow()) {
      assertEquals(100, buf.writerIndex()); // its channel is cached now
    }
    Path staged = dir.resolve("staged");
    Files.write(staged, new byte[] {7, 8, 9});
    Files.move(staged, file, StandardCopyOption.REPLACE_EXISTING);
    try (ArrowBuf buf = files.get("a/c/0/0", allocator).orElseThrow()) {
      byte[] got = new byte[(int) buf.writerIndex()];
      buf.getBytes(0, got);
      assertArrayEquals(new byte[] {7, 8, 9}, got);
    }
    Files.delete(file);
    assertEquals(Optional.empty(), files.get("a/c/0/0", allocator));
    assertEquals(Optional.empty(), files.get("a/c/0/0", ByteRange.of(0, 2), allocator));
    files.close();
    assertEquals(0, files.openChannels());
  }

  /**
   * A store whose directory is removed while it is open does not read as absent values (which a
   * reader would take for fill values): every read of a key, cached channel or not, metadata or
   * chunk, whole or ranged, fails naming the key and the directory.
   */
  @Test
  void aStoreWhoseDirectoryIsRemovedFailsInsteadOfReadingAsAbsent() throws Exception {
    FileStore files = (FileStore) store;
    try (ArrowBuf buf = files.get("a/c/0/0", allocator).orElseThrow()) {
      assertEquals(100, buf.writerIndex()); // its channel is cached now
    }
    assertEquals(Optional.empty(), files.get("a/c/9/9", allocator), "absent: the store is there");
    try (var paths = Files.walk(files.root())) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
    List<Runnable> reads =
        List.of(
            () -> files.get("a/c/0/0", allocator),
            () -> files.get("a/c/9/9", allocator),
            () -> files.get("a/c/0/0", ByteRange.of(0, 2), allocator),
            () -> files.getRanges("a/c/0/0", List.of(new ByteRange.FromStart(0, 2)), allocator),
            () -> files.getBytes("a/zarr.json"),
            () -> files.getBytes("a/zarr.json", 1 << 20));
    for (Runnable read : reads) {
      StoreException e = assertThrows(StoreException.class, read::run);
      assertEquals(ErrorKind.IO, e.kind());
      assertTrue(e.getMessage().contains("cannot read key 'a/"), e.getMessage());
      assertTrue(e.getMessage().contains(files.root() + " no longer exists"), e.getMessage());
    }
    files.close();
    assertEquals(0, files.openChannels());
  }

  /**
   * Ranges further apart than the local gap are separate reads under one channel lease: every range
   * (out of order, overlapping, empty, next to each other) right; a range past the end in a later
   * group fails naming the key, with the groups read before it freed; a file replaced between calls
   * is read afresh.
   */
  @Test
  void readsFarApartRangesUnderOneLease() throws Exception {
    Path root = dir.resolve("ranges");
    Files.createDirectories(root);
    byte[] all = bytes(5, 200_000);
    Files.write(root.resolve("v"), all);
    long gap = FileStore.LOCAL_MAX_GAP;
    List<ByteRange.FromStart> ranges =
        List.of(
            range(150_000, 30_000),
            range(0, 100),
            range(100 + gap + 1, 50), // a separate read: just past the gap
            range(100, gap), // closes that gap: one read after all
            range(60_000, 0),
            range(199_999, 1),
            range(150_010, 10));
    try (FileStore files = new FileStore(root)) {
      List<ArrowBuf> got = files.getRanges("v", ranges, allocator).orElseThrow();
      try {
        for (int i = 0; i < ranges.size(); i++) {
          ByteRange.FromStart r = ranges.get(i);
          assertArrayEquals(
              Arrays.copyOfRange(all, (int) r.offset(), (int) (r.offset() + r.length())),
              read(got.get(i)),
              r.toString());
        }
      } finally {
        got.forEach(ArrowBuf::close);
      }
      StoreException e =
          assertThrows(
              StoreException.class,
              () -> files.getRanges("v", List.of(range(0, 10), range(199_000, 2_000)), allocator));
      assertTrue(e.getMessage().contains("'v'"), e.getMessage());
      assertEquals(0, allocator.getAllocatedMemory());
      assertEquals(Optional.empty(), files.getRanges("w", List.of(range(0, 1)), allocator));

      byte[] next = bytes(9, 200_000);
      Path tmp = root.resolve("v.tmp");
      Files.write(tmp, next);
      Files.move(tmp, root.resolve("v"), StandardCopyOption.ATOMIC_MOVE);
      List<ArrowBuf> again =
          files.getRanges("v", List.of(range(10, 20), range(100_000, 20)), allocator).orElseThrow();
      try {
        assertArrayEquals(Arrays.copyOfRange(next, 10, 30), read(again.get(0)));
        assertArrayEquals(Arrays.copyOfRange(next, 100_000, 100_020), read(again.get(1)));
      } finally {
        again.forEach(ArrowBuf::close);
      }
    }
  }

  private static ByteRange.FromStart range(long offset, long length) {
    return (ByteRange.FromStart) ByteRange.of(offset, length);
  }
}
