package dev.zaro.arrow.read;

import static dev.zaro.arrow.Threads.join;
import static dev.zaro.arrow.Threads.started;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.zaro.arrow.codec.Scratch;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Model checking of the landed chunks of a read's streamed shards ({@link LandedChunks}): Lincheck
 * explores the interleavings of two shards' threads and the I/O landing their bytes (up to {@link
 * #INVOCATIONS}, in the same order every run) and fails with the interleaving that hangs or breaks
 * an assertion. Each invocation has its own allocator, closed at its end: a body freed twice or
 * never fails it. See docs/ARCHITECTURE.md, "Concurrency, tested".
 */
class LandedChunksLincheckTest {
  private static final int INVOCATIONS = 300;

  /** One streamed shard of {@code chunks} one-byte chunks, and what its decodes did. */
  private static final class Streamed {
    final ShardStream stream;
    final ArrowBuf body;
    final AtomicIntegerArray decodes;
    final AtomicInteger running = new AtomicInteger();
    final AtomicBoolean freed = new AtomicBoolean();
    final LandedChunks.Shard shard;

    Streamed(String key, int chunks, LandedChunks landed, BufferAllocator allocator) {
      stream = new ShardStream(key);
      body = allocator.buffer(chunks);
      body.writerIndex(chunks);
      decodes = new AtomicIntegerArray(chunks);
      long[] offsets = new long[chunks];
      long[] lengths = new long[chunks];
      for (int k = 0; k < chunks; k++) {
        offsets[k] = k;
        lengths[k] = 1;
      }
      stream.want(offsets, lengths, chunks);
      shard = landed.add(stream, chunks, this::decode);
    }

    void decode(int k, Scratch scratch) {
      running.incrementAndGet();
      assertFalse(freed.get(), "a chunk decoded after its shard's body was freed");
      decodes.incrementAndGet(k);
      running.decrementAndGet();
    }

    /** The I/O: chunk {@code k}'s byte lands. */
    void land(int k, LandedChunks landed) {
      if (stream.arrived(body, k, 1)) {
        landed.landed();
      }
    }

    void settle(LandedChunks landed) {
      stream.settle(Optional.of(body), null);
      landed.landed();
    }

    /** Its own thread's part: decode all of it (and others' landed chunks), then free the body. */
    void decodeAllThenFree() {
      try {
        shard.decodeAll(null);
      } finally {
        assertEquals(0, running.get(), "a decode of this shard still running when it returned");
        freed.set(true);
        stream.close();
      }
    }
  }

  /**
   * Arrow's allocator classes initialized before Lincheck runs a scenario (their static set-up
   * under its scheduler hangs the first invocation).
   */
  @BeforeAll
  static void initializeArrow() {
    try (BufferAllocator allocator = new RootAllocator();
        ArrowBuf b = allocator.buffer(1)) {
      b.setByte(0, 0);
    }
  }

  /**
   * Invariants: every landed chunk is claimed and decoded exactly once, by its shard's thread or
   * the other's; a shard's thread returns only once all of its chunks are decoded and its request
   * has settled, with no decode of it still running, so its body is never freed under a decode (no
   * lost wake-up either: a thread waiting for a chunk wakes when one lands or its stream settles).
   */
  @Test
  void eachLandedChunkIsDecodedOnceAndNoBodyIsFreedUnderADecode() {
    Lincheck.runConcurrentTest(
        INVOCATIONS,
        () -> {
          try (BufferAllocator allocator = new RootAllocator()) {
            LandedChunks landed = new LandedChunks();
            Streamed a = new Streamed("a", 2, landed, allocator);
            Streamed b = new Streamed("b", 1, landed, allocator);
            Thread ta = started(a::decodeAllThenFree);
            Thread tb = started(b::decodeAllThenFree);
            a.land(0, landed);
            b.land(0, landed);
            a.land(1, landed);
            a.settle(landed);
            b.settle(landed);
            join(ta, tb);
            for (Streamed s : new Streamed[] {a, b}) {
              for (int k = 0; k < s.decodes.length(); k++) {
                assertEquals(1, s.decodes.get(k), "decodes of a landed chunk");
              }
              s.body.close();
            }
          }
        });
  }
}
