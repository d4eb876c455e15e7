package dev.zaro.arrow;

import dev.zaro.arrow.codec.CodecRegistry;

/**
 * Options of an open hierarchy.
 *
 * @param threads chunks decoded in parallel by one read (about the core count)
 * @param codecs where codec names are looked up
 * @param ioConcurrency chunk fetches one read keeps in flight on remote stores (HTTP, S3)
 */
public record ZaroOptions(int threads, CodecRegistry codecs, int ioConcurrency) {
  public ZaroOptions {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, not " + threads);
    }
    if (ioConcurrency < 1) {
      throw new IllegalArgumentException("ioConcurrency must be at least 1, not " + ioConcurrency);
    }
  }

  public ZaroOptions(int threads, CodecRegistry codecs) {
    this(threads, codecs, 16);
  }

  public static ZaroOptions defaults() {
    return new ZaroOptions(Runtime.getRuntime().availableProcessors(), CodecRegistry.defaults(), 16);
  }

  public ZaroOptions withThreads(int n) {
    return new ZaroOptions(n, codecs, ioConcurrency);
  }

  public ZaroOptions withIoConcurrency(int n) {
    return new ZaroOptions(threads, codecs, n);
  }
}
