package dev.zaro.arrow.codec;

import dev.zaro.arrow.memory.HugePages;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * One worker's decode context: a reusable decode buffer (chunks decoded one after another on the
 * same thread reuse its memory instead of allocating and page-faulting a fresh buffer per chunk),
 * decoder state codecs keep between chunks, and the read's concurrency budget whose idle threads
 * may help with the chunk at hand. Buffers come from the allocator the scratch is bound to: a child
 * of the read's allocator, so the caller's limit covers them (docs/ARCHITECTURE.md, "Memory"). Not
 * thread-safe; owned by one worker at a time.
 */
public final class Scratch implements AutoCloseable {
  private BufferAllocator allocator;
  private ArrowBuf buffer;
  private ArrowBuf window;
  private final Map<Class<?>, AutoCloseable> states = new HashMap<>(2);
  private IntSupplier idleHelpers;
  private Executor helperExecutor;

  /** A scratch whose buffers come from {@code allocator}, with no helpers. */
  public Scratch(BufferAllocator allocator) {
    this.allocator = allocator;
  }

  /**
   * Binds this scratch to a read: buffers from {@code allocator}; {@code idleHelpers} says how many
   * of the read's threads are idle now and may help on {@code helperExecutor} (both null: no
   * helpers). Buffers held from an earlier binding must have been released.
   */
  public Scratch bind(BufferAllocator allocator, IntSupplier idleHelpers, Executor helperExecutor) {
    if (buffer != null || window != null) {
      throw new IllegalStateException("scratch rebound while holding buffers");
    }
    this.allocator = allocator;
    this.idleHelpers = helperExecutor == null ? null : idleHelpers;
    this.helperExecutor = helperExecutor;
    return this;
  }

  /** The allocator this scratch's buffers come from. */
  public BufferAllocator allocator() {
    return allocator;
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
      HugePages.advise(buffer.memoryAddress(), buffer.capacity());
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
   * Idle threads of the read's budget that may help with the current chunk now (0: decode on the
   * worker alone); a codec whose chunk splits into independent parts runs them there with {@link
   * dev.zaro.arrow.exec.WorkRunner}.
   */
  public int helpers() {
    return idleHelpers == null ? 0 : idleHelpers.getAsInt();
  }

  /** Where helpers run tasks (null when there are none). */
  public Executor helperExecutor() {
    return helperExecutor;
  }

  /** Returns the buffers to the allocator; decoder states stay (they hold no Arrow memory). */
  public void releaseBuffers() {
    if (buffer != null) {
      buffer.close();
      buffer = null;
    }
    if (window != null) {
      window.close();
      window = null;
    }
  }

  /**
   * Decoder state of {@code type} that codecs reuse from chunk to chunk on this worker (e.g. a zstd
   * context), made by {@code create} on first use and closed with the scratch.
   */
  public <T extends AutoCloseable> T state(Class<T> type, Supplier<T> create) {
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
    releaseBuffers();
  }
}
