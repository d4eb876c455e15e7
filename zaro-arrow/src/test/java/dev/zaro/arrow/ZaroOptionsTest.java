package dev.zaro.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.read.MissingChunks;
import dev.zaro.arrow.read.ZarrArray;
import dev.zaro.arrow.store.RemoteLimits;
import org.junit.jupiter.api.Test;

/**
 * {@link ZaroOptions#builder()}: its defaults, its setters, its checks, and the old constructors.
 */
class ZaroOptionsTest {
  @Test
  void theBuilderStartsFromTheDocumentedDefaults() {
    ZaroOptions o = ZaroOptions.builder().build();
    assertEquals(Runtime.getRuntime().availableProcessors(), o.threads());
    assertSame(CodecRegistry.defaults(), o.codecs());
    assertEquals(256, o.ioConcurrency());
    assertFalse(o.fallbackTypes());
    assertEquals(MissingChunks.FILL, o.missingChunks());
    assertEquals(256L << 20, o.maxBytesInFlight());
    assertEquals(0, o.cacheMemory());
    assertSame(RemoteLimits.DEFAULT, o.remote());
    assertEquals(o, ZaroOptions.defaults());
  }

  @Test
  void eachSetterSetsItsOptionOnly() {
    CodecRegistry codecs = CodecRegistry.defaults();
    ZaroOptions o =
        ZaroOptions.builder()
            .threads(3)
            .codecs(codecs)
            .ioConcurrency(7)
            .fallbackTypes(true)
            .missingChunks(MissingChunks.ERROR)
            .maxBytesInFlight(11)
            .cacheMemory(13)
            .build();
    assertEquals(3, o.threads());
    assertEquals(7, o.ioConcurrency());
    assertTrue(o.fallbackTypes());
    assertEquals(MissingChunks.ERROR, o.missingChunks());
    assertEquals(11, o.maxBytesInFlight());
    assertEquals(13, o.cacheMemory());
    assertEquals(o, o.toBuilder().build());
    assertEquals(5, o.withThreads(5).threads());
    assertEquals(13, o.withThreads(5).cacheMemory());
  }

  @Test
  void buildChecksTheValues() {
    assertThrows(IllegalArgumentException.class, () -> ZaroOptions.builder().threads(0).build());
    assertThrows(
        IllegalArgumentException.class, () -> ZaroOptions.builder().ioConcurrency(0).build());
    assertThrows(
        IllegalArgumentException.class, () -> ZaroOptions.builder().maxBytesInFlight(0).build());
    assertThrows(
        IllegalArgumentException.class, () -> ZaroOptions.builder().cacheMemory(-1).build());
    assertThrows(
        IllegalArgumentException.class, () -> ZaroOptions.builder().missingChunks(null).build());
    assertThrows(IllegalArgumentException.class, () -> ZaroOptions.builder().remote(null).build());
  }

  @Test
  @SuppressWarnings("deprecation") // the deprecated constructors still give the same options
  void theDeprecatedConstructorsStillWork() {
    CodecRegistry codecs = CodecRegistry.defaults();
    assertEquals(
        ZaroOptions.builder().threads(2).codecs(codecs).build(), new ZaroOptions(2, codecs));
    assertEquals(
        ZaroOptions.builder()
            .threads(2)
            .codecs(codecs)
            .ioConcurrency(9)
            .fallbackTypes(true)
            .missingChunks(MissingChunks.ERROR)
            .maxBytesInFlight(ZarrArray.DEFAULT_MAX_BYTES_IN_FLIGHT)
            .build(),
        new ZaroOptions(2, codecs, 9, true, MissingChunks.ERROR));
  }
}
