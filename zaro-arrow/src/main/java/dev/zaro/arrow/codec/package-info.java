/**
 * The codec extension point: the {@link dev.zaro.arrow.codec.Codec} kinds (array to array, array to
 * bytes, bytes to bytes), their configuration and chains, partial decoders for sharding, and {@link
 * dev.zaro.arrow.codec.CodecRegistry}, where codec names are looked up. Other jars add codecs
 * through a {@link dev.zaro.arrow.codec.CodecProvider} found with {@link java.util.ServiceLoader};
 * the built-in codecs' implementations stay in packages this module does not export.
 */
package dev.zaro.arrow.codec;
