package dev.zaro.arrow.codec;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Transforms a chunk array into another array (e.g. {@code transpose}, v2 filters such as {@code
 * delta} or {@code fixedscaleoffset}).
 *
 * <p>Codecs that only rearrange elements ({@link CodecCapability#LAYOUT_ONLY}) never materialize
 * the decoded array: they re-express the target view in terms of the encoded array, so the
 * array-to-bytes codec scatters encoded elements straight to their final place. Codecs that change
 * values decode whole chunk arrays.
 */
public non-sealed interface ArrayToArrayCodec extends Codec {
  /** The spec of the encoded array for a decoded chunk of {@code decoded}. */
  ChunkSpec encodedSpec(ChunkSpec decoded);

  /**
   * The target view of the decoded array, re-expressed on the encoded array (codecs stating {@link
   * CodecCapability#LAYOUT_ONLY}).
   */
  default SlabView encodedView(SlabView decodedView) {
    throw new UnsupportedOperationException(name() + " changes values; decode whole chunks");
  }

  /**
   * Decodes a whole encoded chunk array (C order, laid out as {@link #encodedSpec}) into a whole
   * decoded array of {@code decoded}. Does not close {@code encoded}.
   *
   * @return a buffer of {@code decoded.byteSize()} bytes that the caller closes
   */
  ArrowBuf decode(ArrowBuf encoded, ChunkSpec decoded, BufferAllocator allocator);

  /**
   * {@link #decode(ArrowBuf, ChunkSpec, BufferAllocator)} for a read whose variable-length elements
   * reference bytes in {@code heap} (null for fixed-size types): a codec that decodes to such
   * references keeps the bytes they point at alive there.
   */
  default ArrowBuf decode(
      ArrowBuf encoded, ChunkSpec decoded, BufferAllocator allocator, VarHeap heap) {
    return decode(encoded, decoded, allocator);
  }
}
