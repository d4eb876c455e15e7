package dev.zaro.arrow.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.error.StoreException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link Store} passes. A subclass either creates a store holding given contents
 * ({@link #CONTENTS}: stores that can be filled, such as files, memory, HTTP, S3), or, for a
 * read-only store over a fixture (Icechunk, Parquet references), overrides {@link #fixture} with
 * what the fixture holds: the values whose bytes the fixture's writer gives, every key (for
 * listing) and the keys the range tests use. Every assertion runs in both cases.
 */
public abstract class AbstractStoreTest extends AllocatorTest {
  protected static final Map<String, byte[]> CONTENTS =
      new TreeMap<>(
          Map.of(
              "zarr.json",
                  "{\"zarr_format\":3,\"node_type\":\"group\"}".getBytes(StandardCharsets.UTF_8),
              "a/zarr.json", "{}".getBytes(StandardCharsets.UTF_8),
              "a/c/0/0", bytes(0, 100),
              "a/c/0/1", bytes(7, 10),
              "a/c/1/0", new byte[0],
              "b/x/y/z", bytes(3, 3)));

  protected Store store;

  protected AbstractStoreTest() {}

  /**
   * A store holding exactly {@code contents} ({@link #CONTENTS}); a fixture store (whose {@link
   * #fixture} is not {@link #GIVEN}) ignores it and opens its fixture.
   */
  protected abstract Store createStore(Map<String, byte[]> contents) throws Exception;

  /**
   * What a store under test holds, and the keys the tests use.
   *
   * @param contents key to value of the values whose bytes are known
   * @param keys every key the store holds, sorted (for listing)
   * @param bigKey a key of {@code contents} with at least 10 bytes, for the range tests
   * @param smallKey a key of {@code contents} with at least 2 bytes, read past its end
   * @param prefixes prefixes {@link Store#list} is asked for (one matching nothing)
   * @param skippedDirectory a directory for listings that skip below it
   */
  public record Fixture(
      Map<String, byte[]> contents,
      List<String> keys,
      String bigKey,
      String smallKey,
      List<String> prefixes,
      String skippedDirectory) {}

  /** {@link #CONTENTS}, which {@link #createStore} puts into stores that can be filled. */
  protected static final Fixture GIVEN =
      new Fixture(
          CONTENTS,
          List.copyOf(CONTENTS.keySet()),
          "a/c/0/0",
          "a/c/0/1",
          List.of("a/c/", "b/", "zz/"),
          "a");

  private Fixture fixture;

  /**
   * The capability this test relies on to fill the store: {@link #GIVEN} if {@link #createStore}
   * makes a store holding the contents given; for a read-only store over a fixture, what the
   * fixture holds, from the fixture's writer.
   */
  protected Fixture fixture() throws Exception {
    return GIVEN;
  }

  private Map<String, byte[]> contents() {
    return fixture.contents();
  }

  private List<String> keys() {
    return fixture.keys();
  }

  private String bigKey() {
    return fixture.bigKey();
  }

  private String smallKey() {
    return fixture.smallKey();
  }

  @BeforeEach
  void createStore() throws Exception {
    fixture = fixture();
    store = createStore(CONTENTS);
  }

  @Test
  void theFixtureDescriptionIsConsistent() {
    assertTrue(keys().containsAll(contents().keySet()), "contents() keys are all in keys()");
    assertEquals(keys().stream().sorted().toList(), keys(), "keys() sorted");
    assertTrue(contents().get(bigKey()).length >= 10, bigKey());
    assertTrue(contents().get(smallKey()).length >= 2, smallKey());
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  protected static byte[] bytes(int seed, int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (seed * 31 + i * 7);
    }
    return b;
  }

  protected static byte[] read(ArrowBuf buf) {
    byte[] out = new byte[(int) buf.writerIndex()];
    buf.getBytes(0, out);
    return out;
  }

  private byte[] get(String key, ByteRange range) {
    try (ArrowBuf buf = store.get(key, range, allocator).orElseThrow()) {
      return read(buf);
    }
  }

  @Test
  void readsWholeValues() {
    for (var e : contents().entrySet()) {
      assertArrayEquals(e.getValue(), get(e.getKey(), ByteRange.ALL), e.getKey());
      assertArrayEquals(e.getValue(), store.getBytes(e.getKey()).orElseThrow(), e.getKey());
    }
  }

  @Test
  void readsRangesFromStartAndSuffixes() {
    String key = bigKey();
    byte[] all = contents().get(key);
    int n = all.length; // 100 in CONTENTS
    byte[] expected = Arrays.copyOfRange(all, n / 10, n / 10 + n / 5);
    assertArrayEquals(expected, get(key, ByteRange.of(n / 10, n / 5)));
    int tail = n * 4 / 25;
    assertArrayEquals(Arrays.copyOfRange(all, n - tail, n), get(key, ByteRange.suffix(tail)));
    assertArrayEquals(new byte[0], get(key, ByteRange.of(n, 0)));
    assertArrayEquals(all, get(key, ByteRange.suffix(n)));
  }

  /**
   * Several ranges of one value (out of order, overlapping, adjacent, far apart), each its own
   * buffer.
   */
  @Test
  void readsSeveralRangesOfOneValue() {
    String key = bigKey();
    byte[] all = contents().get(key);
    int n = all.length; // 100 in CONTENTS
    List<ByteRange.FromStart> ranges =
        List.of(
            range(n * 3 / 5, n * 3 / 10),
            range(0, n / 10),
            range(n / 20, n / 10),
            range(n / 10, n / 20),
            range(n - 1, 1),
            range(n * 2 / 5, 0));
    List<ArrowBuf> got = store.getRanges(key, ranges, allocator).orElseThrow();
    try {
      assertEquals(ranges.size(), got.size());
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
    assertEquals(Optional.empty(), store.getRanges("nope", List.of(range(0, 1)), allocator));
    int small = contents().get(smallKey()).length; // 10 in CONTENTS
    assertThrows(
        StoreException.class,
        () -> store.getRanges(smallKey(), List.of(range(0, 2), range(small - 2, 5)), allocator));
  }

  private static ByteRange.FromStart range(long offset, long length) {
    return (ByteRange.FromStart) ByteRange.of(offset, length);
  }

  @Test
  void absentKeysAreEmpty() {
    assertEquals(Optional.empty(), store.get("nope", ByteRange.ALL, allocator));
    assertEquals(Optional.empty(), store.get("a/c/9/9", ByteRange.of(0, 1), allocator));
    assertEquals(Optional.empty(), store.getBytes("a/nope"));
  }

  @Test
  void rangesPastTheEndAreErrorsNamingTheKey() {
    String key = smallKey();
    int n = contents().get(key).length; // 10 in CONTENTS
    StoreException e =
        assertThrows(StoreException.class, () -> store.get(key, ByteRange.of(n / 2, n), allocator));
    assertTrue(e.getMessage().contains(key), e.getMessage());
    assertThrows(StoreException.class, () -> store.get(key, ByteRange.suffix(n + 1), allocator));
  }

  @Test
  void refusesKeysThatLeaveTheStore() {
    for (String key : List.of("../etc/passwd", "a/../../x", "/abs", "a/./b")) {
      StoreException e =
          assertThrows(StoreException.class, () -> store.get(key, ByteRange.ALL, allocator), key);
      assertTrue(e.getMessage().contains(key), e.getMessage());
      assertThrows(StoreException.class, () -> store.getBytes(key), key);
    }
  }

  @Test
  void listsKeysUnderAPrefixInOrder() {
    Assumptions.assumeTrue(store.capabilities().listable(), "this store cannot list");
    assertEquals(keys(), store.list("").toList());
    for (String prefix : fixture.prefixes()) {
      // in CONTENTS: a/c/0/0, a/c/0/1, a/c/1/0; b/x/y/z; nothing
      assertEquals(
          keys().stream().filter(k -> k.startsWith(prefix)).toList(),
          store.list(prefix).toList(),
          prefix);
    }
  }

  /**
   * A store that lists sizes lists the keys {@link Store#list} lists, each with its value's length
   * (the fixture's bytes where known); one that cannot is empty. The size of every value not in the
   * fixture's contents is checked against a read of it.
   */
  @Test
  void listedSizesAreTheValuesLengths() {
    for (String prefix : concat("", fixture.prefixes())) {
      var sizes = store.listSizes(prefix);
      if (sizes.isEmpty()) {
        continue;
      }
      assertEquals(
          keys().stream().filter(k -> k.startsWith(prefix)).toList(),
          List.copyOf(sizes.get().keySet()),
          prefix);
      sizes
          .get()
          .forEach(
              (k, n) -> {
                byte[] known = contents().get(k);
                long want = known != null ? known.length : store.getBytes(k).orElseThrow().length;
                assertEquals(want, n, k);
              });
    }
  }

  private static List<String> concat(String first, List<String> rest) {
    List<String> all = new ArrayList<>(List.of(first));
    all.addAll(rest);
    return all;
  }

  /** A listing told to skip below "a" may leave out a/c/..., but never a/zarr.json or b/... */
  @Test
  void aListingThatSkipsBelowADirectoryKeepsEverythingElse() {
    Assumptions.assumeTrue(store.capabilities().listable(), "this store cannot list");
    String skipped = fixture.skippedDirectory();
    // below "a" in CONTENTS: a/c/...
    Predicate<String> below =
        k -> k.startsWith(skipped + "/") && k.indexOf('/', skipped.length() + 1) >= 0;
    List<String> all = store.list("").toList();
    List<String> some = store.list("", dir -> dir.equals(skipped)).toList();
    assertTrue(all.containsAll(some), some.toString());
    assertEquals(
        all.stream().filter(below.negate()).toList(),
        some.stream().filter(below.negate()).toList());
  }

  @Test
  void asyncGetsMatchSyncGets() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      var futures =
          contents().keySet().stream()
              .map(k -> store.getAsync(k, ByteRange.ALL, allocator, pool))
              .toList();
      int i = 0;
      for (String key : contents().keySet()) {
        try (ArrowBuf buf = futures.get(i++).get().orElseThrow()) {
          assertArrayEquals(contents().get(key), read(buf), key);
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void concurrentReadsAreIndependent() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      var futures = new ArrayList<Future<byte[]>>();
      String key = bigKey();
      byte[] all = contents().get(key);
      int half = all.length / 2; // 50 in CONTENTS
      for (int i = 0; i < 64; i++) {
        int off = i % half;
        futures.add(pool.submit(() -> get(key, ByteRange.of(off, half))));
      }
      for (int i = 0; i < 64; i++) {
        int off = i % half;
        assertArrayEquals(Arrays.copyOfRange(all, off, off + half), futures.get(i).get());
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
