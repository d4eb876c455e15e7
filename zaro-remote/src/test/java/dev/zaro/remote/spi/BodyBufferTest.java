package dev.zaro.remote.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.error.StoreException;
import java.nio.ByteBuffer;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The store layer's one body appender: sizing, growth, the length check against the announced
 * length, and freeing on every failure. Each test has its own RootAllocator ({@link
 * AllocatorTest}), closed after it, and must leave it at 0 bytes.
 */
class BodyBufferTest extends AllocatorTest {
  private static final String SOURCE = "key 'a/b' (http://host/data/a/b)";

  @AfterEach
  void nothingLeftBehind() {
    assertEquals(0, allocator.getAllocatedMemory());
  }

  private static byte[] random(int n) {
    byte[] b = new byte[n];
    new Random(n).nextBytes(b);
    return b;
  }

  private static byte[] bytes(ArrowBuf buf) {
    byte[] out = new byte[(int) buf.writerIndex()];
    buf.getBytes(0, out);
    return out;
  }

  /**
   * Appends {@code value} in chunks of {@code chunk} bytes, alternating heap and direct buffers.
   */
  private static void appendInChunks(BodyBuffer body, byte[] value, int chunk) {
    for (int at = 0, i = 0; at < value.length; at += chunk, i++) {
      int n = Math.min(chunk, value.length - at);
      ByteBuffer b = i % 2 == 0 ? ByteBuffer.allocate(n) : ByteBuffer.allocateDirect(n);
      b.put(value, at, n).flip();
      body.append(b);
      assertEquals(0, b.remaining(), "the chunk is consumed");
    }
  }

  @Test
  void anAnnouncedLengthIsOneBufferOfThatSize() {
    byte[] value = random(1000);
    try (BodyBuffer body = new BodyBuffer(allocator, value.length, SOURCE)) {
      long first = allocator.getAllocatedMemory();
      assertTrue(first >= value.length && first < BodyBuffer.FIRST_GUESS, "allocated " + first);
      appendInChunks(body, value, 333);
      assertEquals(first, allocator.getAllocatedMemory(), "no growth when the length is known");
      assertEquals(value.length, body.written());
      try (ArrowBuf buf = body.take()) {
        assertEquals(value.length, buf.writerIndex());
        assertArrayEquals(value, bytes(buf));
        assertEquals(buf.capacity(), allocator.getAllocatedMemory());
      }
    }
  }

  @Test
  void onlyTheChunksRemainingBytesAreAppended() {
    byte[] value = random(64);
    try (BodyBuffer body = new BodyBuffer(allocator, 40, SOURCE)) {
      body.append(ByteBuffer.wrap(value, 4, 20)); // position 4, limit 24
      ByteBuffer direct = ByteBuffer.allocateDirect(64).put(value).position(30).limit(50);
      body.append(direct);
      try (ArrowBuf buf = body.take()) {
        byte[] expected = new byte[40];
        System.arraycopy(value, 4, expected, 0, 20);
        System.arraycopy(value, 30, expected, 20, 20);
        assertArrayEquals(expected, bytes(buf));
      }
    }
  }

  @Test
  void withoutAnAnnouncedLengthItStartsAtTheFirstGuessAndGrowsByDoubling() {
    byte[] value = random(5 * (int) BodyBuffer.FIRST_GUESS + 17);
    try (BodyBuffer body = new BodyBuffer(allocator, -1, SOURCE)) {
      assertEquals(BodyBuffer.FIRST_GUESS, allocator.getAllocatedMemory());
      appendInChunks(body, value, 7001);
      // 64 KiB -> 128 -> 256 -> 512 KiB: each growth frees the buffer it replaces
      assertEquals(8 * BodyBuffer.FIRST_GUESS, allocator.getAllocatedMemory());
      try (ArrowBuf buf = body.take()) {
        assertEquals(value.length, buf.writerIndex());
        assertArrayEquals(value, bytes(buf));
      }
    }
  }

