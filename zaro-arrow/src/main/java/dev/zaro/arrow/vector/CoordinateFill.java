package dev.zaro.arrow.vector;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.plan.Selection;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;

/**
 * The writing of a coordinate column's rows for a block of the table layout ({@link
 * CoordinateColumns}): each row the coordinate's value at the row's position, copied in runs of one
 * value or of consecutive values, for fixed-width and variable-width vectors alike.
 */
final class CoordinateFill {
  private CoordinateFill() {}

  /**
   * Writes rows {@code [first, first + rows)} of {@code block} into {@code dst}: row r takes the
   * value of {@code src} at {@code sum over d of (offset_d + k_d) * stride_d}, k_d being row r's
   * position along dimension d of {@code block} and offset_d the block's start along d within
   * {@code selection}. Rows come in runs of one value (the trailing dimensions the coordinate
   * lacks) or of consecutive values (trailing dimensions in the coordinate's own order), each
   * copied at once.
   */
  static void fill(
      FieldVector dst,
      FieldVector src,
      long[] stride,
      Selection selection,
      Selection block,
      long first,
      long rows) {
    int rank = block.dims().size();
    long[] counts = block.counts();
    long[] inner = new long[rank];
    long base = 0;
    for (int d = rank - 1; d >= 0; d--) {
      inner[d] = d == rank - 1 ? 1 : inner[d + 1] * counts[d + 1];
    }
    for (int d = 0; d < rank; d++) {
      if (stride[d] != 0) {
        // a block starts where the selection does, but along the dimension the plan cuts
        Selection.Dim b = block.dims().get(d);
        Selection.Dim s = selection.dims().get(d);
        base += CoordinateColumns.offset(s, b) * stride[d];
      }
    }
    // the run: trailing dimensions the coordinate lacks (one value), else the trailing dimensions
    // laid out as in the coordinate (consecutive values)
    int t = rank;
    long run = 1;
    while (t > 0 && stride[t - 1] == 0) {
      run *= counts[--t];
    }
    boolean constant = run > 1;
    if (!constant) {
      while (t > 0 && stride[t - 1] == run) {
        run *= counts[--t];
      }
    }
    int n = Math.toIntExact(rows);
    Writer w = Writer.of(dst, src, n);
    long r = first;
    int out = 0;
    while (out < n) {
      long within = r % Math.max(1, run);
      long len = Math.min(Math.max(1, run) - within, n - out);
      long at = base;
      for (int d = 0; d < t; d++) {
        at += ((r - within) / inner[d] % counts[d]) * stride[d];
      }
      if (constant) {
        w.repeat(at, len, out);
      } else {
        w.range(at + within, len, out);
      }
      r += len;
      out += (int) len;
    }
    w.finish(n);
    dst.setValueCount(n);
  }

  /** Copies values of a source vector into rows of a destination vector of the same type. */
  private interface Writer {
    /** {@code n} rows from {@code out} on, each the value at {@code index}. */
    void repeat(long index, long n, int out);

    /** {@code n} rows from {@code out} on, the values at {@code index, index + 1, ...}. */
    void range(long index, long n, int out);

    /** Called once every row is written. */
    default void finish(int rows) {}

    static Writer of(FieldVector dst, FieldVector src, int rows) {
      if (dst instanceof BaseFixedWidthVector f && !(dst instanceof BitVector)) {
        return new FixedWidth(f, (BaseFixedWidthVector) src, rows);
      }
      if (dst instanceof BaseVariableWidthVector v) {
        return new VariableWidth(v, (BaseVariableWidthVector) src, rows);
      }
      dst.setInitialCapacity(rows);
      dst.allocateNew();
      return new Writer() {
        @Override
        public void repeat(long index, long n, int out) {
          for (int i = 0; i < n; i++) {
            dst.copyFromSafe((int) index, out + i, src);
          }
        }

        @Override
        public void range(long index, long n, int out) {
          for (int i = 0; i < n; i++) {
            dst.copyFromSafe((int) index + i, out + i, src);
          }
        }
      };
    }
  }

  /** Fixed-width values: memory copies, the validity bit by bit only where the source has nulls. */
  private static final class FixedWidth implements Writer {
    private final BaseFixedWidthVector dst;
    private final BaseFixedWidthVector src;
    private final int width;
    private final boolean nulls;

    FixedWidth(BaseFixedWidthVector dst, BaseFixedWidthVector src, int rows) {
      this.dst = dst;
      this.src = src;
      this.width = src.getTypeWidth();
      this.nulls = src.getNullCount() > 0;
      dst.allocateNew(Math.max(1, rows));
      if (!nulls) {
        MemoryUtil.setMemory(dst.getValidityBufferAddress(), (rows + 7) / 8, (byte) 0xff);
      }
    }

