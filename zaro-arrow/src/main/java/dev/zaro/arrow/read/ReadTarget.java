package dev.zaro.arrow.read;

import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.codec.VarHeap;
import dev.zaro.arrow.codec.internal.ChunkPart;
import dev.zaro.arrow.exec.Budget;
import dev.zaro.arrow.metadata.ChunkGrid;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Where one read's chunks go: the output, its strides, the per-dimension chunk parts; and how many
 * of its threads are running a chunk (the rest may help decode one shard's inner chunks). With
 * index lists ({@code lists} not null), each task decodes into its own buffer, gathered into the
 * output after. A task is one chunk the read touches, numbered in C order over the parts.
 */
@SuppressWarnings("ArrayRecordComponent") // a read's private carrier, never compared
record ReadTarget(
    ArrowBuf out,
    int itemSize,
    long[] stride,
    long[] step,
    List<List<ChunkPart>> parts,
    VarHeap heap,
    byte[] fill,
    Budget budget,
    ReadStats stats,
    BufferAllocator scratch,
    IndexLists lists) {

  /**
   * Where task {@code t} reads: its chunk, the chunk's shape, the view of the output, and whether
   * the view takes every element of the chunk that lies inside the array.
   */
  @SuppressWarnings("ArrayRecordComponent") // a read's private carrier, never compared
  record TaskView(long[] chunkIndex, int[] chunkShape, SlabView view, boolean whole) {}

  /** The chunk index of task {@code task}: C order over the per-dimension chunk parts. */
  static long[] chunkIndexOf(List<List<ChunkPart>> parts, int task) {
    long[] chunkIndex = new long[parts.size()];
    int rest = task;
    for (int d = parts.size() - 1; d >= 0; d--) {
      List<ChunkPart> dimParts = parts.get(d);
      chunkIndex[d] = dimParts.get(rest % dimParts.size()).chunk();
      rest /= dimParts.size();
    }
    return chunkIndex;
  }

  /** Where task {@code task} reads, on the array's chunk grid {@code grid}. */
  TaskView taskView(ChunkGrid grid, int task) {
    long[] stride = this.stride;
    int rank = parts.size();
    long[] chunkIndex = new long[rank];
    long[] start = new long[rank];
    long[] count = new long[rank];
    long offset = 0;
    int rest = task;
    for (int d = rank - 1; d >= 0; d--) {
      List<ChunkPart> dimParts = parts.get(d);
      ChunkPart part = dimParts.get(rest % dimParts.size());
      rest /= dimParts.size();
      chunkIndex[d] = part.chunk();
      start[d] = part.localStart();
      count[d] = part.count();
      offset += part.outStart() * stride[d];
    }
    int[] chunkShape = grid.chunkShape(chunkIndex);
    boolean whole = true;
    for (int d = 0; d < rank && whole; d++) {
      var dim = grid.dim(d);
      long inside = Math.min(chunkShape[d], dim.size() - dim.start(chunkIndex[d]));
      whole = start[d] == 0 && (step[d] == 1 || count[d] == 1) && count[d] == inside;
    }
    ArrowBuf into = out;
    if (lists != null) {
      // the task's own buffer, C order over its counts; gathered into the output after decoding
      offset = 0;
      stride = new long[rank];
      long s = itemSize;
      for (int d = rank - 1; d >= 0; d--) {
        stride[d] = s;
        s *= count[d];
      }
      into = lists.buffer(task, s, scratch);
    }
    SlabView view =
        new SlabView(into, offset, itemSize, chunkShape, start, step, count, stride, heap);
    return new TaskView(chunkIndex, chunkShape, view, whole);
  }
}
