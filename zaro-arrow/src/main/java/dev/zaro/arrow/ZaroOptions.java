package dev.zaro.arrow;

import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.read.MissingChunks;
import dev.zaro.arrow.read.ZarrArray;
import dev.zaro.arrow.store.RemoteLimits;

/**
 * Options of an open hierarchy.
 *
 * @param threads chunks decoded in parallel by one read (about the core count)
 * @param codecs where codec names are looked up
 * @param ioConcurrency chunk fetches one read keeps in flight on remote stores (HTTP, S3)
 * @param fallbackTypes whether the ML float types (bfloat16, float8_*, float6_*, float4_e2m1fn)
 *     read as their bit patterns (uint16/uint8, CLI {@code --raw-bits}) instead of their float32
 *     values; off by default (values). Struct fields of these types read only as bit patterns, so a
 *     struct holding them needs this on
 * @param missingChunks what a read does with a chunk absent from the store (default: fill)
 * @param maxBytesInFlight remote stores: fetched chunk bytes one read holds ahead of its decoders
 *     before it requests more (default 256 MiB); a read's memory stays within its output plus this
 *     plus {@code ioConcurrency} chunks
 * @param cacheMemory bytes of decoded chunks kept for later reads of the same hierarchy (0: none)
 * @param remote remote stores opened by location ({@link Zaro#open(String, ZaroOptions)}): their
 *     timeouts, retries and size caps; and every store's cap on metadata documents
 */
