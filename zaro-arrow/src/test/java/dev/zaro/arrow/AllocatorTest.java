package dev.zaro.arrow;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Base for tests that use Arrow memory: a fresh RootAllocator per test, closed after it, so a
 * leaked buffer fails the test.
 */
public abstract class AllocatorTest {
  protected BufferAllocator allocator;

  protected AllocatorTest() {}

  @BeforeEach
  void openAllocator() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void closeAllocator() {
    allocator.close();
  }
}
