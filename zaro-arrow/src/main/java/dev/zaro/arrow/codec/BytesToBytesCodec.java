package dev.zaro.arrow.codec;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Transforms bytes into bytes (compressors, checksums). An encoded buffer's valid bytes are {@code
 * [0, writerIndex)}.
 */
public non-sealed interface BytesToBytesCodec extends Codec {

  /**
   * Decodes {@code encoded}, which is not closed here.
   *
   * @param decodedSize the exact decoded size when the chain knows it, else -1; a stream that
   *     decodes to another size is an error, and no more than this is ever allocated
   * @return a buffer the caller closes (it may share memory with {@code encoded}), its valid bytes
   *     {@code [0, writerIndex)}
   */
  ArrowBuf decode(ArrowBuf encoded, long decodedSize, BufferAllocator allocator);

  /**
   * Decodes straight into {@code target[offset, offset + size)} when the decoded size is known to
   * be exactly {@code size}.
   *
   * @return false when this codec cannot decode in place (the caller then uses {@link #decode})
   * @throws IllegalArgumentException when the region is not inside {@code target} ({@link
   *     #checkRegion}), before anything is decoded: an implementation that decodes in place checks
   *     it first
   */
  default boolean decodeInto(ArrowBuf encoded, ArrowBuf target, long offset, long size) {
    return false;
  }

  /**
   * {@link #decodeInto(ArrowBuf, ArrowBuf, long, long)} on a worker that owns {@code scratch} (null
   * when there is none), where a codec may keep decoder state it reuses from chunk to chunk.
   */
  default boolean decodeInto(
      ArrowBuf encoded, ArrowBuf target, long offset, long size, Scratch scratch) {
    return decodeInto(encoded, target, offset, size);
  }

  /**
   * Decodes at least bytes {@code [from, to)} of the {@code size}-byte decoded stream into the same
   * offsets of {@code target} (which holds {@code size} bytes), for a read that needs only that
   * span; other bytes of {@code target} may be left as they were.
   *
   * @return false when this codec can only decode whole streams
   */
  default boolean decodeRange(
      ArrowBuf encoded, ArrowBuf target, long size, long from, long to, Scratch scratch) {
    return false;
  }

  /** Receives decoded bytes in order, a window at a time. */
  @FunctionalInterface
  interface Sink {
    /**
     * {@code length} decoded bytes (a multiple of the unit asked for) at {@code window} + {@code
     * windowOffset}; they are bytes {@code [position, position + length)} of the stream.
     */
    void accept(ArrowBuf window, long windowOffset, long position, long length);
  }

  /**
   * Decodes {@code encoded} through the small {@code window} buffer, handing each filled part to
   * {@code sink} (so a large chunk never needs a buffer of its own).
   *
   * @param decodedSize the exact decoded size; more or fewer bytes are an error
   * @param unit bytes are handed over in multiples of this (an element's size)
   * @return false when this codec cannot stream (the caller then uses {@link #decode})
   */
  default boolean decodeStreaming(
      ArrowBuf encoded, long decodedSize, ArrowBuf window, int unit, Sink sink) {
    return false;
  }

  /** The encoded size of {@code decodedSize} bytes when fixed (checksums), else -1. */
  default long encodedSize(long decodedSize) {
    return -1;
  }

  /**
   * Checks the region a {@code decodeInto} was given: {@code size} bytes at {@code offset} must lie
   * inside {@code target}.
   *
   * @throws IllegalArgumentException naming the region and the target's size otherwise
   */
  static void checkRegion(ArrowBuf target, long offset, long size) {
    if (offset < 0 || size < 0 || offset > target.capacity() - size) {
      throw new IllegalArgumentException(
          "region ["
              + offset
              + ", "
              + offset
              + " + "
              + size
              + ") is outside the "
              + target.capacity()
              + "-byte target");
    }
  }
}
