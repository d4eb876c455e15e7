package dev.zaro.arrow.codec;

import java.util.Arrays;
import java.util.Objects;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Where the elements of one chunk go in an output buffer: for each dimension of the chunk array,
 * the chunk-local indices {@code start + i * step} ({@code i < count}) land at byte {@code offset +
 * sum(i * stride)} of {@code target}. Each chunk of a read gets its own view, disjoint from every
 * other, so chunks decode in parallel without locks.
 *
 * <p>The view does not own {@code target}.
 *
 * @param shape the full shape of the chunk array being viewed (its source strides)
 * @param stride target byte strides, one per dimension
 * @param heap where variable-length decoders keep element bytes; null for fixed-size types
 */
@SuppressWarnings("ArrayRecordComponent") // equals, hashCode and toString below use the contents
public record SlabView(
    ArrowBuf target,
    long offset,
    int itemSize,
    int[] shape,
    long[] start,
    long[] step,
    long[] count,
    long[] stride,
    VarHeap heap) {

  /** A view of fixed-size elements (no variable-length heap). */
  public SlabView(
      ArrowBuf target,
      long offset,
      int itemSize,
      int[] shape,
      long[] start,
      long[] step,
      long[] count,
      long[] stride) {
    this(target, offset, itemSize, shape, start, step, count, stride, null);
  }

  /**
   * Checks that every per-dimension array has the shape's rank and the region lies inside the
   * target.
   */
  public SlabView {
    int r = shape.length;
    if (start.length != r || step.length != r || count.length != r || stride.length != r) {
      throw new IllegalArgumentException("view arrays must all have rank " + r);
    }
    for (int d = 0; d < r; d++) {
      if (count[d] < 1
          || step[d] < 1
          || start[d] < 0
          || start[d] + (count[d] - 1) * step[d] >= shape[d]
          || stride[d] < 0) {
        throw new IllegalArgumentException(
            "view dimension "
                + d
                + " out of the chunk: start "
                + start[d]
                + " step "
                + step[d]
                + " count "
                + count[d]
                + " in "
                + shape[d]);
      }
    }
    long last = offset + itemSize;
    for (int d = 0; d < r; d++) {
      last += (count[d] - 1) * stride[d];
    }
    if (offset < 0 || last > target.capacity()) {
      throw new IllegalArgumentException(
          "view reaches byte " + last + " of a " + target.capacity() + "-byte target");
    }
  }

  /** A view of a whole chunk of {@code shape} written C-contiguously at {@code offset}. */
  public static SlabView whole(ArrowBuf target, long offset, int itemSize, int[] shape) {
    int r = shape.length;
    long[] start = new long[r];
    long[] step = new long[r];
    long[] count = new long[r];
    long[] stride = new long[r];
    long s = itemSize;
    for (int d = r - 1; d >= 0; d--) {
      step[d] = 1;
      count[d] = shape[d];
      stride[d] = s;
      s *= shape[d];
    }
    return new SlabView(target, offset, itemSize, shape, start, step, count, stride);
  }

  /** The same view with {@code heap} for variable-length elements. */
  public SlabView withHeap(VarHeap heap) {
    return new SlabView(target, offset, itemSize, shape, start, step, count, stride, heap);
  }

  /** The number of dimensions. */
  public int rank() {
    return shape.length;
  }

  /** The number of elements the view covers: the product of its counts. */
  public long elementCount() {
    long n = 1;
    for (long c : count) {
      n *= c;
    }
    return n;
  }

  /** Bytes of the selected elements ({@code elementCount() * itemSize}). */
  public long byteSize() {
    return elementCount() * itemSize;
  }

  /** Bytes of the whole chunk array ({@code prod(shape) * itemSize}). */
  public long chunkBytes() {
    long n = itemSize;
    for (int s : shape) {
      n *= s;
    }
    return n;
  }

  /**
   * The byte span of the C-order chunk array that holds every element the view selects: {from, to},
   * from the first selected element to the end of the last ({0, 0} when none is).
   */
  public long[] chunkSpan() {
    if (elementCount() == 0) {
      return new long[] {0, 0};
    }
    long first = 0;
    long last = 0;
    long s = 1;
    for (int d = rank() - 1; d >= 0; d--) {
      first += start[d] * s;
      last += (start[d] + (count[d] - 1) * step[d]) * s;
      s *= shape[d];
    }
    return new long[] {first * itemSize, (last + 1) * itemSize};
  }

  /**
   * True when the view takes the whole chunk and the target region is the chunk's own C-order
   * bytes: a decoder may then write straight into {@code target} at {@code offset}.
   */
  public boolean isWholeContiguous() {
    long s = itemSize;
    for (int d = rank() - 1; d >= 0; d--) {
      if (start[d] != 0
          || step[d] != 1
          || count[d] != shape[d]
          || (shape[d] > 1 && stride[d] != s)) {
        return false;
      }
      s *= shape[d];
    }
    return true;
  }

  /**
   * The same view with dimensions reordered: dimension {@code i} of the result is dimension {@code
   * order[i]} of this view (the transpose codec's encoded array).
   */
  public SlabView permute(int[] order) {
    int r = rank();
    int[] shape2 = new int[r];
    long[] start2 = new long[r];
    long[] step2 = new long[r];
    long[] count2 = new long[r];
    long[] stride2 = new long[r];
    for (int i = 0; i < r; i++) {
      shape2[i] = shape[order[i]];
      start2[i] = start[order[i]];
      step2[i] = step[order[i]];
      count2[i] = count[order[i]];
      stride2[i] = stride[order[i]];
    }
    return new SlabView(target, offset, itemSize, shape2, start2, step2, count2, stride2, heap);
  }

  /**
   * Copies the viewed elements out of a C-order chunk at {@code source} into the target.
   *
   * @param sourceLength bytes available at {@code source}; must be at least {@link #chunkBytes()}
   * @param swapUnit 0 to copy bytes as they are; else reverse the bytes of every unit of this size
   *     (big-endian data: the element size, or half of it for complex)
   */
  public void scatterFrom(ArrowBuf source, long sourceLength, int swapUnit) {
    if (sourceLength < chunkBytes() || source.capacity() < chunkBytes()) {
      throw new IllegalArgumentException(
          "source holds " + sourceLength + " bytes, the chunk needs " + chunkBytes());
    }
    long src = source.memoryAddress();
    long dst = target.memoryAddress() + offset;
    int r = rank();
    if (r == 0) {
      ElementCopy.run(itemSize, src, itemSize, dst, itemSize, 1, swapUnit);
      return;
    }
    long[] srcStride = new long[r];
    long s = itemSize;
    for (int d = r - 1; d >= 0; d--) {
      srcStride[d] = s;
      s *= shape[d];
    }
    long srcBase = src;
    for (int d = 0; d < r; d++) {
      srcBase += start[d] * srcStride[d];
    }
    int last = r - 1;
    if (swapUnit <= 1 && step[last] == 1 && stride[last] == itemSize) {
      copyRuns(srcBase, dst, srcStride);
      return;
    }
    long srcStep = step[last] * srcStride[last];
    long[] idx = new long[r];
    long so = srcBase;
    long dO = dst;
    while (true) {
      ElementCopy.run(itemSize, so, srcStep, dO, stride[last], count[last], swapUnit);
      int d = last - 1;
      while (d >= 0) {
        idx[d]++;
        so += step[d] * srcStride[d];
        dO += stride[d];
        if (idx[d] < count[d]) {
          break;
        }
        so -= count[d] * step[d] * srcStride[d];
        dO -= count[d] * stride[d];
        idx[d] = 0;
        d--;
      }
      if (d < 0) {
        return;
      }
    }
  }

  /**
   * Scatters part of a C-order chunk that arrives in pieces (streaming decompression): the chunk's
   * elements {@code [first, first + elements)} lie contiguously at {@code source} + {@code
   * sourceOffset}; those the view selects are copied to the target.
   *
   * @throws IllegalArgumentException when the elements are not all inside the chunk, or their bytes
   *     not all inside {@code source}
   */
  public void scatterRange(
      ArrowBuf source, long sourceOffset, long first, long elements, int swapUnit) {
    long chunkElements = itemSize == 0 ? 0 : chunkBytes() / itemSize;
    if (first < 0
        || elements < 0
        || first > chunkElements - elements
        || sourceOffset < 0
        || sourceOffset > source.capacity() - elements * itemSize) {
      throw new IllegalArgumentException(
          "elements ["
              + first
              + ", "
              + first
              + " + "
              + elements
              + ") of a "
              + chunkElements
              + "-element chunk, at byte "
              + sourceOffset
              + " of a "
              + source.capacity()
              + "-byte source");
    }
    int r = rank();
    long src = source.memoryAddress() + sourceOffset;
    long base = target.memoryAddress() + offset;
    if (r == 0) {
      if (first == 0 && elements >= 1) {
        ElementCopy.run(itemSize, src, itemSize, base, itemSize, 1, swapUnit);
      }
      return;
    }
    int last = r - 1;
    long rowLength = shape[last];
    long end = first + elements;
    long e = first;
    while (e < end) {
      long row = e / rowLength;
      long col0 = e - row * rowLength;
      long colEnd = Math.min(rowLength, col0 + (end - e));
      long dst = base;
      long rest = row;
      boolean selected = true;
      for (int d = last - 1; d >= 0 && selected; d--) {
        long idx = rest % shape[d];
        rest /= shape[d];
        long k = idx - start[d];
        if (k < 0 || k % step[d] != 0 || k / step[d] >= count[d]) {
          selected = false;
        } else {
          dst += (k / step[d]) * stride[d];
        }
      }
      if (selected) {
        long lo = Math.max(0, ceilDiv(col0 - start[last], step[last]));
        long hi = Math.min(count[last] - 1, Math.floorDiv(colEnd - 1 - start[last], step[last]));
        if (hi >= lo) {
          long firstCol = start[last] + lo * step[last];
          ElementCopy.run(
              itemSize,
              src + (row * rowLength + firstCol - first) * itemSize,
              step[last] * itemSize,
              dst + lo * stride[last],
              stride[last],
              hi - lo + 1,
              swapUnit);
        }
      }
      e = row * rowLength + colEnd;
    }
  }

  /**
   * {@link #scatterFrom}'s common case, elements copied as they are and the last dimension
   * contiguous in both the chunk and the target: the trailing dimensions that form one contiguous
   * block in both are copied as one run (a whole chunk into a target of the same shape: a single
   * copy), and the runs are walked by a plain loop over the dimension above them inside the
   * odometer over the rest (a row loop with no per-row index arithmetic: the scatter of a 64^3
   * uint16 chunk is 4,096 copies of 128 bytes). The row loop is a method of its own ({@link
   * ElementCopy#rows}): compiled so, it scattered 64^3 and 32^3 chunks into a 512^3 output 17% and
   * 28% faster than the general loop (benchmarks/jmh SlabViewBenchmarks); 8-byte loads and stores
   * instead of the copy call were not faster for these 64- and 128-byte rows.
   */
  private void copyRuns(long srcBase, long dst, long[] srcStride) {
    int inner = rank() - 1;
    long run = count[inner] * itemSize;
    while (inner > 0
        && step[inner - 1] == 1
        && srcStride[inner - 1] == run
        && stride[inner - 1] == run) {
      inner--;
      run *= count[inner];
    }
    int outer = inner - 1;
    if (outer < 0) {
      MemoryUtil.copyMemory(srcBase, dst, run);
      return;
    }
    long srcStep = step[outer] * srcStride[outer];
    long dstStep = stride[outer];
    int n = (int) count[outer]; // at most the chunk's extent, an int
    long[] idx = new long[outer];
    long so = srcBase;
    long dO = dst;
    while (true) {
      ElementCopy.rows(so, srcStep, dO, dstStep, n, run);
      int k = outer - 1;
      while (k >= 0) {
        idx[k]++;
        so += step[k] * srcStride[k];
        dO += stride[k];
        if (idx[k] < count[k]) {
          break;
        }
        so -= count[k] * step[k] * srcStride[k];
        dO -= count[k] * stride[k];
        idx[k] = 0;
        k--;
      }
      if (k < 0) {
        return;
      }
    }
  }

  private static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }

  /** Writes {@code element} (one element's bytes) into every viewed position of the target. */
  public void fill(byte[] element) {
    if (element.length != itemSize) {
      throw new IllegalArgumentException(
          "fill element has " + element.length + " bytes, not " + itemSize);
    }
    boolean zero = true;
    for (byte b : element) {
      zero &= b == 0;
    }
    long dst = target.memoryAddress() + offset;
    int r = rank();
    if (r == 0) {
      ElementCopy.put(dst, element);
      return;
    }
    int last = r - 1;
    long[] idx = new long[r];
    long dO = dst;
    while (true) {
      if (zero && stride[last] == itemSize) {
        MemoryUtil.setMemory(dO, count[last] * itemSize, (byte) 0);
      } else {
        ElementCopy.fill(dO, stride[last], count[last], element);
      }
      int d = last - 1;
      while (d >= 0) {
        idx[d]++;
        dO += stride[d];
        if (idx[d] < count[d]) {
          break;
        }
        dO -= count[d] * stride[d];
        idx[d] = 0;
        d--;
      }
      if (d < 0) {
        return;
      }
    }
  }

  /** Views are equal when they select the same elements of the same target the same way. */
  @Override
  public boolean equals(Object o) {
    return o instanceof SlabView v
        && target.equals(v.target)
        && offset == v.offset
        && itemSize == v.itemSize
        && Arrays.equals(shape, v.shape)
        && Arrays.equals(start, v.start)
        && Arrays.equals(step, v.step)
        && Arrays.equals(count, v.count)
        && Arrays.equals(stride, v.stride)
        && Objects.equals(heap, v.heap);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        target,
        offset,
        itemSize,
        Arrays.hashCode(shape),
        Arrays.hashCode(start),
        Arrays.hashCode(step),
        Arrays.hashCode(count),
        Arrays.hashCode(stride),
        heap);
  }

  @Override
  public String toString() {
    return "SlabView[offset "
        + offset
        + ", shape "
        + Arrays.toString(shape)
        + ", start "
        + Arrays.toString(start)
        + ", step "
        + Arrays.toString(step)
        + ", count "
        + Arrays.toString(count)
        + "]";
  }
}
