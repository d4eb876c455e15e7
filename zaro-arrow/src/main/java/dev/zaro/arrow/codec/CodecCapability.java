package dev.zaro.arrow.codec;

/**
 * What a codec can do beyond decoding whole chunks, stated as data ({@link Codec#capabilities()})
 * so that {@link CodecChain} and the readers decide from it, never from a codec's class (zarrs'
 * model: each codec wraps the decoder below it and says what it supports).
 */
public enum CodecCapability {
  /**
   * Array-to-array: only moves elements, so {@link ArrayToArrayCodec#encodedView} re-expresses a
   * target view on the encoded array and nothing is materialized (transpose).
   */
  LAYOUT_ONLY,
  /**
   * Array-to-bytes: decodes a region from byte ranges of its input, through {@link
   * ArrayToBytesCodec#partialDecoder()} (sharding, nested sharding included).
   */
  PARTIAL_DECODE,
  /**
   * Array-to-bytes: the decoded result keeps referencing the encoded buffer, so that buffer must
   * not be a reused scratch buffer (variable-length strings).
   */
  KEEPS_INPUT,
  /**
   * Bytes-to-bytes: decodes straight into a caller's buffer of the known decoded size ({@link
   * BytesToBytesCodec#decodeInto}).
   */
  DECODE_IN_PLACE,
  /**
   * Bytes-to-bytes: decodes only a span of the decoded stream ({@link
   * BytesToBytesCodec#decodeRange}).
   */
  DECODE_RANGE,
  /**
   * Bytes-to-bytes: decodes through a small window, in order ({@link
   * BytesToBytesCodec#decodeStreaming}).
   */
  DECODE_STREAMING
}
