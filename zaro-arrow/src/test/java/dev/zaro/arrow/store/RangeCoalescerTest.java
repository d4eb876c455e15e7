package dev.zaro.arrow.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.error.StoreException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/** The coalescer's plan against its contract, over random ranges. */
class RangeCoalescerTest {
  @Test
  void everyRangeOnceInsideItsGroupGapsAndSizesBounded() {
    Random random = new Random(3);
    for (int trial = 0; trial < 2000; trial++) {
      List<ByteRange.FromStart> ranges = new ArrayList<>();
      int n = random.nextInt(12);
      for (int i = 0; i < n; i++) {
        ranges.add((ByteRange.FromStart) ByteRange.of(random.nextInt(1000), random.nextInt(120)));
      }
      long gap = random.nextInt(100);
      long max = 1L + random.nextInt(400);
      List<RangeCoalescer.Group> groups = RangeCoalescer.plan(ranges, gap, max);
      int[] seen = new int[n];
      long lastStart = -1;
      for (RangeCoalescer.Group g : groups) {
        assertTrue(g.offset() >= lastStart, "groups in offset order");
        lastStart = g.offset();
        assertTrue(g.length() <= max || g.members().size() == 1, g + " over " + max);
        long end = Long.MIN_VALUE;
        for (int m : g.members()) {
          seen[m]++;
          ByteRange.FromStart r = ranges.get(m);
          assertTrue(
              r.offset() >= g.offset() && r.offset() + r.length() <= g.offset() + g.length(),
              r + " in " + g);
          if (end != Long.MIN_VALUE) {
            assertTrue(r.offset() - end <= gap, "gap before " + r + " in " + g);
          }
          end = Math.max(end, r.offset() + r.length());
        }
        assertEquals(g.offset() + g.length(), end, "a group ends where its last range does");
      }
      for (int i = 0; i < n; i++) {
        assertEquals(1, seen[i], "range " + i + " of " + ranges);
      }
    }
  }

  @Test
  void nearbyRangesMergeAndFarOnesDoNot() {
    List<ByteRange.FromStart> ranges =
        List.of(
            (ByteRange.FromStart) ByteRange.of(0, 10),
            (ByteRange.FromStart) ByteRange.of(20, 10),
            (ByteRange.FromStart) ByteRange.of(1000, 5));
    List<RangeCoalescer.Group> groups = RangeCoalescer.plan(ranges, 10, 1 << 20);
    assertEquals(2, groups.size());
    assertEquals(new RangeCoalescer.Group(0, 30, List.of(0, 1)), groups.get(0));
    assertEquals(new RangeCoalescer.Group(1000, 5, List.of(2)), groups.get(1));
  }

  /**
   * fetchAsync: every range's bytes, or none (an absent key reads empty, a failed request fails the
   * future), and nothing held afterwards; the requests are the plan's merged groups.
   */
  @Test
  void fetchAsyncReturnsEveryRangeOrFreesEverything() {
    byte[] value = new byte[300_000];
    new Random(5).nextBytes(value);
    List<ByteRange.FromStart> ranges =
        List.of(
            (ByteRange.FromStart) ByteRange.of(250_000, 100),
            (ByteRange.FromStart) ByteRange.of(0, 10),
            (ByteRange.FromStart) ByteRange.of(20, 1000));
    try (BufferAllocator allocator = new RootAllocator();
        MemoryStore memory = new MemoryStore().put("k", value)) {
      List<String> asked = new CopyOnWriteArrayList<>();
      String[] failing = {null};
      Store store =
          new Store() {
            @Override
            public Optional<ArrowBuf> get(String key, ByteRange range, BufferAllocator a) {
              asked.add(range.toString());
              if (range.equals(ByteRange.of(250_000, 100)) && "fail".equals(failing[0])) {
                throw new StoreException("injected failure");
              }
              return memory.get(key, range, a);
            }

            @Override
            public Optional<byte[]> getBytes(String key) {
              return memory.getBytes(key);
            }

            @Override
            public Stream<String> list(String prefix) {
              return memory.list(prefix);
            }

            @Override
            public String describe() {
              return "test store";
            }
          };
      Optional<List<ArrowBuf>> got =
          RangeCoalescer.fetchAsync(store, "k", ranges, allocator, Runnable::run).join();
      assertEquals(2, asked.size(), "two merged requests: " + asked);
      for (int i = 0; i < ranges.size(); i++) {
        try (ArrowBuf b = got.orElseThrow().get(i)) {
          ByteRange.FromStart r = ranges.get(i);
          byte[] bytes = new byte[(int) r.length()];
          b.getBytes(0, bytes);
          assertArrayEquals(
              Arrays.copyOfRange(value, (int) r.offset(), (int) (r.offset() + r.length())),
              bytes,
              r.toString());
        }
      }
      assertEquals(0, allocator.getAllocatedMemory());
      assertTrue(
          RangeCoalescer.fetchAsync(store, "absent", ranges, allocator, Runnable::run)
              .join()
              .isEmpty());
      failing[0] = "fail";
      CompletionException e =
          assertThrows(
              CompletionException.class,
              () -> RangeCoalescer.fetchAsync(store, "k", ranges, allocator, Runnable::run).join());
      assertTrue(e.getCause().getMessage().contains("injected"), e.getCause().getMessage());
      assertEquals(0, allocator.getAllocatedMemory(), "the other request's body was freed");
    }
  }
}
