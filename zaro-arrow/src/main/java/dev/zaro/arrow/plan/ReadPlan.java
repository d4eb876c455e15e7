package dev.zaro.arrow.plan;

import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.ChunkGrid;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * A read planned arithmetically and lazily over an array's chunk grid (its shards, when the array
 * is sharded: the outer grid is what the store holds as objects). No list of every chunk is ever
 * built: a plan keeps the selection and the grid, and counts, cuts and walks them with integer
 * arithmetic, so an array of ten million chunks yields its first piece at once.
 *
 * <p>Split policies sit on top: {@link #split(long)} cuts by decoded bytes (Flight endpoints, Spark
 * partitions); {@link #pieces(long)} yields the same pieces one at a time. Every piece is itself a
 * {@link Selection} of the array, so it serializes as its {@link Selection#canonical()} text and
 * plans again on the other side. An index list is cut by positions of the list, at the positions
 * where its index moves to another chunk. See docs/ARCHITECTURE.md, "One read plan".
 */
public final class ReadPlan {
  private final ArrayMetadata metadata;
  private final Selection selection;
  private final int itemSize;
  private final long[] counts;

  private ReadPlan(ArrayMetadata metadata, Selection selection) {
    if (selection.dims().size() != metadata.rank()) {
      throw new IllegalArgumentException(
          "selection '"
              + selection
              + "' has "
              + selection.dims().size()
              + " dimensions; the array has "
              + metadata.rank());
    }
    this.metadata = metadata;
    this.selection = selection;
    this.itemSize = metadata.dataType().byteSize();
    this.counts = selection.counts();
  }

  /** Plans {@code selection} of an array with {@code metadata}. */
  public static ReadPlan of(ArrayMetadata metadata, Selection selection) {
    return new ReadPlan(metadata, selection);
  }

  /** The selection this plan covers. */
  public Selection selection() {
    return selection;
  }

  /** The array the selection is of. */
  public ArrayMetadata metadata() {
    return metadata;
  }

  /** Bytes of the selection's decoded values (elements times the item size). */
  public long decodedBytes() {
    return Math.multiplyExact(selection.size(), itemSize);
  }

  /**
   * Chunks (shards, for a sharded array) the selection touches: a product of per-dimension counts.
   */
  public long chunkCount() {
    long n = 1;
    for (int d = 0; d < counts.length; d++) {
      n = Math.multiplyExact(n, chunksTouched(d, 0, counts[d]));
    }
    return n;
  }

  /** Chunks of dimension {@code d} that selected indices {@code [from, from + count)} fall in. */
  long chunksTouched(int d, long from, long count) {
    if (count == 0) {
      return 0;
    }
    Selection.Dim dim = selection.dims().get(d);
    ChunkGrid.Dim grid = metadata.chunkGrid().dim(d);
    if (dim.isList()) {
      // an index list may be unsorted and hold duplicates: count the distinct chunks
      long[] chunks = new long[Math.toIntExact(count)];
      for (int i = 0; i < chunks.length; i++) {
        chunks[i] = grid.chunkOf(dim.index(from + i));
      }
      return Arrays.stream(chunks).distinct().count();
    }
    long first = grid.chunkOf(dim.start() + from * dim.step());
    long last = grid.chunkOf(dim.start() + (from + count - 1) * dim.step());
    if ((grid.isRegular() && dim.step() <= grid.length(0)) || dim.step() == 1) {
      return last - first + 1;
    }
    // steps longer than a chunk may skip chunks: count the distinct chunks one run at a time
    long n = 0;
    long k = from;
    while (k < from + count) {
      n++;
      k = nextBoundary(d, k);
    }
    return n;
  }

  /**
   * The first selected index of dimension {@code d} after {@code k} that lies in another chunk than
   * index {@code k} does (or the dimension's count). For an index list: the next position of the
   * list whose index lies in another chunk (an unsorted list may come back to a chunk later).
   */
  long nextBoundary(int d, long k) {
    Selection.Dim dim = selection.dims().get(d);
    ChunkGrid.Dim grid = metadata.chunkGrid().dim(d);
    if (dim.isList()) {
      long chunk = grid.chunkOf(dim.index(k));
      long next = k + 1;
      while (next < counts[d] && grid.chunkOf(dim.index(next)) == chunk) {
        next++;
      }
      return next;
    }
    long index = dim.start() + k * dim.step();
    long chunk = grid.chunkOf(index);
    long chunkEnd = grid.start(chunk) + grid.length(chunk);
    long next = (chunkEnd - dim.start() + dim.step() - 1) / dim.step();
    return Math.min(counts[d], Math.max(k + 1, next));
  }

  /**
   * Cuts the plan into pieces of about {@code targetBytes} decoded bytes each, on chunk boundaries,
   * in C order; together they cover the selection exactly once. A piece never cuts a chunk, so a
   * chunk larger than the target is a piece of its own. Pieces are as coarse as the target allows:
   * whole runs of the first dimension's chunks when they fit, else the next dimension is cut too.
   *
   * @return the pieces; an empty selection gives none
   */
  public List<Selection> split(long targetBytes) {
    List<Selection> out = new ArrayList<>();
    pieces(targetBytes).forEachRemaining(out::add);
    return out;
  }

  /**
   * Cuts the plan along its first kept dimension only (the first of the result's shape: leading
   * dimensions dropped by an integer index hold one index each), every other dimension whole: the
   * policy of the tensor layout's row groups (Flight endpoints, streamed blocks). A piece holds
   * whole runs of that dimension's chunks while they fit {@code targetBytes}, and at most {@code
   * maxRows} of its indices: only a chunk run longer than {@code maxRows} is cut inside a chunk. A
   * selection with every dimension dropped (or a 0-d one) is one piece.
   *
   * @return the pieces in order; an empty selection gives one empty piece
   */
  public List<Selection> splitFirst(long targetBytes, long maxRows) {
    if (targetBytes < 1 || maxRows < 1) {
      throw new IllegalArgumentException(
          "target bytes and rows must be positive, not " + targetBytes + ", " + maxRows);
    }
    List<Selection> out = new ArrayList<>();
    int d = 0;
    while (d < counts.length && selection.dims().get(d).dropped()) {
      d++;
    }
    if (d == counts.length || selection.size() == 0) {
      out.add(selection);
      return out;
    }
    long rowBytes = Math.max(1, decodedBytes() / counts[d]);
    long from = 0;
    while (from < counts[d]) {
      long to = Math.min(nextBoundary(d, from), from + Math.min(maxRows, counts[d]));
      while (to < counts[d]) {
        long next = nextBoundary(d, to);
        if (saturatingMultiply(next - from, rowBytes) > targetBytes || next - from > maxRows) {
          break;
        }
        to = next;
      }
      out.add(selection.restrict(d, from, to - from));
      from = to;
    }
    return out;
  }

  /** {@link #split(long)} one piece at a time, computed as it is asked for. */
  public Iterator<Selection> pieces(long targetBytes) {
    if (targetBytes < 1) {
      throw new IllegalArgumentException("target bytes must be positive, not " + targetBytes);
    }
    return new Pieces(targetBytes);
  }

  /**
   * Walks the pieces depth first: {@code from[d]}/{@code to[d]} is the current range of selected
   * indices of dimension d; dimensions before {@code depth} are fixed to one chunk run each, the
   * dimension {@code depth} advances by groups of chunk runs that fit the target, and the
   * dimensions after it are whole.
   */
  private final class Pieces implements Iterator<Selection> {
    private final long target;
    private final int rank = counts.length;
    private final long[] from = new long[rank];
    private final long[] to = new long[rank];

    /** Bytes of one selected index of dimension d with every later dimension whole. */
    private final long[] sliceBytes = new long[rank + 1];

    private int depth = -1;
    private boolean done;

    Pieces(long target) {
      this.target = target;
      sliceBytes[rank] = itemSize;
      for (int d = rank - 1; d >= 0; d--) {
        sliceBytes[d] = saturatingMultiply(sliceBytes[d + 1], counts[d]);
      }
      done = selection.size() == 0;
      if (!done && rank == 0) {
        depth = 0;
      } else if (!done) {
        descend(0, 0);
      }
    }

    /**
     * Starts dimension d at selected index k; cuts deeper while one chunk run exceeds the target.
     */
    private void descend(int d, long k) {
      while (true) {
        from[d] = k;
        long run = nextBoundary(d, k);
        if (d < rank - 1
            && saturatingMultiply(saturatingMultiply(run - k, prefix(d)), sliceBytes[d + 1])
                > target) {
          to[d] = run;
          d++;
          k = 0;
          continue;
        }
        depth = d;
        to[d] = grow(d, k);
        return;
      }
    }

    /** The end of a group of whole chunk runs of dimension d starting at k that fits the target. */
    private long grow(int d, long k) {
      long end = nextBoundary(d, k);
      long unit = saturatingMultiply(prefix(d), sliceBytes[d + 1]);
      while (end < counts[d]) {
        long next = nextBoundary(d, end);
        if (saturatingMultiply(next - k, unit) > target) {
          break;
        }
        end = next;
      }
      return end;
    }

    /** Selected indices in the fixed ranges of the dimensions before d. */
    private long prefix(int d) {
      long n = 1;
      for (int e = 0; e < d; e++) {
        n *= to[e] - from[e];
      }
      return n;
    }

    @Override
    public boolean hasNext() {
      return !done;
    }

    @Override
    public Selection next() {
      if (done) {
        throw new NoSuchElementException();
      }
      Selection piece = current();
      advance();
      return piece;
    }

    private Selection current() {
      List<Selection.Dim> dims = new ArrayList<>(rank);
      for (int d = 0; d < rank; d++) {
        Selection.Dim s = selection.dims().get(d);
        long lo = d <= depth ? from[d] : 0;
        long hi = d <= depth ? to[d] : counts[d];
        dims.add(s.positions(lo, hi - lo));
      }
      return Selection.of(dims);
    }

    private void advance() {
      if (rank == 0) {
        done = true;
        return;
      }
      for (int d = depth; d >= 0; d--) {
        if (to[d] < counts[d]) {
          long k = to[d];
          if (d == depth) {
            from[d] = k;
            to[d] = grow(d, k);
          } else {
            from[d] = k;
            to[d] = nextBoundary(d, k);
            descend(d + 1, 0);
          }
          return;
        }
      }
      done = true;
    }
  }

  private static long saturatingMultiply(long a, long b) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    return hi != 0 || lo < 0 ? Long.MAX_VALUE : lo;
  }
}
