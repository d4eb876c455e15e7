package dev.zaro.arrow.metadata;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An array's chunk grid, one {@link Dim} per dimension: the v3 {@code regular} grid (v2's {@code
 * chunks} too) or the {@code rectilinear} grid of zarr-extensions, whose chunks have their own edge
 * lengths along each dimension. Each dimension is kept as runs of equal edges (never expanded), so
 * a run-length encoded dimension of a trillion chunks costs one entry. Immutable.
 */
public final class ChunkGrid {
  private final List<Dim> dims;
  private final boolean regular;

  private ChunkGrid(List<Dim> dims, boolean regular) {
    this.dims = List.copyOf(dims);
    this.regular = regular;
  }

  /** The regular grid of {@code chunkShape} over an array of {@code shape}. */
  public static ChunkGrid regular(int[] chunkShape, long[] shape) {
    List<Dim> dims = new ArrayList<>();
    for (int d = 0; d < chunkShape.length; d++) {
      long count = shape[d] == 0 ? 0 : (shape[d] + chunkShape[d] - 1) / chunkShape[d];
      dims.add(new Dim(shape[d], new long[] {chunkShape[d]}, new long[] {Math.max(count, 1)}));
    }
    return new ChunkGrid(dims, true);
  }

  /** A rectilinear grid of these dimensions (see {@link Dim#of}). */
  public static ChunkGrid rectilinear(List<Dim> dims) {
    return new ChunkGrid(dims, false);
  }

  /** True for the regular grid: every chunk has the same shape. */
  public boolean isRegular() {
    return regular;
  }

  /** The number of dimensions. */
  public int rank() {
    return dims.size();
  }

  /** How dimension {@code d} is cut into chunks. */
  public Dim dim(int d) {
    return dims.get(d);
  }

  /** The shape of the chunk at grid index {@code chunk} (edge chunks: their full stored shape). */
  public int[] chunkShape(long[] chunk) {
    int[] shape = new int[dims.size()];
    for (int d = 0; d < shape.length; d++) {
      shape[d] = dims.get(d).length(chunk[d]);
    }
    return shape;
  }

  /** Chunks covering the array (a product over dimensions). */
  public long chunkCount() {
    long n = 1;
    for (Dim d : dims) {
      n = Math.multiplyExact(n, d.chunkCount());
    }
    return n;
  }

  /**
   * One dimension's chunk edges as runs: {@code counts[r]} chunks of edge {@code edges[r]}. Only
   * the chunks that start inside the array count: chunks declared past its end (the rectilinear
   * grid allows them) are never read.
   */
  public static final class Dim {
    private final long size;
    private final long[] edges;
    private final long[] counts;

    /** Array index where run r starts, and the first chunk of run r. */
    private final long[] runStart;

    private final long[] runChunk;
    private final long chunkCount;

    private Dim(long size, long[] edges, long[] counts) {
      this.size = size;
      List<long[]> kept = new ArrayList<>();
      long at = 0;
      for (int r = 0; r < edges.length && (at < size || kept.isEmpty()); r++) {
        long n = counts[r];
        if (size > 0) {
          // chunks of this run that start before the end of the array
          n = Math.min(n, (size - at + edges[r] - 1) / edges[r]);
        }
        kept.add(new long[] {edges[r], n});
        at = satAdd(at, satMul(edges[r], n));
      }
      this.edges = kept.stream().mapToLong(k -> k[0]).toArray();
      this.counts = kept.stream().mapToLong(k -> k[1]).toArray();
      this.runStart = new long[this.edges.length];
      this.runChunk = new long[this.edges.length];
      long start = 0;
      long chunk = 0;
      for (int r = 0; r < this.edges.length; r++) {
        runStart[r] = start;
        runChunk[r] = chunk;
        start = satAdd(start, satMul(this.edges[r], this.counts[r]));
        chunk += this.counts[r];
      }
      this.chunkCount = size == 0 ? 0 : chunk;
    }