    @Override
    public void repeat(long index, long n, int out) {
      long to = dst.getDataBufferAddress() + (long) out * width;
      MemoryUtil.copyMemory(src.getDataBufferAddress() + index * width, to, width);
      for (long filled = width, total = n * width; filled < total; ) {
        long m = Math.min(filled, total - filled);
        MemoryUtil.copyMemory(to, to + filled, m);
        filled += m;
      }
      if (nulls && !src.isNull((int) index)) {
        for (int i = 0; i < n; i++) {
          BitVectorHelper.setBit(dst.getValidityBuffer(), out + i);
        }
      }
    }

    @Override
    public void range(long index, long n, int out) {
      MemoryUtil.copyMemory(
          src.getDataBufferAddress() + index * width,
          dst.getDataBufferAddress() + (long) out * width,
          n * width);
      for (int i = 0; nulls && i < n; i++) {
        if (!src.isNull((int) index + i)) {
          BitVectorHelper.setBit(dst.getValidityBuffer(), out + i);
        }
      }
    }
  }

  /**
   * Variable-width values (4-byte offsets): a run of one value is its bytes copied once then
   * doubled in place, a run of consecutive values one copy of their bytes; offsets are written row
   * by row.
   */
  private static final class VariableWidth implements Writer {
    private final BaseVariableWidthVector dst;
    private final BaseVariableWidthVector src;
    private final boolean nulls;

    /** The data bytes written so far. */
    private long end;

    VariableWidth(BaseVariableWidthVector dst, BaseVariableWidthVector src, int rows) {
      this.dst = dst;
      this.src = src;
      this.nulls = src.getNullCount() > 0;
      dst.allocateNew(Math.max(1, Math.min(src.getDataBuffer().writerIndex(), 1 << 20)), rows);
      MemoryUtil.putInt(dst.getOffsetBufferAddress(), 0);
      if (!nulls) {
        MemoryUtil.setMemory(dst.getValidityBufferAddress(), (rows + 7) / 8, (byte) 0xff);
      }
    }

    private long offset(long index) {
      return MemoryUtil.getInt(src.getOffsetBufferAddress() + index * 4) & 0xffffffffL;
    }

    private long reserve(long bytes) {
      if (end + bytes > Integer.MAX_VALUE) {
        throw new ZaroException(
            ErrorKind.INVALID_ARGUMENT,
            "a coordinate column of one batch exceeds 2 GiB of values; use fewer batch rows");
      }
      while (dst.getDataBuffer().capacity() < end + bytes) {
        dst.reallocDataBuffer(end + bytes);
      }
      return dst.getDataBufferAddress() + end;
    }

    @Override
    public void repeat(long index, long n, int out) {
      long from = offset(index);
      long length = offset(index + 1) - from;
      long to = reserve(n * length);
      if (length > 0) {
        MemoryUtil.copyMemory(src.getDataBufferAddress() + from, to, length);
        for (long filled = length, total = n * length; filled < total; ) {
          long m = Math.min(filled, total - filled);
          MemoryUtil.copyMemory(to, to + filled, m);
          filled += m;
        }
      }
      boolean valid = nulls && !src.isNull((int) index);
      long offsets = dst.getOffsetBufferAddress() + (long) out * 4;
      for (int i = 0; i < n; i++) {
        MemoryUtil.putInt(offsets + (i + 1) * 4L, (int) (end + (i + 1) * length));
        if (valid) {
          BitVectorHelper.setBit(dst.getValidityBuffer(), out + i);
        }
      }
      end += n * length;
    }

    @Override
    public void range(long index, long n, int out) {
      long from = offset(index);
      long bytes = offset(index + n) - from;
      long to = reserve(bytes);
      MemoryUtil.copyMemory(src.getDataBufferAddress() + from, to, bytes);
      long offsets = dst.getOffsetBufferAddress() + (long) out * 4;
      for (int i = 0; i < n; i++) {
        MemoryUtil.putInt(offsets + (i + 1) * 4L, (int) (end + offset(index + i + 1) - from));
        if (nulls && !src.isNull((int) index + i)) {
          BitVectorHelper.setBit(dst.getValidityBuffer(), out + i);
        }
      }
      end += bytes;
    }

    @Override
    public void finish(int rows) {
      dst.setLastSet(rows - 1);
    }
  }
}
