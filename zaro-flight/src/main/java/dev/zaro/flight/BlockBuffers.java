package dev.zaro.flight;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;

/**
 * The output buffers of one tensor stream's blocks, reused from block to block: a block read into a
 * fresh buffer pays the kernel a page fault, and zeroing, per page on first touch (about a fifth of
 * a cached stream's CPU), a reused one does not.
 *
 * <p>A buffer is free again when the pool's reference is its only one: the slab read into it, the
 * vectors loaded from that slab and the transport's batches (gRPC or Netty hold them until written)
 * have all let go. The pool keeps at most {@code max} of the buffers the stream's first blocks were
 * read into; when none is free {@link #acquire} answers null and the block is read into a fresh
 * buffer as before, so the pool never holds more than the stream would have held at once without
 * it. Thread-safe. {@link #close} gives up the pool's references: a buffer still being sent is
 * freed when the transport releases it.
 */
final class BlockBuffers implements AutoCloseable {
  private final int max;
  private final List<ArrowBuf> buffers = new ArrayList<>();
  private boolean closed;

  /** A pool of at most {@code max} buffers. */
  BlockBuffers(int max) {
    this.max = max;
  }

  /**
   * A pooled buffer of at least {@code bytes} that nobody else holds, with a reference for the
   * caller (who closes it once the read that fills it has taken its own), or null when none is free
   * or the pool is closed: read into a fresh buffer then, and {@link #adopt} it.
   */
  synchronized ArrowBuf acquire(long bytes) {
    if (closed) {
      return null;
    }
    for (ArrowBuf b : buffers) {
      if (b.capacity() >= bytes && b.getReferenceManager().getRefCount() == 1) {
        b.getReferenceManager().retain();
        return b;
      }
    }
    return null;
  }

  /**
   * Keeps a reference to {@code fresh}, a block's freshly allocated buffer (the read advised it for
   * huge pages), for later blocks, unless the pool is full or closed.
   */
  synchronized void adopt(ArrowBuf fresh) {
    if (!closed && buffers.size() < max) {
      fresh.getReferenceManager().retain();
      buffers.add(fresh);
    }
  }

  /** How many buffers the pool holds. */
  synchronized int size() {
    return buffers.size();
  }

  @Override
  public synchronized void close() {
    closed = true;
    buffers.forEach(ArrowBuf::close);
    buffers.clear();
  }
}
