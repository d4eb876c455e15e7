package dev.zaro.arrow.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.IntStream;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link SlabView#scatterFrom} and {@link SlabView#scatterRange} over random views: ranks 0 to 4,
 * element sizes 1 to 16, random starts, steps and counts (often a whole dimension, so trailing
 * dimensions merge into one run, up to the whole chunk in one copy), targets with and without
 * padding between rows and planes, at odd offsets, with and without byte swapping. Every target
 * byte is checked against the element the view's definition puts there, computed here by plain
 * index arithmetic from the source bytes; bytes outside the view must keep their sentinel.
 */
class SlabViewTest extends AllocatorTest {
  private static final byte SENTINEL = (byte) 0xA5;

  static IntStream seeds() {
    return IntStream.range(0, 200);
  }

  /** One random view with its element positions (target byte offsets) listed in C order. */
  @SuppressWarnings("ArrayRecordComponent") // a holder within this test, never compared
  private record Case(SlabView view, long[] srcElements, long[] dstBytes, int swapUnit) {}

  private static Case randomCase(Random rnd, ArrowBuf target, int itemSize, int rank) {
    int[] shape = new int[rank];
    long[] start = new long[rank];
    long[] step = new long[rank];
    long[] count = new long[rank];
    for (int d = 0; d < rank; d++) {
      shape[d] = 1 + rnd.nextInt(rank <= 2 ? 40 : 9);
      if (rnd.nextBoolean()) { // the whole dimension: trailing ones merge into one run
        count[d] = shape[d];
        step[d] = 1;
      } else {
        step[d] = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(3) : 1;
        start[d] = rnd.nextInt(shape[d]);
        long room = (shape[d] - 1 - start[d]) / step[d] + 1;
        count[d] = 1L + rnd.nextInt((int) room);
      }
    }
    // target strides: C order over the counts, sometimes spread out or padded between rows
    long[] stride = new long[rank];
    long s = rnd.nextInt(5) == 0 ? 2L * itemSize : itemSize;
    for (int d = rank - 1; d >= 0; d--) {
      stride[d] = s;
      long pad = rnd.nextInt(3) == 0 ? (long) itemSize * (1 + rnd.nextInt(3)) : 0;
      s = s * count[d] + pad;
    }
    long offset = rnd.nextInt(9);
    long last = offset + itemSize;
    for (int d = 0; d < rank; d++) {
      last += (count[d] - 1) * stride[d];
    }
    if (last > target.capacity()) {
      return null;
    }
    int swapUnit = rnd.nextInt(3) == 0 && itemSize > 1 ? itemSize / (rnd.nextBoolean() ? 1 : 2) : 0;
    SlabView view = new SlabView(target, offset, itemSize, shape, start, step, count, stride);
    long n = view.elementCount();
    long[] srcElements = new long[(int) n];
    long[] dstBytes = new long[(int) n];
    long[] idx = new long[rank];
    for (int e = 0; e < n; e++) {
      long src = 0;
      long dst = offset;
      for (int d = 0; d < rank; d++) {
        src = src * shape[d] + start[d] + idx[d] * step[d];
        dst += idx[d] * stride[d];
      }
      srcElements[e] = src;
      dstBytes[e] = dst;
      for (int d = rank - 1; d >= 0; d--) {
        if (++idx[d] < count[d]) {
          break;
        }
        idx[d] = 0;
      }
    }
    return new Case(view, srcElements, dstBytes, swapUnit);
  }

  /** The byte the view puts at byte {@code k} of an element taken from source element {@code e}. */
  private static byte expected(byte[] source, long e, int itemSize, int k, int swapUnit) {
    int b = k;
    if (swapUnit > 1) {
      int unit = k / swapUnit;
      b = unit * swapUnit + swapUnit - 1 - k % swapUnit;
    }
    return source[(int) (e * itemSize + b)];
  }

