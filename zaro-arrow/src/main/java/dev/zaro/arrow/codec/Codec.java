package dev.zaro.arrow.codec;

/**
 * One stage of a chunk's codec chain. Codecs are immutable, built once per array from its metadata
 * (the "prepared state") and shared by every chunk read, from any thread.
 */
public sealed interface Codec permits ArrayToArrayCodec, ArrayToBytesCodec, BytesToBytesCodec {
  /** The codec's metadata name ({@code "zstd"}). */
  String name();
}
