package dev.zaro.arrow.codec;

import dev.zaro.arrow.metadata.CodecSpec;

/** Builds a codec from its metadata, for chunks of a known spec. */
@FunctionalInterface
public interface CodecFactory {
  /**
   * Builds the codec {@code spec} names for chunks of {@code input}.
   *
   * @param spec the codec's name and configuration
   * @param input the chunk spec this codec decodes to (for array codecs: the decoded array)
   * @param registry for codecs that hold nested chains (sharding)
   * @throws dev.zaro.arrow.error.CodecException if the configuration is invalid
   */
  Codec create(CodecSpec spec, ChunkSpec input, CodecRegistry registry);
}