  private static void check(ArrowBuf target, Case c, byte[] source) {
    int itemSize = c.view().itemSize();
    byte[] want = new byte[(int) target.capacity()];
    Arrays.fill(want, SENTINEL);
    for (int e = 0; e < c.srcElements().length; e++) {
      for (int k = 0; k < itemSize; k++) {
        want[(int) (c.dstBytes()[e] + k)] =
            expected(source, c.srcElements()[e], itemSize, k, c.swapUnit());
      }
    }
    byte[] got = new byte[want.length];
    target.getBytes(0, got);
    assertArrayEquals(want, got, c.view() + ", swap unit " + c.swapUnit());
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void scatterMatchesIndexArithmetic(int seed) {
    Random rnd = new Random(seed);
    int[] sizes = {1, 2, 4, 8, 16, 3};
    int itemSize = sizes[rnd.nextInt(sizes.length)];
    int rank = rnd.nextInt(5);
    try (ArrowBuf target = allocator.buffer(1 << 16)) {
      Case c = null;
      while (c == null) {
        c = randomCase(rnd, target, itemSize, rank);
      }
      long chunkBytes = c.view().chunkBytes();
      byte[] source = new byte[(int) chunkBytes];
      rnd.nextBytes(source);
      try (ArrowBuf src = allocator.buffer(chunkBytes)) {
        src.setBytes(0, source);
        fillSentinel(target);
        c.view().scatterFrom(src, chunkBytes, c.swapUnit());
        check(target, c, source);

        // the same chunk arriving in random pieces through scatterRange
        fillSentinel(target);
        long elements = chunkBytes / itemSize;
        long first = 0;
        while (first < elements) {
          long piece = Math.min(elements - first, 1 + rnd.nextInt((int) Math.min(elements, 97)));
          c.view().scatterRange(src, first * itemSize, first, piece, c.swapUnit());
          first += piece;
        }
        check(target, c, source);
      }
    }
  }

  /**
   * A fill (a missing chunk's fill value) puts the element's bytes, in their order, at every
   * element the view addresses and nowhere else: item sizes with a store of their own (1, 2, 4, 8),
   * others and a zero fill, at random strides.
   */
  @ParameterizedTest
  @MethodSource("seeds")
  void fillPutsTheElementsBytesAtEveryAddress(int seed) {
    Random rnd = new Random(seed);
    int[] sizes = {1, 2, 4, 8, 16, 3};
    int itemSize = sizes[rnd.nextInt(sizes.length)];
    int rank = rnd.nextInt(5);
    try (ArrowBuf target = allocator.buffer(1 << 16)) {
      Case c = null;
      while (c == null) {
        c = randomCase(rnd, target, itemSize, rank);
      }
      byte[] element = new byte[itemSize];
      if (rnd.nextInt(4) > 0) {
        rnd.nextBytes(element); // else all zero
      }
      byte[] want = new byte[(int) target.capacity()];
      Arrays.fill(want, SENTINEL);
      for (long dst : c.dstBytes()) {
        System.arraycopy(element, 0, want, (int) dst, itemSize);
      }
      fillSentinel(target);
      c.view().fill(element);
      byte[] got = new byte[want.length];
      target.getBytes(0, got);
      assertArrayEquals(want, got, c.view() + ", fill " + Arrays.toString(element));
    }
  }

  /** A whole chunk into a target of its own shape is one run; a sub-box of it is not. */
  @ParameterizedTest
  @MethodSource("seeds")
  void wholeAndInteriorBoxes(int seed) {
    Random rnd = new Random(seed);
    int itemSize = 1 << rnd.nextInt(4);
    int[] shape = {1 + rnd.nextInt(12), 1 + rnd.nextInt(12), 1 + rnd.nextInt(70)};
    long chunkBytes = (long) shape[0] * shape[1] * shape[2] * itemSize;
    byte[] source = new byte[(int) chunkBytes];
    rnd.nextBytes(source);
    try (ArrowBuf src = allocator.buffer(chunkBytes);
        ArrowBuf target = allocator.buffer(chunkBytes * 8 + 64)) {
      src.setBytes(0, source);
      // the chunk placed in a larger C-order output (2x in each dimension) at an odd offset
      long[] count = {shape[0], shape[1], shape[2]};
      long[] stride = {4L * shape[1] * shape[2] * itemSize, 2L * shape[2] * itemSize, itemSize};
      long[] own = {count[1] * count[2] * itemSize, count[2] * itemSize, itemSize};
      for (boolean whole : new boolean[] {false, true}) {
        long[] st = whole ? own : stride;
        SlabView view =
            new SlabView(target, 7, itemSize, shape, new long[3], new long[] {1, 1, 1}, count, st);
        assertTrue(!whole || view.isWholeContiguous(), "the chunk's own layout");
        long[] srcElements = new long[(int) view.elementCount()];
        long[] dstBytes = new long[srcElements.length];
        int e = 0;
        for (int a = 0; a < shape[0]; a++) {
          for (int b = 0; b < shape[1]; b++) {
            for (int c = 0; c < shape[2]; c++, e++) {
              srcElements[e] = ((long) a * shape[1] + b) * shape[2] + c;
              dstBytes[e] = 7 + a * st[0] + b * st[1] + c * st[2];
            }
          }
        }
        fillSentinel(target);
        view.scatterFrom(src, chunkBytes, 0);
        check(target, new Case(view, srcElements, dstBytes, 0), source);
      }
    }
  }

  /**
   * A piece that is not inside the chunk, or whose bytes are not inside the source, is refused
   * before anything is read or written (the copy reads through raw addresses).
   */
  @ParameterizedTest
  @CsvSource({
    "0, -1, 10", // a negative first element
    "0, 0, -1", // a negative count
    "0, 20, 5", // past the chunk's 24 elements
    "0, 0, 25", // more elements than the chunk has
    "-8, 0, 4", // before the source
    "104, 0, 4", // past the source's 128 bytes: 104 + 4 * 8 > 128
  })
  void aPieceOutsideTheChunkOrTheSourceIsRefused(long sourceOffset, long first, long elements) {
    int[] shape = {2, 3, 4};
    try (ArrowBuf source = allocator.buffer(128); // a power of two: exactly that capacity
        ArrowBuf target = allocator.buffer(256)) {
      SlabView view = SlabView.whole(target, 0, 8, shape);
      fillSentinel(target);
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> view.scatterRange(source, sourceOffset, first, elements, 0));
      assertTrue(e.getMessage().contains("24-element chunk"), e.getMessage());
      byte[] after = new byte[(int) target.capacity()];
      target.getBytes(0, after);
      for (byte b : after) {
        assertEquals(SENTINEL, b, "the target was written");
      }
    }
  }

  private static void fillSentinel(ArrowBuf buf) {
    byte[] fill = new byte[(int) buf.capacity()];
    Arrays.fill(fill, SENTINEL);
    buf.setBytes(0, fill);
  }
}
