package dev.zaro.remote.spi;

import dev.zaro.arrow.error.StoreException;
import java.nio.ByteBuffer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * One reply body written into one {@link ArrowBuf} as its chunks arrive: the store layer's one
 * appender, used by {@link HttpStore} and by the S3 store (zaro-s3), so that sizing, growth, the
 * length check and freeing are written once.
 *
 * <p>The buffer comes from the caller's allocator, sized by the length the reply's headers announce
 * ({@code Content-Length}, or a {@code Content-Range}'s length), or {@link #FIRST_GUESS} bytes when
 * they do not say; without an announced length it grows by doubling. A body longer or shorter than
 * announced is a {@link StoreException} naming where the body came from (the key and its URL or
 * bucket, as the store words it) with the announced and the received byte counts.
 *
 * <p>Ownership: this appender owns its buffer until {@link #take} hands it over; from then on the
 * caller owns it and closes it. Until then {@link #close} frees it, and a failure in {@link
 * #append} or {@link #take} (a body longer or shorter than announced, an allocation that fails)
 * frees it before the exception leaves, so a failed body holds no memory. Closing is idempotent.
 * Not thread-safe: the caller serializes one body's calls (reply bodies arrive in order, one chunk
 * at a time).
 */
public final class BodyBuffer implements AutoCloseable {
  /** The first buffer's size when the headers announce no length. */
  public static final long FIRST_GUESS = 64 * 1024;

  private final BufferAllocator allocator;
  private final long announced;
  private final String source;
  private final long max;
  private ArrowBuf buf;
  private long written;

  /**
   * Allocates the buffer (an allocation failure, such as the allocator's limit, is thrown as it
   * is).
   *
   * @param allocator the caller's allocator, which the buffer comes from
   * @param announced the body's length as the reply's headers announce it, or -1 if they do not
   * @param source what the body is, for error messages: {@code key 'a/b' (https://host/a/b)}
   */
  public BodyBuffer(BufferAllocator allocator, long announced, String source) {
    this(allocator, announced, source, Long.MAX_VALUE);
  }

  /**
   * As {@link #BodyBuffer(BufferAllocator, long, String)}, never allocating a buffer larger than
   * {@code max} bytes: a body that grows past it is refused ({@link #append} throws, freeing the
   * buffer), as the caller refuses an announced length past it before making this.
   */
  public BodyBuffer(BufferAllocator allocator, long announced, String source, long max) {
    this.allocator = allocator;
    this.announced = announced;
    this.source = source;
    this.max = max;
    this.buf = allocator.buffer(Math.min(max, announced >= 0 ? announced : FIRST_GUESS));
  }

  /** The announced length, or -1. */
  public long announced() {
    return announced;
  }

  /**
   * The buffer being filled, when the headers announced the body's length (it is then never
   * replaced, so bytes written stay where they are until {@link #take} or {@link #close}); null
   * without an announced length or once taken or freed. Still owned by this appender.
   */
  public ArrowBuf settled() {
    return announced >= 0 ? buf : null;
  }

  /** The bytes appended so far. */
  public long written() {
    return written;
  }

  /**
   * Appends {@code chunk}'s remaining bytes, growing the buffer when needed.
   *
   * @throws StoreException if the body becomes longer than announced (the buffer is then freed)
   * @throws IllegalStateException if the buffer was already taken or freed
   */
  public void append(ByteBuffer chunk) {
    held();
    int n = chunk.remaining();
    try {
      if (announced >= 0 && written + n > announced) {
        throw lengthMismatch(source, announced, written + n);
      }
      if (written + n > max) {
        throw new StoreException(
            source
                + ": the body passed the cap of "
                + max
                + " bytes (at least "
                + (written + n)
                + " bytes arrived)");
      }
      if (written + n > buf.capacity()) {
        grow(written + n);
      }
      buf.setBytes(written, chunk);
      written += n;
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  private void grow(long needed) {
    ArrowBuf bigger = allocator.buffer(Math.max(needed, Math.min(max, buf.capacity() * 2)));
    bigger.setBytes(0, buf, 0, written);
    buf.close();
    buf = bigger;
  }

  /**
   * Hands the complete body over: the buffer, its writer index at the body's length, now the
   * caller's to close.
   *
   * @throws StoreException if the body is shorter than announced (the buffer is then freed)
   * @throws IllegalStateException if the buffer was already taken or freed
   */
  public ArrowBuf take() {
    held();
    if (announced >= 0 && written != announced) {
      close();
      throw lengthMismatch(source, announced, written);
    }
    ArrowBuf out = buf;
    buf = null;
    out.writerIndex(written);
    return out;
  }

  /** Frees the buffer unless {@link #take} handed it over; a no-op when called again. */
  @Override
  public void close() {
    if (buf != null) {
      buf.close();
      buf = null;
    }
  }

  /**
   * The error for a body of {@code got} bytes where its headers announce {@code announced}: longer
   * ({@code got} is then what arrived so far) or truncated. For bodies read whole by other means
   * (HttpStore's own HTTP/1.1 client), so that both paths word it the same.
   *
   * @param source what the body is, as in the constructor
   */
  public static StoreException lengthMismatch(String source, long announced, long got) {
    if (got > announced) {
      return new StoreException(
          source
              + ": the body is longer than the "
              + announced
              + " bytes its headers announce (at least "
              + got
              + " bytes arrived)");
    }
    return new StoreException(
        source + ": the body was truncated: " + got + " of " + announced + " bytes");
  }

  private void held() {
    if (buf == null) {
      throw new IllegalStateException(source + ": the body's buffer was already taken or freed");
    }
  }
}
