package dev.zaro.arrow.fuzz;

import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecChain;
import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.metadata.ArrayMetadata;
import java.util.function.Consumer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * What every fuzz test asserts about one input: it either succeeds or fails with one of zaro's
 * typed errors ({@link ZaroException}); any other exception, an allocation beyond {@link
 * #MEMORY_LIMIT} (Arrow's {@code OutOfMemoryException}: a size taken on trust from a lying header),
 * or a buffer left open when the input's allocator closes is a finding.
 */
public final class FuzzChecks {
  private FuzzChecks() {}

  /**
   * Arrow memory one input may use. Inputs are at most a few KB and every harness asks for at most
   * {@link #MAX_DECODED} bytes; even zstd's largest expansion of such an input stays below.
   */
  public static final long MEMORY_LIMIT = 256L << 20;

  /** The largest decoded size a codec harness asks for. */
  public static final int MAX_DECODED = 1 << 20;

  /**
   * Runs {@code body} with a fresh allocator capped at {@link #MEMORY_LIMIT}; a typed error is the
   * expected outcome of bad input, anything else propagates (and fails the input), and the
   * allocator's close fails if a buffer leaked.
   */
  public static void run(Consumer<BufferAllocator> body) {
    try (RootAllocator allocator = new RootAllocator(MEMORY_LIMIT)) {
      try {
        body.accept(allocator);
      } catch (ZaroException expected) {
        // bad input, refused with a typed error
      }
    }
  }

  /** Runs {@code body}, for harnesses that need no memory. */
  public static void run(Runnable body) {
    run(allocator -> body.run());
  }

  /**
   * The codec chain a reader builds for {@code metadata} (which may refuse it with a typed error).
   */
  public static CodecChain resolve(ArrayMetadata metadata) {
    return CodecChain.resolve(
        metadata.codecs(),
        new ChunkSpec(metadata.chunkShape(), metadata.dataType(), metadata.fillValue()),
        CodecRegistry.defaults());
  }

  /** {@code bytes[from, to)} in a new buffer of exactly that size (writer index at its end). */
  public static ArrowBuf buffer(BufferAllocator allocator, byte[] bytes, int from, int to) {
    ArrowBuf buf = allocator.buffer(to - from);
    buf.setBytes(0, bytes, from, to - from);
    buf.writerIndex(to - from);
    return buf;
  }

  /** The big-endian unsigned integer in {@code bytes[from, from + n)}. */
  public static int unsigned(byte[] bytes, int from, int n) {
    int v = 0;
    for (int i = 0; i < n; i++) {
      v = (v << 8) | (bytes[from + i] & 0xff);
    }
    return v;
  }
}
