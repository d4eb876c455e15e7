package dev.zaro.arrow.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.error.StoreException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The contract every {@link Store} passes. Subclasses create a store holding given contents. */
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

  /** A store holding exactly {@code contents}. */
  protected abstract Store createStore(Map<String, byte[]> contents) throws Exception;

  @BeforeEach
  void createStore() throws Exception {
    store = createStore(CONTENTS);
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

  private static byte[] read(ArrowBuf buf) {
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
    for (var e : CONTENTS.entrySet()) {
      assertArrayEquals(e.getValue(), get(e.getKey(), ByteRange.ALL), e.getKey());
      assertArrayEquals(e.getValue(), store.getBytes(e.getKey()).orElseThrow(), e.getKey());
    }
  }

  @Test
  void readsRangesFromStartAndSuffixes() {
    byte[] all = CONTENTS.get("a/c/0/0");
    byte[] expected = java.util.Arrays.copyOfRange(all, 10, 30);
    assertArrayEquals(expected, get("a/c/0/0", ByteRange.of(10, 20)));
    assertArrayEquals(
        java.util.Arrays.copyOfRange(all, 84, 100), get("a/c/0/0", ByteRange.suffix(16)));
    assertArrayEquals(new byte[0], get("a/c/0/0", ByteRange.of(100, 0)));
    assertArrayEquals(all, get("a/c/0/0", ByteRange.suffix(100)));
  }

  /**
   * Several ranges of one value (out of order, overlapping, adjacent, far apart), each its own
   * buffer.
   */
  @Test
  void readsSeveralRangesOfOneValue() {
    byte[] all = CONTENTS.get("a/c/0/0");
    java.util.List<ByteRange.FromStart> ranges =
        java.util.List.of(
            range(60, 30), range(0, 10), range(5, 10), range(10, 5), range(99, 1), range(40, 0));
    java.util.List<ArrowBuf> got = store.getRanges("a/c/0/0", ranges, allocator).orElseThrow();
    try {
      assertEquals(ranges.size(), got.size());
      for (int i = 0; i < ranges.size(); i++) {
        ByteRange.FromStart r = ranges.get(i);
        assertArrayEquals(
            java.util.Arrays.copyOfRange(all, (int) r.offset(), (int) (r.offset() + r.length())),
            read(got.get(i)),
            r.toString());
      }
    } finally {
      got.forEach(ArrowBuf::close);
    }
    assertEquals(
        Optional.empty(), store.getRanges("nope", java.util.List.of(range(0, 1)), allocator));
    assertThrows(
        StoreException.class,
        () -> store.getRanges("a/c/0/1", java.util.List.of(range(0, 2), range(8, 5)), allocator));
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
    StoreException e =
        assertThrows(
            StoreException.class, () -> store.get("a/c/0/1", ByteRange.of(5, 10), allocator));
    assertTrue(e.getMessage().contains("a/c/0/1"), e.getMessage());
    assertThrows(StoreException.class, () -> store.get("a/c/0/1", ByteRange.suffix(11), allocator));
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
    org.junit.jupiter.api.Assumptions.assumeTrue(
        store.capabilities().listable(), "this store cannot list");
    assertEquals(List.copyOf(CONTENTS.keySet()), store.list("").toList());
    assertEquals(List.of("a/c/0/0", "a/c/0/1", "a/c/1/0"), store.list("a/c/").toList());
    assertEquals(List.of("b/x/y/z"), store.list("b/").toList());
    assertEquals(List.of(), store.list("zz/").toList());
  }

  /** A listing told to skip below "a" may leave out a/c/..., but never a/zarr.json or b/... */
  @Test
  void aListingThatSkipsBelowADirectoryKeepsEverythingElse() {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        store.capabilities().listable(), "this store cannot list");
    List<String> all = store.list("").toList();
    List<String> some = store.list("", dir -> dir.equals("a")).toList();
    assertTrue(all.containsAll(some), some.toString());
    assertEquals(
        all.stream().filter(k -> !k.startsWith("a/c/")).toList(),
        some.stream().filter(k -> !k.startsWith("a/c/")).toList());
  }

  @Test
  void asyncGetsMatchSyncGets() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      var futures =
          CONTENTS.keySet().stream()
              .map(k -> store.getAsync(k, ByteRange.ALL, allocator, pool))
              .toList();
      int i = 0;
      for (String key : CONTENTS.keySet()) {
        try (ArrowBuf buf = futures.get(i++).get().orElseThrow()) {
          assertArrayEquals(CONTENTS.get(key), read(buf), key);
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
      var futures = new java.util.ArrayList<java.util.concurrent.Future<byte[]>>();
      for (int i = 0; i < 64; i++) {
        int off = i % 50;
        futures.add(pool.submit(() -> get("a/c/0/0", ByteRange.of(off, 50))));
      }
      for (int i = 0; i < 64; i++) {
        int off = i % 50;
        assertArrayEquals(
            java.util.Arrays.copyOfRange(CONTENTS.get("a/c/0/0"), off, off + 50),
            futures.get(i).get());
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
