package dev.zaro.arrow;

import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.read.MissingChunks;

/**
 * Options of an open hierarchy.
 *
 * @param threads chunks decoded in parallel by one read (about the core count)
 * @param codecs where codec names are looked up
 * @param ioConcurrency chunk fetches one read keeps in flight on remote stores (HTTP, S3)
 * @param fallbackTypes whether arrays of data types zaro does not interpret but can read as bit
 *     patterns (bfloat16, float8_*: as uint16/uint8) may be read; off by default, so nobody gets
 *     integers where they expected floats without asking for them
 * @param missingChunks what a read does with a chunk absent from the store (default: fill)
 */
public record ZaroOptions(
    int threads,
    CodecRegistry codecs,
    int ioConcurrency,
    boolean fallbackTypes,
    MissingChunks missingChunks) {
  public ZaroOptions {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, not " + threads);
    }
    if (missingChunks == null) {
      throw new IllegalArgumentException("missingChunks must not be null");
    }
    if (ioConcurrency < 1) {
      throw new IllegalArgumentException("ioConcurrency must be at least 1, not " + ioConcurrency);
    }
  }

  public ZaroOptions(int threads, CodecRegistry codecs) {
    this(threads, codecs, 16, false);
  }

  public ZaroOptions(int threads, CodecRegistry codecs, int ioConcurrency, boolean fallbackTypes) {
    this(threads, codecs, ioConcurrency, fallbackTypes, MissingChunks.FILL);
  }

  public static ZaroOptions defaults() {
    return new ZaroOptions(
        Runtime.getRuntime().availableProcessors(), CodecRegistry.defaults(), 16, false);
  }

  public ZaroOptions withThreads(int n) {
    return new ZaroOptions(n, codecs, ioConcurrency, fallbackTypes, missingChunks);
  }

  public ZaroOptions withIoConcurrency(int n) {
    return new ZaroOptions(threads, codecs, n, fallbackTypes, missingChunks);
  }

  /**
   * Allows (or refuses) reading types such as bfloat16 as their bit patterns; see {@link
   * #fallbackTypes()}.
   */
  public ZaroOptions withFallbackTypes(boolean allow) {
    return new ZaroOptions(threads, codecs, ioConcurrency, allow, missingChunks);
  }

  /** Chooses what reads do with chunks absent from the store; see {@link MissingChunks}. */
  public ZaroOptions withMissingChunks(MissingChunks policy) {
    return new ZaroOptions(threads, codecs, ioConcurrency, fallbackTypes, policy);
  }
}
