package dev.zaro.arrow.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * The built-in registry, which reads its providers from zaro-arrow's own services file instead of a
 * class-path-wide lookup, holds the same codecs as every provider {@link ServiceLoader} finds.
 */
class CodecRegistryTest {
  @Test
  void builtInsHoldWhatTheServiceLoaderFinds() {
    CodecRegistry looked = new CodecRegistry();
    ServiceLoader.load(CodecProvider.class, CodecRegistry.class.getClassLoader())
        .forEach(provider -> provider.register(looked));
    assertTrue(looked.names().contains("zstd"), looked.names().toString());
    assertEquals(looked.names(), CodecRegistry.builtIns().names());
    assertEquals(looked.names(), CodecRegistry.defaults().names());
  }
}
