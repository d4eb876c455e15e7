package dev.zaro.arrow.codec;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * One worker's reusable decode buffer: chunks decoded one after another on the same thread
 * reuse its memory instead of allocating (and page-faulting) a fresh buffer per chunk. Not
 * thread-safe; owned by one worker and closed when its read ends.
 */
public final class Scratch implements AutoCloseable {
  private final BufferAllocator allocator;
  private ArrowBuf buffer;
  private ArrowBuf window;
  private final java.util.Map<Class<?>, AutoCloseable> states = new java.util.HashMap<>(2);

  public Scratch(BufferAllocator allocator) {
    this.allocator = allocator;
  }

  /**
   * A buffer of at least {@code size} bytes, valid until the next call or {@link #close()}. The
   * scratch keeps ownership: callers must not close it.
   */
  public ArrowBuf buffer(long size) {
    if (buffer == null || buffer.capacity() < size) {
      if (buffer != null) {
        buffer.close();
        buffer = null;
      }
      buffer = allocator.buffer(Math.max(size, 1));
      dev.zaro.arrow.memory.HugePages.advise(buffer.memoryAddress(), buffer.capacity());
    }
    return buffer;
  }

  /** A second, small buffer for streaming decoders (kept apart from {@link #buffer}). */
  public ArrowBuf window(long size) {
    if (window == null || window.capacity() < size) {
      if (window != null) {
        window.close();
        window = null;
      }
      window = allocator.buffer(Math.max(size, 1));
    }
    return window;
  }

  /**
   * Decoder state of {@code type} that codecs reuse from chunk to chunk on this worker (e.g. a
   * zstd context), made by {@code create} on first use and closed with the scratch.
   */
  public <T extends AutoCloseable> T state(Class<T> type, java.util.function.Supplier<T> create) {
    return type.cast(states.computeIfAbsent(type, t -> create.get()));
  }

  @Override
  public void close() {
    for (AutoCloseable state : states.values()) {
      try {
        state.close();
      } catch (Exception e) {
        throw new IllegalStateException("closing decoder state " + state + ": " + e, e);
      }
    }
    states.clear();
    if (buffer != null) {
      buffer.close();
      buffer = null;
    }
    if (window != null) {
      window.close();
      window = null;
    }
  }
}
