package dev.zaro.arrow.read.internal;

import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.codec.internal.ScratchPool;
import dev.zaro.arrow.read.ChunkCache;
import dev.zaro.arrow.read.MissingChunks;
import java.util.concurrent.Executor;

/**
 * How the arrays of one {@code Zaro} read: what every array it opens shares, made from its options
 * (see docs/ARCHITECTURE.md, "One read").
 *
 * @param registry the codecs chunks are decoded with
 * @param executor runs chunk work; at most {@code parallelism} chunks of one read decode at once
 * @param parallelism chunks of one read decoded at once (at least 1 is used)
 * @param scratchPool decoder state to reuse across reads (not closed by the arrays), or null
 * @param ioConcurrency for stores where fetching dominates (remote): up to this many chunks are
 *     fetched at once, while decoding stays limited to {@code parallelism} threads; 0 for local
 *     stores
 * @param missingChunks what reads do with chunks absent from the store
 * @param maxBytesInFlight remote stores: no further chunk is requested ahead while the bodies that
 *     arrived and wait for a decoder hold this many bytes (so a read holds at most this plus {@code
 *     ioConcurrency} chunks' bodies beyond its output); at least 1
 * @param cache decoded chunks shared between reads (null: none; not closed by the arrays)
 */
public record ReadSetup(
    CodecRegistry registry,
    Executor executor,
    int parallelism,
    ScratchPool scratchPool,
    int ioConcurrency,
    MissingChunks missingChunks,
    long maxBytesInFlight,
    ChunkCache cache) {
  /** Checks {@code maxBytesInFlight}. */
  public ReadSetup {
    if (maxBytesInFlight < 1) {
      throw new IllegalArgumentException(
          "maxBytesInFlight must be at least 1, not " + maxBytesInFlight);
    }
  }
}
