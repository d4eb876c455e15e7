package dev.zaro.arrow.codec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Where the bytes of variable-length elements (strings, bytes) live during a read. A
 * variable-length element in a slab is 16 bytes: the address of its bytes (little-endian int64) and
 * its length (int64). Decoders keep the decoded chunk buffers alive here instead of copying every
 * value: each chunk's bytes stay in their own buffer, so chunks still decode in parallel into
 * disjoint regions. Thread-safe; closing it releases every buffer.
 */
public final class VarHeap implements AutoCloseable {
  /** Bytes of one variable-length element in a slab. */
  public static final int ELEMENT_BYTES = 16;

  private final BufferAllocator allocator;
  private final List<ArrowBuf> buffers = new ArrayList<>();

  /** An empty heap allocating from {@code allocator}; the caller closes it. */
  public VarHeap(BufferAllocator allocator) {
    this.allocator = allocator;
  }

  /** Keeps {@code buffer}'s memory alive until this heap closes (takes a new reference). */
  public synchronized void retain(ArrowBuf buffer) {
    buffer.getReferenceManager().retain();
    buffers.add(buffer);
  }

  /** Copies {@code value} into the heap and returns the 16-byte element that points at it. */
  public synchronized byte[] element(byte[] value) {
    ArrowBuf buf = allocator.buffer(Math.max(1, value.length));
    buf.setBytes(0, value);
    buffers.add(buf);
    return ByteBuffer.allocate(ELEMENT_BYTES)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putLong(buf.memoryAddress())
        .putLong(value.length)
        .array();
  }

  @Override
  public synchronized void close() {
    for (ArrowBuf b : buffers) {
      b.close();
    }
    buffers.clear();
  }
}
