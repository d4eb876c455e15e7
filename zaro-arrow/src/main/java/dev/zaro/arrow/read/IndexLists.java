package dev.zaro.arrow.read;

import dev.zaro.arrow.codec.CodecChain;
import dev.zaro.arrow.codec.PartialDecoder;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.codec.internal.ChunkPart;
import dev.zaro.arrow.metadata.ChunkGrid;
import dev.zaro.arrow.plan.Selection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * The chunk parts of a selection with index lists (numpy's outer indexing) and the gather of each
 * task's values into the output. See docs/ARCHITECTURE.md, "Index lists".
 *
 * <p>A list dimension is split into groups of its indices that fall in one chunk (one inner chunk,
 * for a sharded array, so only the inner chunks holding an index are fetched). A group is read as
 * its bounding run inside that chunk, a {@link ChunkPart} of step 1 like any range's, so the one
 * read path (fetch, sharding, decoding, cache, fill of missing chunks) plans and decodes it
 * unchanged; only where it lands differs: each task decodes into its own small buffer (the product
 * of its parts' counts), and {@link #gather} then copies the selected elements from it to their
 * places in the output, in the lists' order (duplicates copied once per position). Every chunk is
 * decoded once: the groups of a dimension fall in distinct chunks.
 */
final class IndexLists implements AutoCloseable {
  /** Per dimension, the parts of the chunks the selection touches (range dimensions as before). */
  private final List<List<ChunkPart>> parts;

  /**
   * Per list dimension and part: the output positions of the part's selected indices, and each
   * one's offset in the part's run. Null for a range dimension.
   */
  private final long[][][] outPositions;

  private final int[][][] runOffsets;

  /**
   * The buffers of the tasks in flight, made on first use (a fetch ahead or the decode) and freed
   * by gather.
   */
  private final Map<Integer, ArrowBuf> buffers = new HashMap<>();

  private boolean closed;

  private IndexLists(List<List<ChunkPart>> parts, long[][][] outPositions, int[][][] runOffsets) {
    this.parts = parts;
    this.outPositions = outPositions;
    this.runOffsets = runOffsets;
  }

  /**
   * Splits {@code selection} over {@code grid}: range dimensions as {@link ChunkPart#split}, list
   * dimensions by the chunks (inner chunks, when {@code chain} reads sharded chunks) their indices
   * fall in.
   *
   * @param allocator where a one-element probe comes from, for finding the inner chunks' order (the
   *     codecs before sharding may transpose)
   */
  static IndexLists of(
      Selection selection,
      ChunkGrid grid,
      CodecChain chain,
      int itemSize,
      BufferAllocator allocator) {
    int rank = selection.dims().size();
    int[] inner;
    try (ArrowBuf probe = allocator.buffer(Math.max(1, itemSize))) {
      inner = innerShape(chain, rank, itemSize, probe);
    }
    List<List<ChunkPart>> parts = new ArrayList<>(rank);
    long[][][] out = new long[rank][][];
    int[][][] at = new int[rank][][];
    for (int d = 0; d < rank; d++) {
      Selection.Dim dim = selection.dims().get(d);
      if (!dim.isList()) {
        parts.add(ChunkPart.split(dim.start(), dim.step(), dim.count(), grid.dim(d)));
        continue;
      }
      List<ChunkPart> dimParts = new ArrayList<>();
      List<long[]> outs = new ArrayList<>();
      List<int[]> ats = new ArrayList<>();
      splitList(dim.indices(), grid.dim(d), inner == null ? 0 : inner[d], dimParts, outs, ats);
      parts.add(dimParts);
      out[d] = outs.toArray(new long[0][]);
      at[d] = ats.toArray(new int[0][]);
    }
    return new IndexLists(parts, out, at);
  }

  /**
   * Groups the positions of {@code indices} by the chunk (and inner chunk of {@code inner}
   * elements, when positive) their index falls in, in chunk order: one part per group, its run from
   * the group's smallest index to its largest.
   */
  private static void splitList(
      long[] indices,
      ChunkGrid.Dim grid,
      int inner,
      List<ChunkPart> parts,
      List<long[]> outs,
      List<int[]> ats) {
    int[] order =
        IntStream.range(0, indices.length)
            .boxed()
            .sorted(Comparator.comparingLong(p -> indices[p]))
            .mapToInt(Integer::intValue)
            .toArray();
    int g = 0;
    while (g < order.length) {
      long first = indices[order[g]];
      long chunk = grid.chunkOf(first);
      long chunkStart = grid.start(chunk);
      long group = inner > 0 ? (first - chunkStart) / inner : 0;
      int end = g + 1;
      while (end < order.length) {
        long i = indices[order[end]];
        if (grid.chunkOf(i) != chunk || (inner > 0 && (i - chunkStart) / inner != group)) {
          break;
        }
        end++;
      }
      long last = indices[order[end - 1]];
      long[] out = new long[end - g];
      int[] at = new int[end - g];
      for (int k = g; k < end; k++) {
        out[k - g] = order[k];
        at[k - g] = (int) (indices[order[k]] - first);
      }
      parts.add(new ChunkPart(chunk, first - chunkStart, last - first + 1, 0));
      outs.add(out);
      ats.add(at);
      g = end;
    }
  }

  /**
   * The inner chunk shape of a sharded chain in the decoded array's dimension order, or null when
   * the chain does not read chunks in parts. A layout-only codec before sharding (transpose) may
   * reorder the dimensions: a probe view whose strides name its dimensions says how.
   */
  private static int[] innerShape(CodecChain chain, int rank, int itemSize, ArrowBuf probe) {
    if (chain == null || rank == 0) {
      return null;
    }
    PartialDecoder partial = chain.partialReader().orElse(null);
    if (partial == null) {
      return null;
    }
    int[] shape = chain.decodedSpec().shape();
    long[] stride = new long[rank];
    long[] one = new long[rank];
    for (int d = 0; d < rank; d++) {
      stride[d] = d;
      one[d] = 1;
    }
    SlabView encoded =
        chain.encodedView(
            new SlabView(probe, 0, itemSize, shape, new long[rank], one, one.clone(), stride));
    int[] encodedInner = partial.innerShape();
    int[] inner = new int[rank];
    for (int i = 0; i < rank; i++) {
      inner[(int) encoded.stride()[i]] = encodedInner[i];
    }
    return inner;
  }

  /** Per dimension, the parts of the chunks the selection touches. */
  List<List<ChunkPart>> parts() {
    return parts;
  }

  /**
   * Task {@code t}'s buffer of {@code bytes} (the product of its parts' counts, C order), made from
   * {@code allocator} on its first use.
   */
  synchronized ArrowBuf buffer(int t, long bytes, BufferAllocator allocator) {
    if (closed) {
      throw new IllegalStateException("the read is over");
    }
    return buffers.computeIfAbsent(t, k -> allocator.buffer(Math.max(1, bytes)));
  }

  /**
   * Copies task {@code t}'s decoded values (its {@code view}, C order) to their places in {@code
   * out} (byte strides {@code stride}), then frees the task's buffer.
   */
  void gather(int t, SlabView view, ArrowBuf out, long[] stride) {
    int rank = parts.size();
    long[][] outIndex = new long[rank][];
    long[][] runIndex = new long[rank][];
    int rest = t;
    for (int d = rank - 1; d >= 0; d--) {
      List<ChunkPart> dimParts = parts.get(d);
      int p = rest % dimParts.size();
      rest /= dimParts.size();
      ChunkPart part = dimParts.get(p);
      if (outPositions[d] != null) {
        outIndex[d] = outPositions[d][p];
        runIndex[d] = Arrays.stream(runOffsets[d][p]).asLongStream().toArray();
      } else if (d == rank - 1) {
        outIndex[d] = new long[] {part.outStart()}; // one run, below
        runIndex[d] = new long[] {0};
      } else {
        int n = Math.toIntExact(part.count());
        outIndex[d] = new long[n];
        runIndex[d] = new long[n];
        for (int i = 0; i < n; i++) {
          outIndex[d][i] = part.outStart() + i;
          runIndex[d][i] = i;
        }
      }
    }
    int itemSize = view.itemSize();
    int last = rank - 1;
    // a range as the last dimension is one run of count elements, contiguous on both sides
    long runBytes = outPositions[last] == null ? view.count()[last] * itemSize : itemSize;
    long src = view.target().memoryAddress() + view.offset();
    long dst = out.memoryAddress();
    int[] k = new int[rank];
    while (true) {
      long s = src;
      long o = dst;
      for (int d = 0; d < rank; d++) {
        s += runIndex[d][k[d]] * view.stride()[d];
        o += outIndex[d][k[d]] * stride[d];
      }
      MemoryUtil.copyMemory(s, o, runBytes);
      int d = last;
      while (d >= 0 && ++k[d] == outIndex[d].length) {
        k[d] = 0;
        d--;
      }
      if (d < 0) {
        break;
      }
    }
    release(t);
  }

  private synchronized void release(int t) {
    ArrowBuf buffer = buffers.remove(t);
    if (buffer != null) {
      buffer.close();
    }
  }

  /** Frees every buffer still held (a failed or cancelled read); later {@link #buffer}s fail. */
  @Override
  public synchronized void close() {
    closed = true;
    buffers.values().forEach(ArrowBuf::close);
    buffers.clear();
  }
}
