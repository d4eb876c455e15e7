package dev.zaro.arrow.codec;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/** Turns bytes into the elements of a chunk array (e.g. {@code bytes}, sharding). */
public non-sealed interface ArrayToBytesCodec extends Codec {

  /** The exact encoded size of a chunk of {@code spec}, or -1 when it varies. */
  long encodedSize(ChunkSpec spec);

  /**
   * Decodes {@code encoded} (valid bytes {@code [0, writerIndex)}; not closed here) as a chunk of
   * {@code spec} and writes the elements {@code target} selects.
   *
   * @param allocator for temporary buffers, all closed before returning
   */
  void decodeInto(ArrowBuf encoded, ChunkSpec spec, SlabView target, BufferAllocator allocator);

  /**
   * True if a chunk's encoded bytes are exactly its C-order little-endian elements, so a decoder
   * may write them straight into the output.
   */
  default boolean isIdentity(ChunkSpec spec) {
    return false;
  }

  /**
   * When a chunk's encoded bytes are its C-order elements, each reversed per unit of this many
   * bytes (0: not at all), so a decoder may scatter any run of them straight to its place; -1 when
   * only {@link #decodeInto} can decode them.
   */
  default int swapUnit(ChunkSpec spec) {
    return -1;
  }

  /**
   * This codec's partial decoder, for codecs stating {@link CodecCapability#PARTIAL_DECODE}.
   *
   * @throws UnsupportedOperationException for any other codec
   */
  default PartialDecoder partialDecoder() {
    throw new UnsupportedOperationException(name() + " decodes whole chunks only");
  }
}
