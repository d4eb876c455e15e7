package dev.zaro.arrow.codec;

import java.util.Set;

/**
 * One stage of a chunk's codec chain. Codecs are immutable, built once per array from its metadata
 * (the "prepared state") and shared by every chunk read, from any thread.
 */
public sealed interface Codec permits ArrayToArrayCodec, ArrayToBytesCodec, BytesToBytesCodec {
  /** The codec's metadata name ({@code "zstd"}). */
  String name();

  /**
   * What this codec can do beyond decoding whole chunks; the chain and the readers use a capability
   * only when the codec states it here. Fixed for the codec's lifetime.
   */
  default Set<CodecCapability> capabilities() {
    return Set.of();
  }
}
