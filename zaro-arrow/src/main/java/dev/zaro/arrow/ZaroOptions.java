package dev.zaro.arrow;

import dev.zaro.arrow.codec.CodecRegistry;

/**
 * Options of an open hierarchy.
 *
 * @param threads chunks decoded in parallel by one read (about the core count for local data)
 * @param codecs where codec names are looked up
 */
public record ZaroOptions(int threads, CodecRegistry codecs) {
  public ZaroOptions {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, not " + threads);
    }
  }

  public static ZaroOptions defaults() {
    return new ZaroOptions(Runtime.getRuntime().availableProcessors(), CodecRegistry.defaults());
  }

  public ZaroOptions withThreads(int n) {
    return new ZaroOptions(n, codecs);
  }
}
