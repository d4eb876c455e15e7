package dev.zaro.arrow.codec.internal;

import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.metadata.ChunkGrid.Dim;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The part of one selected dimension that falls in one chunk: chunk {@code chunk} supplies {@code
 * count} indices starting at chunk-local {@code localStart} (every {@code step}), which land at
 * output index {@code outStart}.
 */
public record ChunkPart(long chunk, long localStart, long count, long outStart) {

  /**
   * Splits the indices {@code start + i * step} ({@code i < count}) by chunks of {@code chunkSize}.
   */
  public static List<ChunkPart> split(long start, long step, long count, long chunkSize) {
    List<ChunkPart> parts = new ArrayList<>();
    long k = 0;
    while (k < count) {
      long index = start + k * step;
      long chunk = index / chunkSize;
      long chunkEnd = (chunk + 1) * chunkSize;
      long kEnd = Math.min(count, (chunkEnd - start + step - 1) / step);
      parts.add(new ChunkPart(chunk, index - chunk * chunkSize, kEnd - k, k));
      k = kEnd;
    }
    return parts;
  }

  /**
   * Splits the indices {@code start + i * step} ({@code i < count}) by the chunks of one grid
   * dimension (regular or rectilinear).
   */
  public static List<ChunkPart> split(long start, long step, long count, Dim dim) {
    List<ChunkPart> parts = new ArrayList<>();
    long k = 0;
    while (k < count) {
      long index = start + k * step;
      long chunk = dim.chunkOf(index);
      long chunkStart = dim.start(chunk);
      long chunkEnd = chunkStart + dim.length(chunk);
      long kEnd = Math.min(count, (chunkEnd - start + step - 1) / step);
      parts.add(new ChunkPart(chunk, index - chunkStart, kEnd - k, k));
      k = kEnd;
    }
    return parts;
  }

  /**
   * Splits a view of an array into views of its chunks of {@code chunkShape}, calling {@code
   * action} with each touched chunk's grid index and its part of the view, in C order.
   */
  public static void forEachChunk(
      SlabView view, int[] chunkShape, BiConsumer<long[], SlabView> action) {
    int rank = view.rank();
    List<List<ChunkPart>> parts = new ArrayList<>();
    long total = 1;
    for (int d = 0; d < rank; d++) {
      List<ChunkPart> p = split(view.start()[d], view.step()[d], view.count()[d], chunkShape[d]);
      parts.add(p);
      total *= p.size();
    }
    for (long t = 0; t < total; t++) {
      long rest = t;
      long[] index = new long[rank];
      long[] start = new long[rank];
      long[] count = new long[rank];
      long offset = view.offset();
      for (int d = rank - 1; d >= 0; d--) {
        List<ChunkPart> dimParts = parts.get(d);
        ChunkPart part = dimParts.get((int) (rest % dimParts.size()));
        rest /= dimParts.size();
        index[d] = part.chunk();
        start[d] = part.localStart();
        count[d] = part.count();
        offset += part.outStart() * view.stride()[d];
      }
      action.accept(
          index,
          new SlabView(
              view.target(),
              offset,
              view.itemSize(),
              chunkShape,
              start,
              view.step(),
              count,
              view.stride(),
              view.heap()));
    }
  }
}
