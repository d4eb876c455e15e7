package dev.zaro.arrow.codec;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * One worker's decode context: a reusable decode buffer (chunks decoded one after another on
 * the same thread reuse its memory instead of allocating and page-faulting a fresh buffer per
 * chunk), decoder state codecs keep between chunks, and the idle threads of the read the worker
 * may borrow for the chunk at hand. Not thread-safe; owned by one worker and closed when its
 * read ends.
 */
public final class Scratch implements AutoCloseable {
  private final BufferAllocator allocator;
  private ArrowBuf buffer;
  private ArrowBuf window;
  private final java.util.Map<Class<?>, AutoCloseable> states = new java.util.HashMap<>(2);
  private java.util.concurrent.Executor helperExecutor;
  private int helpers;

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
   * Lends the worker {@code helpers} idle threads of {@code executor} for the chunk it decodes
   * next (a codec whose chunk splits into independent parts may run them there); {@code (null,
   * 0)} takes them back.
   */
  public void lend(java.util.concurrent.Executor executor, int helpers) {
    this.helperExecutor = executor;
    this.helpers = executor == null ? 0 : Math.max(0, helpers);
  }

  /** Idle threads lent for the current chunk (0: decode on the worker alone). */
  public int helpers() {
    return helpers;
  }

  /** Where the lent threads run tasks (null when none are lent). */
  public java.util.concurrent.Executor helperExecutor() {
    return helperExecutor;
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