    /**
     * A dimension of {@code size} from runs of edges.
     *
     * @throws IllegalArgumentException if an edge or count is below 1, an edge exceeds {@code
     *     Integer.MAX_VALUE}, or the edges do not cover {@code size}
     */
    public static Dim of(long size, long[] edges, long[] counts) {
      if (edges.length != counts.length) {
        throw new IllegalArgumentException(
            edges.length + " edges for " + counts.length + " counts");
      }
      long covered = 0;
      for (int r = 0; r < edges.length; r++) {
        if (edges[r] < 1 || edges[r] > Integer.MAX_VALUE) {
          throw new IllegalArgumentException(
              "edge length " + edges[r] + " is not between 1 and " + Integer.MAX_VALUE);
        }
        if (counts[r] < 1) {
          throw new IllegalArgumentException("run count " + counts[r] + " is below 1");
        }
        covered = satAdd(covered, satMul(edges[r], counts[r]));
      }
      if (covered < size) {
        throw new IllegalArgumentException(
            "the edge lengths add up to " + covered + ", short of the dimension's " + size);
      }
      return new Dim(size, edges.clone(), counts.clone());
    }

    /** The array's length along this dimension. */
    public long size() {
      return size;
    }

    /** Chunks that start inside the array. */
    public long chunkCount() {
      return chunkCount;
    }

    /** The chunk holding array index {@code index} ({@code 0 <= index < size}). */
    public long chunkOf(long index) {
      int r = run(index);
      return runChunk[r] + (index - runStart[r]) / edges[r];
    }

    /** The array index where chunk {@code chunk} starts. */
    public long start(long chunk) {
      int r = runOfChunk(chunk);
      return runStart[r] + (chunk - runChunk[r]) * edges[r];
    }

    /** The edge length (stored extent) of chunk {@code chunk}. */
    public int length(long chunk) {
      return (int) edges[runOfChunk(chunk)];
    }

    /** The longest edge of any chunk. */
    public int maxLength() {
      long max = 0;
      for (long e : edges) {
        max = Math.max(max, e);
      }
      return (int) max;
    }

    /** True when every chunk has the same edge. */
    public boolean isRegular() {
      return edges.length == 1;
    }

    private int run(long index) {
      int a = 0;
      int b = runStart.length - 1;
      while (a < b) {
        int m = (a + b + 1) >>> 1;
        if (runStart[m] <= index) {
          a = m;
        } else {
          b = m - 1;
        }
      }
      return a;
    }

    private int runOfChunk(long chunk) {
      int a = 0;
      int b = runChunk.length - 1;
      while (a < b) {
        int m = (a + b + 1) >>> 1;
        if (runChunk[m] <= chunk) {
          a = m;
        } else {
          b = m - 1;
        }
      }
      return a;
    }

    /** The edges as JSON would write them: one integer when regular, else run pairs. */
    Object describe() {
      if (isRegular()) {
        return edges[0];
      }
      List<Object> out = new ArrayList<>();
      for (int r = 0; r < edges.length; r++) {
        out.add(counts[r] == 1 ? (Object) edges[r] : List.of(edges[r], counts[r]));
      }
      return out;
    }

    @Override
    public String toString() {
      return String.valueOf(describe());
    }
  }

  /**
   * Per dimension, the edges as zarr.json writes them: an integer, or edges and [edge, count] runs.
   */
  public List<Object> describe() {
    return dims.stream().map(Dim::describe).toList();
  }

  @Override
  public String toString() {
    if (regular) {
      return Arrays.toString(dims.stream().mapToLong(d -> d.edges[0]).toArray());
    }
    return "rectilinear " + dims;
  }

  private static long satMul(long a, long b) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    return hi != 0 || lo < 0 ? Long.MAX_VALUE : lo;
  }

  private static long satAdd(long a, long b) {
    long s = a + b;
    return s < 0 ? Long.MAX_VALUE : s;
  }
}
