package dev.zaro.arrow.codec;

/**
 * Rearranges a chunk array (e.g. {@code transpose}). Instead of materializing the decoded
 * array, it re-expresses the target view in terms of the encoded array, so the array-to-bytes
 * codec scatters the encoded elements straight to their final place.
 */
public non-sealed interface ArrayToArrayCodec extends Codec {
  /** The spec of the encoded array for a decoded chunk of {@code decoded}. */
  ChunkSpec encodedSpec(ChunkSpec decoded);

  /** The target view of the decoded array, re-expressed on the encoded array. */
  SlabView encodedView(SlabView decodedView);
}
