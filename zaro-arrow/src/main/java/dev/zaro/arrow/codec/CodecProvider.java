package dev.zaro.arrow.codec;

/**
 * A source of codecs, found with {@link java.util.ServiceLoader}: every built-in codec family
 * registers itself this way, and a jar adds codecs the same way (one class, one {@code provides}
 * line in its module-info or one line in {@code META-INF/services/dev.zaro.arrow.codec.
 * CodecProvider} on the class path). Implementations have a public no-argument constructor.
 */
public interface CodecProvider {
  /** Registers this provider's codecs, by metadata name, on {@code registry}. */
  void register(CodecRegistry registry);
}
