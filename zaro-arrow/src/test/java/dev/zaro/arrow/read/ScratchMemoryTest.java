package dev.zaro.arrow.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every buffer a read uses, decode scratch included, comes from a child of the caller's allocator:
 * the scratch shows up there by name, and the caller's limit covers it.
 */
class ScratchMemoryTest {
  private static final String GZIP =
      Fixtures.testdata().resolve("core/stores/gzip.zarr").toString();
  private static final String SHARDED =
      Fixtures.testdata().resolve("sharding/stores/end_zstd.zarr").toString();

  @ParameterizedTest
  @ValueSource(ints = {1, 4})
  void scratchIsAChildOfTheCallersAllocator(int threads) {
    List<String> children = new ArrayList<>();
    List<Long> childPeaks = new ArrayList<>();
    AllocationListener listener =
        new AllocationListener() {
          @Override
          public void onChildAdded(BufferAllocator parent, BufferAllocator child) {
            synchronized (children) {
              children.add(child.getName());
            }
          }

          @Override
          public void onChildRemoved(BufferAllocator parent, BufferAllocator child) {
            synchronized (childPeaks) {
              childPeaks.add(child.getPeakMemoryAllocation());
            }
          }
        };
    for (String store : List.of(GZIP, SHARDED)) {
      children.clear();
      childPeaks.clear();
      try (BufferAllocator allocator = new RootAllocator(listener, Long.MAX_VALUE);
          Zaro zaro = Zaro.open(store, ZaroOptions.defaults().withThreads(threads))) {
        // a strided selection: chunks decode through scratch, not straight into place
        zaro.read("", "1:29:3, ::2", allocator).close();
        assertEquals(0, allocator.getAllocatedMemory());
      }
      assertTrue(
          children.stream().anyMatch(n -> n.startsWith("zaro scratch")), store + ": " + children);
      assertTrue(childPeaks.stream().anyMatch(p -> p > 0), store + ": scratch peaks " + childPeaks);
    }
  }

  /**
   * The caller's limit is the whole story: a read that peaks at N bytes (output, fetched chunks and
   * scratch, one thread so the peak is exact) succeeds under a limit of N and fails under N - 1.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "core/stores/gzip.zarr",
        "sharding/stores/end_zstd.zarr",
        "core/stores/transpose_3d.zarr"
      })
  void theCallersLimitCoversEverything(String fixture) {
    String store = Fixtures.testdata().resolve(fixture).toString();
    ZaroOptions one = ZaroOptions.defaults().withThreads(1);
    long needed;
    try (BufferAllocator allocator = new RootAllocator();
        Zaro zaro = Zaro.open(store, one)) {
      zaro.read("", "", allocator).close();
      zaro.read("", "", allocator).close();
      needed = allocator.getPeakMemoryAllocation();
    }
    try (BufferAllocator allocator = new RootAllocator(needed);
        Zaro zaro = Zaro.open(store, one)) {
      zaro.read("", "", allocator).close();
    }
    try (BufferAllocator allocator = new RootAllocator(needed - 1);
        Zaro zaro = Zaro.open(store, one)) {
      assertThrows(OutOfMemoryException.class, () -> zaro.read("", "", allocator).close());
      assertEquals(0, allocator.getAllocatedMemory());
    }
  }
}
