package dev.zaro.arrow.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.zaro.arrow.AllocatorTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.Test;

/** madvise(MADV_HUGEPAGE) is taken for large buffers on Linux and the memory stays usable. */
class HugePagesTest extends AllocatorTest {

  @Test
  void availableOnLinuxWithTransparentHugePages() throws Exception {
    Path thp = Path.of("/sys/kernel/mm/transparent_hugepage/enabled");
    assumeTrue(
        System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux")
            && Files.exists(thp));
    assertTrue(HugePages.available(), "JNA could not find madvise");
  }

  @Test
  void largeBuffersAreAdvisedSmallOnesAreNot() {
    assumeTrue(HugePages.available());
    long size = 8L << 20;
    try (ArrowBuf buf = allocator.buffer(size)) {
      assertTrue(HugePages.advise(buf.memoryAddress(), size));
      for (long i = 0; i < size; i += 4096) {
        buf.setLong(i, i);
      }
      for (long i = 0; i < size; i += 4096) {
        assertEquals(i, buf.getLong(i));
      }
    }
    try (ArrowBuf small = allocator.buffer(HugePages.MIN_BYTES - 1)) {
      assertFalse(HugePages.advise(small.memoryAddress(), HugePages.MIN_BYTES - 1));
    }
  }
}
