package dev.zaro.arrow.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.CountingStore;
import dev.zaro.arrow.store.FileStore;
import dev.zaro.arrow.store.MemoryStore;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreCapabilities;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Partial shard reads and broken shards, on testdata/sharding/stores/end_zstd.zarr (tensorstore:
 * shape [30, 41], shards [10, 16], inner chunks [5, 4], index bytes+crc32c at the end: 2 x 4 inner
 * chunks per shard, index 8 x 16 + 4 = 132 bytes).
 */
class ShardingReadTest extends AllocatorTest {
  static final Path STORE = Fixtures.testdata().resolve("sharding/stores/end_zstd.zarr");
  static final int INDEX_BYTES = 8 * 16 + 4;

  /** The (offset, length) pairs of a shard's index, read with plain ByteBuffer code. */
  static long[][] index(byte[] shard) {
    ByteBuffer b = ByteBuffer.wrap(shard).order(ByteOrder.LITTLE_ENDIAN);
    long[][] entries = new long[8][];
    int start = shard.length - INDEX_BYTES;
    for (int i = 0; i < 8; i++) {
      entries[i] = new long[] {b.getLong(start + 16 * i), b.getLong(start + 16 * i + 8)};
    }
    return entries;
  }

  @Test
  void aOneInnerChunkReadFetchesTheIndexAndThatChunkOnly() throws IOException {
    byte[] shard = Files.readAllBytes(STORE.resolve("c/1/1"));
    // element [12, 20] is in shard (1, 1), inner chunk (12-10)/5 = 0, (20-16)/4 = 1: position 1
    long[] entry = index(shard)[1];
    CountingStore store = new CountingStore(new FileStore(STORE));
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults())) {
      zaro.array("");
      store.reset();
      try (Slab slab = zaro.read("", "12:13, 20:21", allocator)) {
        assertEquals(1, slab.elementCount());
      }
      assertEquals(2, store.gets.get(), "index + inner chunk");
      assertEquals(INDEX_BYTES + entry[1], store.bytes.get());
      assertTrue(
          store.bytes.get() < shard.length / 2,
          store.bytes + " of a " + shard.length + "-byte shard");
      store.reset();
      try (Slab slab = zaro.read("", "10:15, 16:24", allocator)) {
        assertEquals(40, slab.elementCount());
      }
      assertEquals(1, store.gets.get(), "the index is cached and neighbouring chunks coalesced");
    }
  }

  /**
   * Nested sharding is read partially at every depth: one element fetches the outer index, the
   * inner shard's index (inside the outer shard) and one innermost chunk, nothing else.
   */
  @Test
  void aNestedShardIsReadPartiallyAtEveryDepth() throws IOException {
    Path nested = STORE.getParent().resolve("nested.zarr");
    byte[] shard = Files.readAllBytes(nested.resolve("c/1/0"));
    CountingStore store = new CountingStore(new FileStore(nested));
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults())) {
      zaro.array("");
      store.reset();
      try (Slab slab = zaro.read("", "21:22, 5:6", allocator)) {
        assertEquals(1, slab.elementCount());
      }
      assertEquals(3, store.gets.get(), "outer index + inner index + one inner chunk");
      assertTrue(
          store.bytes.get() < shard.length / 2,
          store.bytes + " bytes of a " + shard.length + "-byte shard");
      store.reset();
      try (Slab slab = zaro.read("", "21:22, 5:6", allocator)) {
        assertEquals(1, slab.elementCount());
      }
      assertEquals(1, store.gets.get(), "both indexes cached: the chunk alone");
    }
  }

  /**
   * A shard file replaced (write and rename) or rewritten in place under an open array is read with
   * its new index, never with the cached one's offsets: on
   * testdata/sharding/stores/index_without_crc (tensorstore: float32 [17], shards [8] of raw inner
   * chunks [2], no index checksum), shard c/0 (four inner chunks) becomes shard c/1's bytes (three,
   * the last inner chunk absent), whose fourth entry the old index would read from the new file's
   * index bytes. An unchanged shard's index stays cached (a second read fetches only chunk bytes).
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aShardReplacedUnderAnOpenArrayIsReadWithItsNewIndex(boolean rename, @TempDir Path dir)
      throws IOException {
    Path source = STORE.getParent().resolve("index_without_crc.zarr");
    Path root = Fixtures.copyTree(source, dir.resolve("a.zarr"));
    Fixtures.age(root, 3600); // versions are told only for files older than a few seconds
    float[] all =
        floats(
            Files.readAllBytes(
                STORE.getParent().getParent().resolve("expected/index_without_crc.0.bin")));
    try (Zaro zaro = Zaro.open(new FileStore(root), ZaroOptions.defaults())) {
      ReadStats first = new ReadStats();
      assertArrayEquals(Arrays.copyOfRange(all, 0, 8), read(zaro, "0:8", first));
      ReadStats cached = new ReadStats();
      assertArrayEquals(Arrays.copyOfRange(all, 0, 8), read(zaro, "0:8", cached));
      assertEquals(first.bytesFetched() - 4 * 16, cached.bytesFetched(), "index read once");

      byte[] other = Files.readAllBytes(root.resolve("c/1"));
      Path shard = root.resolve("c/0");
      if (rename) {
        Path tmp = root.resolve("c/0.tmp");
        Files.write(tmp, other);
        Files.setLastModifiedTime(tmp, FileTime.from(Instant.now().minusSeconds(7200)));
        Files.move(tmp, shard, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } else {
        Files.write(shard, other); // in place: same file, truncated and rewritten
        Files.setLastModifiedTime(shard, FileTime.from(Instant.now().minusSeconds(7200)));
      }
      // both past the racy window: the version (not its absence) tells the change
      assertArrayEquals(Arrays.copyOfRange(all, 8, 16), read(zaro, "0:8", new ReadStats()));
      // and a file changed seconds ago (no version yet) is read with its own index too
      Files.write(shard, Files.readAllBytes(source.resolve("c/0")));
      assertArrayEquals(Arrays.copyOfRange(all, 0, 8), read(zaro, "0:8", new ReadStats()));
    }
  }

  /**
   * A shard replaced between its index read and its chunks' read is never decoded at the old
   * index's offsets in the new file (which for the raw inner chunks of index_without_crc would be
   * wrong values, silently): the read notices the file's new version once decoded and reads the
   * shard again, index and chunks (the new file's values, tensorstore's); a shard replaced on every
   * attempt fails the read, naming it, with every buffer freed.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, Integer.MAX_VALUE})
  void aShardReplacedBetweenItsIndexAndItsChunksIsNeverMixed(int replacements, @TempDir Path dir)
      throws IOException {
    Path source = STORE.getParent().resolve("index_without_crc.zarr");
    Path root = Fixtures.copyTree(source, dir.resolve("a.zarr"));
    Fixtures.age(root, 3600); // versions are told only for files older than a few seconds
    float[] all =
        floats(
            Files.readAllBytes(
                STORE.getParent().getParent().resolve("expected/index_without_crc.0.bin")));
    byte[][] files = {
      Files.readAllBytes(root.resolve("c/1")), Files.readAllBytes(root.resolve("c/0"))
    };
    ReplacingStore store = new ReplacingStore(root, files, replacements);
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults())) {
      assertArrayEquals(Arrays.copyOfRange(all, 0, 8), read(zaro, "0:8", new ReadStats()));
      store.armed = true; // from now on, c/0 is replaced just before its chunks are read
      if (replacements == 1) {
        assertArrayEquals(Arrays.copyOfRange(all, 8, 16), read(zaro, "0:8", new ReadStats()));
        assertEquals(1, store.replaced);
      } else {
        StoreException e =
            assertThrows(StoreException.class, () -> read(zaro, "0:8", new ReadStats()));
        assertEquals(ErrorKind.IO, e.kind());
        assertTrue(
            e.getMessage().contains("shard 'c/0' changed while it was read"), e.getMessage());
        assertEquals(2, store.replaced, "read twice, then failed");
      }
    }
  }

  /**
   * A FileStore whose shard c/0 is replaced (write and rename, the new file's modification time an
   * hour back) just before its chunks are read, up to {@code replacements} times once armed; the
   * replacements alternate between {@code files}. Once per read of the shard: a read asks the
   * shard's version first, and the first chunk read after that replaces it (a local read of a few
   * chunks reads each on the thread that decodes it, two at once).
   */
  private static final class ReplacingStore implements Store {
    private final FileStore inner;
    private final Path root;
    private final byte[][] files;
    private final int replacements;
    volatile boolean armed;
    int replaced;

    /** Whether the next chunk read replaces the shard: set when its version is asked. */
    private boolean due;

    ReplacingStore(Path root, byte[][] files, int replacements) {
      this.inner = new FileStore(root);
      this.root = root;
      this.files = files;
      this.replacements = replacements;
    }

    @Override
    public Optional<List<ArrowBuf>> getRanges(
        String key, List<ByteRange.FromStart> ranges, BufferAllocator allocator) {
      replaceIfDue(key);
      return inner.getRanges(key, ranges, allocator);
    }

    private synchronized void replaceIfDue(String key) {
      if (armed && due && key.equals("c/0") && replaced < replacements) {
        due = false;
        try {
          Path tmp = root.resolve("c/0.tmp");
          Files.write(tmp, files[replaced % files.length]);
          Files.setLastModifiedTime(tmp, FileTime.from(Instant.now().minusSeconds(3600)));
          Files.move(
              tmp,
              root.resolve(key),
              StandardCopyOption.REPLACE_EXISTING,
              StandardCopyOption.ATOMIC_MOVE);
          replaced++;
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }

    @Override
    public Optional<ArrowBuf> get(String key, ByteRange range, BufferAllocator allocator) {
      return inner.get(key, range, allocator);
    }

    @Override
    public Optional<byte[]> getBytes(String key) {
      return inner.getBytes(key);
    }

    @Override
    public Stream<String> list(String prefix) {
      return inner.list(prefix);
    }

    @Override
    public StoreCapabilities capabilities() {
      return inner.capabilities();
    }

    @Override
    public Optional<String> version(String key) {
      if (key.equals("c/0")) {
        synchronized (this) {
          due = true;
        }
      }
      return inner.version(key);
    }

    @Override
    public String describe() {
      return inner.describe();
    }

    @Override
    public void close() {
      inner.close();
    }
  }

  /**
   * A shard read alone on two threads (its inner chunks decoded by both) equals tensorstore's
   * values, for blocks of inner chunks of shard (1, 1), and fetches the index and each needed
   * chunk's bytes once.
   */
  @Test
  void aShardReadAloneOnTwoThreadsEqualsTensorstore() throws IOException {
    byte[] shard = Files.readAllBytes(STORE.resolve("c/1/1"));
    long[][] entries = index(shard);
    int[] all =
        ints(Files.readAllBytes(STORE.getParent().getParent().resolve("expected/end_zstd.0.bin")));
    for (String selection : new String[] {"10:20, 16:32", "11:19, 17:31", "10:15, 16:32"}) {
      Selection sel = Selection.parse(selection, new long[] {30, 41});
      Selection.Dim rows = sel.dims().get(0);
      Selection.Dim cols = sel.dims().get(1);
      ReadStats stats = new ReadStats();
      // a fresh Zaro each time: the one shard's index is read once by every read
      try (Zaro zaro = Zaro.open(new FileStore(STORE), ZaroOptions.defaults().withThreads(2))) {
        int[] got = ints(readBytes(zaro, selection, stats));
        int[] want = new int[got.length];
        int k = 0;
        for (long i = 0; i < rows.count(); i++) {
          for (long j = 0; j < cols.count(); j++) {
            want[k++] = all[(int) ((rows.start() + i) * 41 + cols.start() + j)];
          }
        }
        assertArrayEquals(want, got, selection);
      }
      long chunkBytes = 0;
      for (int p = 0; p < 8; p++) {
        long r0 = 10L + 5L * (p / 4);
        long c0 = 16L + 4L * (p % 4);
        boolean needed =
            rows.start() < r0 + 5
                && rows.start() + rows.count() > r0
                && cols.start() < c0 + 4
                && cols.start() + cols.count() > c0;
        if (needed && entries[p][0] != -1) {
          chunkBytes += entries[p][1];
        }
      }
      assertEquals(chunkBytes + INDEX_BYTES, stats.bytesFetched(), selection);
    }
  }

  /** The C-order bytes a read of the fixture's one array returns. */
  private byte[] readBytes(Zaro zaro, String selection, ReadStats stats) {
    try (Slab slab = zaro.read("", selection, allocator, ReadOptions.DEFAULT.withStats(stats))) {
      byte[] out = new byte[(int) slab.byteSize()];
      slab.data().getBytes(0, out);
      return out;
    }
  }

  private float[] read(Zaro zaro, String selection, ReadStats stats) {
    return floats(readBytes(zaro, selection, stats));
  }

  private static float[] floats(byte[] b) {
    float[] f = new float[b.length / 4];
    ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(f);
    return f;
  }

  private static int[] ints(byte[] b) {
    int[] out = new int[b.length / 4];
    ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(out);
    return out;
  }

  private void assertBrokenShard(Consumer<byte[]> damage, String... message) throws IOException {
    MemoryStore store = new MemoryStore().putAll(new FileStore(STORE));
    byte[] shard = store.getBytes("c/1/1").orElseThrow();
    damage.accept(shard);
    store.put("c/1/1", shard);
    // the whole array, one inner chunk, and the whole shard alone (its 8 inner chunks decoded by
    // both threads of the read)
    for (String selection : new String[] {"", "12:13, 20:21", "10:20, 16:32"}) {
      try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults().withThreads(2))) {
        CodecException e =
            assertThrows(CodecException.class, () -> zaro.read("", selection, allocator).close());
        assertTrue(
            e.getMessage().contains("chunk [1, 1]") && e.getMessage().contains("key 'c/1/1'"),
            e.getMessage());
        for (String m : message) {
          assertTrue(e.getMessage().contains(m), "'" + m + "' missing from: " + e.getMessage());
        }
      }
    }
  }

  private static void setEntry(byte[] shard, int position, long offset, long length) {
    ByteBuffer b = ByteBuffer.wrap(shard).order(ByteOrder.LITTLE_ENDIAN);
    int start = shard.length - INDEX_BYTES;
    b.putLong(start + 16 * position, offset).putLong(start + 16 * position + 8, length);
    CRC32C crc = new CRC32C();
    crc.update(shard, start, INDEX_BYTES - 4);
    b.putInt(shard.length - 4, (int) crc.getValue());
  }

  @Test
  void indexChecksumMismatch() throws IOException {
    assertBrokenShard(s -> s[s.length - 100] ^= 1, "shard index", "crc32c", "checksum mismatch");
  }

  @Test
  void indexPointingPastTheEnd() throws IOException {
    assertBrokenShard(s -> setEntry(s, 1, s.length - 10, 500), "sharding_indexed");
  }

  @Test
  void absurdOffsets() throws IOException {
    assertBrokenShard(s -> setEntry(s, 1, Long.MAX_VALUE - 3, 100), "points outside");
    assertBrokenShard(s -> setEntry(s, 1, -1, 100), "absent chunk needs both");
  }

  @Test
  void overlappingEntries() throws IOException {
    assertBrokenShard(
        s -> {
          long[][] idx = index(s);
          setEntry(s, 1, idx[0][0] + 1, idx[1][1]);
        },
        "overlap");
  }

  @Test
  void corruptInnerChunk() throws IOException {
    assertBrokenShard(
        s -> {
          long[] e = index(s)[1];
          Arrays.fill(s, (int) e[0], (int) (e[0] + e[1]), (byte) 0x55);
        },
        "inner chunk [0, 1]",
        "codec zstd");
  }

  @Test
  void truncatedShard() throws IOException {
    MemoryStore store = new MemoryStore().putAll(new FileStore(STORE));
    byte[] shard = store.getBytes("c/1/1").orElseThrow();
    store.put("c/1/1", Arrays.copyOf(shard, shard.length / 2));
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults())) {
      CodecException e =
          assertThrows(CodecException.class, () -> zaro.read("", "", allocator).close());
      assertTrue(e.getMessage().contains("key 'c/1/1'"), e.getMessage());
    }
    store.put("c/1/1", Arrays.copyOf(shard, 100));
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults())) {
      CodecException e =
          assertThrows(CodecException.class, () -> zaro.read("", "", allocator).close());
      assertTrue(e.getMessage().contains("shard index"), e.getMessage());
    }
  }
}
