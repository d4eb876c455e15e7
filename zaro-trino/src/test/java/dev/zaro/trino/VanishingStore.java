package dev.zaro.trino;

import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.FileStore;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreCapabilities;
import dev.zaro.arrow.store.StoreLocation;
import dev.zaro.arrow.store.StoreProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * A local store whose files disappear in the middle of a query, at a point fixed by a count, not by
 * time: {@code vanishing://PATH?array=A&after=N&remove=store|chunks} is the {@link FileStore} at
 * PATH, except that the N-th read of a chunk of array A (counted over every node's store of the
 * same PATH: the cluster's nodes run in one JVM) first removes the whole store directory ({@code
 * store}) or every chunk file of A ({@code chunks}), then reads as the file store does. Reads
 * racing it on other threads either finish before the files go or find them gone, as they would
 * with a real deletion. Registered for the surefire JVM only (src/test/stores).
 */
public final class VanishingStore implements Store {
  /** Chunk reads so far, by store directory. */
  private static final Map<Path, AtomicInteger> READS = new ConcurrentHashMap<>();

  private final FileStore files;
  private final String chunkPrefix;
  private final int after;
  private final boolean wholeStore;

  private VanishingStore(FileStore files, String array, int after, boolean wholeStore) {
    this.files = files;
    this.chunkPrefix = array + "/c/";
    this.after = after;
    this.wholeStore = wholeStore;
  }

  /** The provider of scheme {@code vanishing}. */
  public static final class Provider implements StoreProvider {
    @Override
    public Set<String> schemes() {
      return Set.of("vanishing");
    }

    @Override
    public Store open(StoreLocation location) {
      Map<String, String> o =
          location.options(Set.of("array", "after", "remove"), "array, after, remove");
      FileStore files = new FileStore(Path.of(location.rest()));
      READS.putIfAbsent(files.root(), new AtomicInteger());
      return new VanishingStore(
          files, o.get("array"), Integer.parseInt(o.get("after")), o.get("remove").equals("store"));
    }
  }

  /** Chunk reads of the store at {@code root} so far. */
  static int reads(Path root) {
    AtomicInteger n = READS.get(root.toAbsolutePath().normalize());
    return n == null ? 0 : n.get();
  }

  private void counted(String key) {
    if (key.startsWith(chunkPrefix) && READS.get(files.root()).incrementAndGet() == after) {
      remove(wholeStore ? files.root() : files.root().resolve(chunkPrefix));
    }
  }

  private static void remove(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public Optional<ArrowBuf> get(String key, ByteRange range, BufferAllocator allocator) {
    counted(key);
    return files.get(key, range, allocator);
  }

  @Override
  public OptionalLong getInto(
      String key, ByteRange range, ArrowBuf target, long offset, long capacity) {
    counted(key);
    return files.getInto(key, range, target, offset, capacity);
  }

  @Override
  public Optional<List<ArrowBuf>> getRanges(
      String key, List<ByteRange.FromStart> ranges, BufferAllocator allocator) {
    counted(key);
    return files.getRanges(key, ranges, allocator);
  }

  @Override
  public Optional<byte[]> getBytes(String key) {
    return files.getBytes(key);
  }

  @Override
  public Stream<String> list(String prefix) {
    return files.list(prefix);
  }

  @Override
  public Stream<String> list(String prefix, Predicate<String> skipBelow) {
    return files.list(prefix, skipBelow);
  }

  @Override
  public StoreCapabilities capabilities() {
    return files.capabilities();
  }

  @Override
  public Optional<String> version(String key) {
    return files.version(key);
  }

  @Override
  public String describe() {
    return files.describe();
  }

  @Override
  public void close() {
    files.close();
  }
}