public record ZaroOptions(
    int threads,
    CodecRegistry codecs,
    int ioConcurrency,
    boolean fallbackTypes,
    MissingChunks missingChunks,
    long maxBytesInFlight,
    long cacheMemory,
    RemoteLimits remote) {
  /**
   * Requests one read keeps in flight on a remote store by default: enough to hide 100 ms of
   * latency behind a 2-core decoder (fsspec batches up to 1280; tensorstore's default is 32); the
   * bytes-in-flight budget bounds memory when chunks are large, and the HTTP store's per-host limit
   * backs off on 429/503.
   */
  public static final int DEFAULT_IO_CONCURRENCY = 256;

  /**
   * Checks the components: positive threads, I/O concurrency and bytes in flight, a cache size not
   * negative, a missing-chunk policy.
   */
  public ZaroOptions {
    if (cacheMemory < 0) {
      throw new IllegalArgumentException("cacheMemory must not be negative, not " + cacheMemory);
    }
    if (maxBytesInFlight < 1) {
      throw new IllegalArgumentException(
          "maxBytesInFlight must be at least 1, not " + maxBytesInFlight);
    }
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, not " + threads);
    }
    if (missingChunks == null) {
      throw new IllegalArgumentException("missingChunks must not be null");
    }
    if (ioConcurrency < 1) {
      throw new IllegalArgumentException("ioConcurrency must be at least 1, not " + ioConcurrency);
    }
    if (remote == null) {
      throw new IllegalArgumentException("remote must not be null");
    }
  }

  /** Options with the default remote limits ({@link RemoteLimits#DEFAULT}). */
  public ZaroOptions(
      int threads,
      CodecRegistry codecs,
      int ioConcurrency,
      boolean fallbackTypes,
      MissingChunks missingChunks,
      long maxBytesInFlight,
      long cacheMemory) {
    this(
        threads,
        codecs,
        ioConcurrency,
        fallbackTypes,
        missingChunks,
        maxBytesInFlight,
        cacheMemory,
        RemoteLimits.DEFAULT);
  }

  /** Options without a decoded-chunk cache. */
  public ZaroOptions(
      int threads,
      CodecRegistry codecs,
      int ioConcurrency,
      boolean fallbackTypes,
      MissingChunks missingChunks,
      long maxBytesInFlight) {
    this(threads, codecs, ioConcurrency, fallbackTypes, missingChunks, maxBytesInFlight, 0);
  }

  /**
   * Options holding {@link dev.zaro.arrow.read.ZarrArray#DEFAULT_MAX_BYTES_IN_FLIGHT} ahead of the
   * decoders, without a cache.
   */
  public ZaroOptions(
      int threads,
      CodecRegistry codecs,
      int ioConcurrency,
      boolean fallbackTypes,
      MissingChunks missingChunks) {
    this(
        threads,
        codecs,
        ioConcurrency,
        fallbackTypes,
        missingChunks,
        ZarrArray.DEFAULT_MAX_BYTES_IN_FLIGHT);
  }

  /** {@code threads} decoding threads and these codecs; the other options at their defaults. */
  public ZaroOptions(int threads, CodecRegistry codecs) {
    this(threads, codecs, DEFAULT_IO_CONCURRENCY, false);
  }

  /** Options that fill missing chunks with the fill value. */
  public ZaroOptions(int threads, CodecRegistry codecs, int ioConcurrency, boolean fallbackTypes) {
    this(threads, codecs, ioConcurrency, fallbackTypes, MissingChunks.FILL);
  }

  /** The defaults: one decoding thread per core, the built-in and ServiceLoader codecs. */
  public static ZaroOptions defaults() {
    return new ZaroOptions(
        Runtime.getRuntime().availableProcessors(),
        CodecRegistry.defaults(),
        DEFAULT_IO_CONCURRENCY,
        false);
  }

  /** These options with {@code n} decoding threads. */
  public ZaroOptions withThreads(int n) {
    return new ZaroOptions(
        n,
        codecs,
        ioConcurrency,
        fallbackTypes,
        missingChunks,
        maxBytesInFlight,
        cacheMemory,
        remote);
  }

  /** These options with up to {@code n} chunk requests in flight on remote stores. */
  public ZaroOptions withIoConcurrency(int n) {
    return new ZaroOptions(
        threads, codecs, n, fallbackTypes, missingChunks, maxBytesInFlight, cacheMemory, remote);
  }

  /**
   * Reads the ML float types (bfloat16, float8_*, ...) as their bit patterns instead of float32
   * values; see {@link #fallbackTypes()}.
   */
  public ZaroOptions withFallbackTypes(boolean allow) {
    return new ZaroOptions(
        threads,
        codecs,
        ioConcurrency,
        allow,
        missingChunks,
        maxBytesInFlight,
        cacheMemory,
        remote);
  }

  /** Chooses what reads do with chunks absent from the store; see {@link MissingChunks}. */
  public ZaroOptions withMissingChunks(MissingChunks policy) {
    return new ZaroOptions(
        threads,
        codecs,
        ioConcurrency,
        fallbackTypes,
        policy,
        maxBytesInFlight,
        cacheMemory,
        remote);
  }

  /** Sets {@link #maxBytesInFlight()}: fetched bytes a remote read holds ahead of its decoders. */
  public ZaroOptions withMaxBytesInFlight(long bytes) {
    return new ZaroOptions(
        threads, codecs, ioConcurrency, fallbackTypes, missingChunks, bytes, cacheMemory, remote);
  }

  /**
   * Sets {@link #remote()}: the timeouts, retries and size caps of remote stores opened by
   * location, and the cap on metadata documents.
   */
  public ZaroOptions withRemote(RemoteLimits limits) {
    return new ZaroOptions(
        threads,
        codecs,
        ioConcurrency,
        fallbackTypes,
        missingChunks,
        maxBytesInFlight,
        cacheMemory,
        limits);
  }

  /**
   * Sets {@link #cacheMemory()}: bytes of decoded chunks kept for every later read of the same
   * {@link Zaro} (a {@link dev.zaro.arrow.read.ChunkCache}, LRU by bytes); 0 (the default) keeps
   * none.
   */
  public ZaroOptions withCacheMemory(long bytes) {
    return new ZaroOptions(
        threads,
        codecs,
        ioConcurrency,
        fallbackTypes,
        missingChunks,
        maxBytesInFlight,
        bytes,
        remote);
  }
}
