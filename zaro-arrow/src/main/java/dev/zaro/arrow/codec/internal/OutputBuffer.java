package dev.zaro.arrow.codec.internal;

import dev.zaro.arrow.codec.BytesToBytesCodec;
import java.nio.ByteBuffer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * The output of a decompressor: either a fixed region of exactly the expected decoded size, or
 * (size unknown) a buffer that grows up to a limit. Never allocates more than the expected size
 * when that is known, so a lying stream cannot make zaro allocate more than the chunk.
 */
public final class OutputBuffer implements AutoCloseable {
  /** Upper bound on the decoded size of a stream whose size nothing else bounds. */
  public static final long MAX_UNKNOWN_SIZE = Integer.MAX_VALUE - 64;

  private final BufferAllocator allocator;
  private final boolean fixed;
  private final long limit;
  private ArrowBuf buf;
  private long base;
  private long written;

  private OutputBuffer(
      BufferAllocator allocator,
      ArrowBuf buf,
      long base,
      long capacity,
      boolean fixed,
      long limit) {
    this.allocator = allocator;
    this.buf = buf;
    this.base = base;
    this.fixed = fixed;
    this.limit = limit;
    this.capacity = capacity;
  }

  private long capacity;

  /**
   * Window mode: where filled windows go, their element size, and the bytes already handed over.
   */
  private BytesToBytesCodec.Sink sink;

  private int unit;
  private long flushed;

  /**
   * A region {@code [offset, offset + size)} of a buffer the caller owns.
   *
   * @throws IllegalArgumentException when the region is not inside {@code target} ({@link
   *     BytesToBytesCodec#checkRegion}): a decompressor writes through raw addresses
   */
  public static OutputBuffer into(ArrowBuf target, long offset, long size) {
    BytesToBytesCodec.checkRegion(target, offset, size);
    return new OutputBuffer(null, target, offset, size, true, size);
  }

  /**
   * A stream of exactly {@code size} bytes decoded through {@code window} (owned by the caller):
   * each time the window fills, its whole {@code unit}s go to {@code sink} and the window is
   * reused. Call {@link #flush} after the last write.
   */
  public static OutputBuffer window(
      ArrowBuf window, long size, int unit, BytesToBytesCodec.Sink sink) {
    OutputBuffer out = new OutputBuffer(null, window, 0, window.capacity(), true, size);
    out.sink = sink;
    out.unit = unit;
    return out;
  }

  /** A new buffer of exactly {@code size} bytes when known, else a growing one. */
  public static OutputBuffer allocate(BufferAllocator allocator, long size, long initialGuess) {
    if (size >= 0) {
      return new OutputBuffer(allocator, allocator.buffer(size), 0, size, true, size);
    }
    long first = Math.max(64 * 1024, Math.min(initialGuess, MAX_UNKNOWN_SIZE));
    return new OutputBuffer(allocator, allocator.buffer(first), 0, first, false, MAX_UNKNOWN_SIZE);
  }

  public long written() {
    return written;
  }

  public long limit() {
    return limit;
  }

  public boolean isFixed() {
    return fixed;
  }

  public long remaining() {
    return sink == null
        ? capacity - written
        : Math.min(capacity - (written - flushed), limit - written);
  }

  public long writeAddress() {
    return buf.memoryAddress() + base + (written - flushed);
  }

  /** A ByteBuffer over the unwritten part (at most 2 GiB). */
  public ByteBuffer writable() {
    long n = Math.min(remaining(), Integer.MAX_VALUE);
    return n == 0 ? ByteBuffer.allocateDirect(0) : MemoryUtil.directBuffer(writeAddress(), (int) n);
  }

  public void advance(long n) {
    written += n;
  }

  /**
   * Grows a non-fixed buffer; false when it is fixed or at its limit. In window mode, hands the
   * filled window to the sink instead; false once the whole stream has been written.
   */
  public boolean grow() {
    if (sink != null) {
      return flush() && written < limit;
    }
    if (fixed || capacity >= limit) {
      return false;
    }
    long next = Math.min(limit, capacity * 2);
    ArrowBuf bigger = allocator.buffer(next);
    MemoryUtil.copyMemory(buf.memoryAddress(), bigger.memoryAddress(), written);
    buf.close();
    buf = bigger;
    capacity = next;
    return true;
  }

  /**
   * Window mode: hands every whole unit in the window to the sink and moves the rest of a unit to
   * the window's start. Returns whether anything was handed over.
   */
  public boolean flush() {
    long fill = written - flushed;
    long deliver = fill - fill % unit;
    if (deliver == 0) {
      return false;
    }
    sink.accept(buf, base, flushed, deliver);
    long carry = fill - deliver;
    if (carry > 0) {
      MemoryUtil.copyMemory(
          buf.memoryAddress() + base + deliver, buf.memoryAddress() + base, carry);
    }
    flushed += deliver;
    return true;
  }

  /** Hands the buffer to the caller (who closes it), with writerIndex set to the bytes written. */
  public ArrowBuf take() {
    ArrowBuf out = buf;
    buf = null;
    out.writerIndex(written);
    return out;
  }

  @Override
  public void close() {
    if (buf != null && allocator != null) {
      buf.close();
    }
    buf = null;
  }
}
