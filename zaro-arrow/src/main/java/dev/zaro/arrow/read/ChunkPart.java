package dev.zaro.arrow.read;

import java.util.ArrayList;
import java.util.List;

/**
 * The part of one selected dimension that falls in one chunk: chunk {@code chunk} supplies
 * {@code count} indices starting at chunk-local {@code localStart} (every {@code step}), which
 * land at output index {@code outStart}.
 */
record ChunkPart(long chunk, long localStart, long count, long outStart) {

  /** Splits a selected dimension into its chunks, in order. */
  static List<ChunkPart> split(Selection.Dim dim, long chunkSize) {
    List<ChunkPart> parts = new ArrayList<>();
    long k = 0;
    while (k < dim.count()) {
      long index = dim.start() + k * dim.step();
      long chunk = index / chunkSize;
      long chunkEnd = (chunk + 1) * chunkSize;
      long kEnd = Math.min(dim.count(), (chunkEnd - dim.start() + dim.step() - 1) / dim.step());
      parts.add(new ChunkPart(chunk, index - chunk * chunkSize, kEnd - k, k));
      k = kEnd;
    }
    return parts;
  }
}
