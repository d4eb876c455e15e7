package dev.zaro.arrow;

import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.read.MissingChunks;
import dev.zaro.arrow.read.ZarrArray;
import dev.zaro.arrow.store.RemoteLimits;
import java.util.Objects;

/**
 * Options of an open hierarchy, made with {@link #builder()} (or {@link #defaults()}) and changed
 * with the {@code with...} methods; immutable.
 *
 * <pre>{@code
 * ZaroOptions options = ZaroOptions.builder().threads(8).cacheMemory(1L << 30).build();
 * }</pre>
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
   *
   * @deprecated eight positional components, two of them look-alike longs: use {@link #builder()}
   */
  @Deprecated(since = "0.1.0")
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

  /**
   * Options with the default remote limits ({@link RemoteLimits#DEFAULT}).
   *
   * @deprecated positional booleans and longs: use {@link #builder()}
   */
  @Deprecated(since = "0.1.0")
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

  /**
   * Options without a decoded-chunk cache.
   *
   * @deprecated positional booleans and longs: use {@link #builder()}
   */
  @Deprecated(since = "0.1.0")
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
   *
   * @deprecated a positional boolean: use {@link #builder()}
   */
  @Deprecated(since = "0.1.0")
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

  /**
   * {@code threads} decoding threads and these codecs; the other options at their defaults.
   *
   * @deprecated use {@code builder().threads(threads).codecs(codecs).build()}
   */
  @Deprecated(since = "0.1.0")
  public ZaroOptions(int threads, CodecRegistry codecs) {
    this(threads, codecs, DEFAULT_IO_CONCURRENCY, false);
  }

  /**
   * Options that fill missing chunks with the fill value.
   *
   * @deprecated a positional boolean: use {@link #builder()}
   */
  @Deprecated(since = "0.1.0")
  public ZaroOptions(int threads, CodecRegistry codecs, int ioConcurrency, boolean fallbackTypes) {
    this(threads, codecs, ioConcurrency, fallbackTypes, MissingChunks.FILL);
  }

  /** The defaults: one decoding thread per core, the built-in and ServiceLoader codecs. */
  public static ZaroOptions defaults() {
    return builder().build();
  }

  /**
   * A builder holding the defaults: one decoding thread per core, the built-in and ServiceLoader
   * codecs, {@value #DEFAULT_IO_CONCURRENCY} requests in flight, ML floats read as float32 values,
   * missing chunks read as the fill value, {@link ZarrArray#DEFAULT_MAX_BYTES_IN_FLIGHT} bytes in
   * flight, no cache and the default remote limits.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding these options, to change some of them. */
  public Builder toBuilder() {
    return new Builder()
        .threads(threads)
        .codecs(codecs)
        .ioConcurrency(ioConcurrency)
        .fallbackTypes(fallbackTypes)
        .missingChunks(missingChunks)
        .maxBytesInFlight(maxBytesInFlight)
        .cacheMemory(cacheMemory)
        .remote(remote);
  }

  /** These options with {@code n} decoding threads. */
  public ZaroOptions withThreads(int n) {
    return toBuilder().threads(n).build();
  }

  /** These options with up to {@code n} chunk requests in flight on remote stores. */
  public ZaroOptions withIoConcurrency(int n) {
    return toBuilder().ioConcurrency(n).build();
  }

  /**
   * Reads the ML float types (bfloat16, float8_*, ...) as their bit patterns instead of float32
   * values; see {@link #fallbackTypes()}.
   */
  public ZaroOptions withFallbackTypes(boolean allow) {
    return toBuilder().fallbackTypes(allow).build();
  }

  /** Chooses what reads do with chunks absent from the store; see {@link MissingChunks}. */
  public ZaroOptions withMissingChunks(MissingChunks policy) {
    return toBuilder().missingChunks(policy).build();
  }

  /** Sets {@link #maxBytesInFlight()}: fetched bytes a remote read holds ahead of its decoders. */
  public ZaroOptions withMaxBytesInFlight(long bytes) {
    return toBuilder().maxBytesInFlight(bytes).build();
  }

  /**
   * Sets {@link #remote()}: the timeouts, retries and size caps of remote stores opened by
   * location, and the cap on metadata documents.
   */
  public ZaroOptions withRemote(RemoteLimits limits) {
    return toBuilder().remote(limits).build();
  }

  /**
   * Sets {@link #cacheMemory()}: bytes of decoded chunks kept for every later read of the same
   * {@link Zaro} (a {@link dev.zaro.arrow.read.ChunkCache}, LRU by bytes); 0 (the default) keeps
   * none.
   */
  public ZaroOptions withCacheMemory(long bytes) {
    return toBuilder().cacheMemory(bytes).build();
  }

  /**
   * Builds {@link ZaroOptions}, each setter naming its option; starts from the defaults ({@link
   * ZaroOptions#builder()}). Not thread-safe; {@link #build} checks the values and may be called
   * again after further changes.
   */
  public static final class Builder {
    private int threads = Runtime.getRuntime().availableProcessors();
    private CodecRegistry codecs; // null: CodecRegistry.defaults(), looked up by build()
    private int ioConcurrency = DEFAULT_IO_CONCURRENCY;
    private boolean fallbackTypes;
    private MissingChunks missingChunks = MissingChunks.FILL;
    private long maxBytesInFlight = ZarrArray.DEFAULT_MAX_BYTES_IN_FLIGHT;
    private long cacheMemory;
    private RemoteLimits remote = RemoteLimits.DEFAULT;

    private Builder() {}

    /** Chunks decoded in parallel by one read (default: the core count). */
    public Builder threads(int n) {
      this.threads = n;
      return this;
    }

    /** Where codec names are looked up (default: the built-in and ServiceLoader codecs). */
    public Builder codecs(CodecRegistry registry) {
      this.codecs = Objects.requireNonNull(registry, "codecs");
      return this;
    }

    /** Chunk requests one read keeps in flight on remote stores. */
    public Builder ioConcurrency(int n) {
      this.ioConcurrency = n;
      return this;
    }

    /**
     * Whether the ML float types read as their bit patterns; see {@link
     * ZaroOptions#fallbackTypes()}.
     */
    public Builder fallbackTypes(boolean allow) {
      this.fallbackTypes = allow;
      return this;
    }

    /** What a read does with a chunk absent from the store. */
    public Builder missingChunks(MissingChunks policy) {
      this.missingChunks = policy;
      return this;
    }

    /** Fetched bytes a remote read holds ahead of its decoders. */
    public Builder maxBytesInFlight(long bytes) {
      this.maxBytesInFlight = bytes;
      return this;
    }

    /** Bytes of decoded chunks kept for later reads (0: none). */
    public Builder cacheMemory(long bytes) {
      this.cacheMemory = bytes;
      return this;
    }

    /** The limits of remote stores opened by location, and the cap on metadata documents. */
    public Builder remote(RemoteLimits limits) {
      this.remote = limits;
      return this;
    }

    /**
     * The options.
     *
     * @throws IllegalArgumentException for a value out of range (see {@link ZaroOptions})
     */
    public ZaroOptions build() {
      return new ZaroOptions(
          threads,
          codecs != null ? codecs : CodecRegistry.defaults(),
          ioConcurrency,
          fallbackTypes,
          missingChunks,
          maxBytesInFlight,
          cacheMemory,
          remote);
    }
  }
}
