package dev.zaro.arrow.codec;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Transforms bytes into bytes (compressors, checksums). An encoded buffer's valid bytes are
 * {@code [0, writerIndex)}.
 */
public non-sealed interface BytesToBytesCodec extends Codec {

  /**
   * Decodes {@code encoded}, which is not closed here.
   *
   * @param decodedSize the exact decoded size when the chain knows it, else -1; a stream that
   *     decodes to another size is an error, and no more than this is ever allocated
   * @return a buffer the caller closes (it may share memory with {@code encoded}), its valid
   *     bytes {@code [0, writerIndex)}
   */
  ArrowBuf decode(ArrowBuf encoded, long decodedSize, BufferAllocator allocator);

  /**
   * Decodes straight into {@code target[offset, offset + size)} when the decoded size is known
   * to be exactly {@code size}.
   *
   * @return false when this codec cannot decode in place (the caller then uses {@link #decode})
   */
  default boolean decodeInto(ArrowBuf encoded, ArrowBuf target, long offset, long size) {
    return false;
  }

  /** The encoded size of {@code decodedSize} bytes when fixed (checksums), else -1. */
  default long encodedSize(long decodedSize) {
    return -1;
  }
}