  @Test
  void oneChunkLargerThanDoubleGrowsToFitIt() {
    byte[] value = random(3 * (int) BodyBuffer.FIRST_GUESS);
    try (BodyBuffer body = new BodyBuffer(allocator, -1, SOURCE)) {
      body.append(ByteBuffer.wrap(value));
      try (ArrowBuf buf = body.take()) {
        assertArrayEquals(value, bytes(buf));
        assertEquals(buf.capacity(), allocator.getAllocatedMemory(), "one buffer left");
      }
    }
  }

  @Test
  void emptyBodies() {
    try (BodyBuffer announced = new BodyBuffer(allocator, 0, SOURCE);
        ArrowBuf buf = announced.take()) {
      assertEquals(0, buf.writerIndex());
    }
    try (BodyBuffer unannounced = new BodyBuffer(allocator, -1, SOURCE);
        ArrowBuf buf = unannounced.take()) {
      assertEquals(0, buf.writerIndex());
    }
  }

  @Test
  void aBodyLongerThanAnnouncedIsAnErrorAndFreesTheBuffer() {
    BodyBuffer body = new BodyBuffer(allocator, 20, SOURCE);
    body.append(ByteBuffer.wrap(random(15)));
    StoreException e =
        assertThrows(StoreException.class, () -> body.append(ByteBuffer.wrap(random(6))));
    assertEquals(
        SOURCE
            + ": the body is longer than the 20 bytes its headers announce (at least 21 bytes"
            + " arrived)",
        e.getMessage());
    assertEquals(0, allocator.getAllocatedMemory());
    assertThrows(IllegalStateException.class, () -> body.append(ByteBuffer.wrap(random(1))));
    assertThrows(IllegalStateException.class, body::take);
    body.close(); // idempotent
  }

  @Test
  void aBodyShorterThanAnnouncedIsAnErrorAndFreesTheBuffer() {
    BodyBuffer body = new BodyBuffer(allocator, 20, SOURCE);
    body.append(ByteBuffer.wrap(random(19)));
    StoreException e = assertThrows(StoreException.class, body::take);
    assertEquals(SOURCE + ": the body was truncated: 19 of 20 bytes", e.getMessage());
    assertEquals(0, allocator.getAllocatedMemory());
    body.close();
  }

  @Test
  void closingBeforeTakeFreesThePartialBody() {
    BodyBuffer body = new BodyBuffer(allocator, -1, SOURCE);
    body.append(ByteBuffer.wrap(random(100_000))); // grown once
    assertTrue(allocator.getAllocatedMemory() > 0);
    body.close(); // a cancelled or failed request
    assertEquals(0, allocator.getAllocatedMemory());
    body.close();
    assertThrows(IllegalStateException.class, body::take);
  }

  @Test
  void closingAfterTakeLeavesTheCallersBufferAlone() {
    BodyBuffer body = new BodyBuffer(allocator, 3, SOURCE);
    body.append(ByteBuffer.wrap(new byte[] {1, 2, 3}));
    ArrowBuf buf = body.take();
    body.close();
    assertEquals(3, buf.getByte(2));
    assertEquals(buf.capacity(), allocator.getAllocatedMemory());
    buf.close();
  }

  @Test
  void aGrowthTheAllocatorRefusesFreesTheBuffer() {
    try (BufferAllocator limited = allocator.newChildAllocator("limited", 0, 100_000)) {
      BodyBuffer body = new BodyBuffer(limited, -1, SOURCE);
      byte[] value = random(70_000);
      body.append(ByteBuffer.wrap(value, 0, 60_000));
      // 64 KiB would have to double to 128 KiB, past the limit
      assertThrows(
          OutOfMemoryException.class, () -> body.append(ByteBuffer.wrap(value, 60_000, 10_000)));
      assertEquals(0, limited.getAllocatedMemory());
      body.close();
    }
  }

  @Test
  void anAnnouncedLengthTheAllocatorRefusesHoldsNothing() {
    try (BufferAllocator limited = allocator.newChildAllocator("limited", 0, 1000)) {
      assertThrows(OutOfMemoryException.class, () -> new BodyBuffer(limited, 5000, SOURCE));
      assertEquals(0, limited.getAllocatedMemory());
    }
  }
}
