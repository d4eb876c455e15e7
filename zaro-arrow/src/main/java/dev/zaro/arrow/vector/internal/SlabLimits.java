package dev.zaro.arrow.vector.internal;

import dev.zaro.arrow.error.SlabTooLargeException;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.ZarrArray;
import dev.zaro.arrow.vector.TensorReader;
import org.apache.arrow.memory.BufferAllocator;

/**
 * What a one-slab read may be: no larger than its allocator can still hand out, nor than one Arrow
 * vector can hold (2^31 - 1 values). {@code Zaro.read} checks a selection here before allocating
 * anything; the streaming reads ({@code readTensor}, {@code readTable}) have no such limit.
 */
public final class SlabLimits {
  private SlabLimits() {}

  /**
   * Refuses a one-slab read that cannot fit its allocator or one Arrow vector.
   *
   * @throws SlabTooLargeException naming the selection, the array, the size and the limit, and
   *     saying how to stream it instead
   */
  public static void check(ZarrArray array, Selection selection, BufferAllocator allocator) {
    DataType type = array.metadata().dataType();
    long elements = selection.size();
    long values = saturatingMultiply(elements, ArrowTypes.valuesPerElement(type));
    long bytes = saturatingMultiply(elements, type.byteSize());
    long room = allocator.getHeadroom();
    String what = "selection '" + selection + "' of array '/" + array.path() + "'";
    String stream =
        "; read it in parts, or stream it: Zaro.readTensor (tensor layout) or Zaro.readTable"
            + " (table layout), or `zaro read --out` on the command line, which write record"
            + " batches of bounded size";
    if (bytes > room) {
      throw new SlabTooLargeException(
          what
              + " is a slab of "
              + bytes
              + " bytes; its allocator '"
              + allocator.getName()
              + "' may allocate "
              + room
              + " more (its limit is "
              + allocator.getLimit()
              + " bytes)"
              + stream,
          bytes,
          room);
    }
    if (values > TensorReader.MAX_VECTOR_VALUES) {
      throw new SlabTooLargeException(
          what
              + " is a slab of "
              + bytes
              + " bytes, "
              + values
              + " values: more than one Arrow vector can hold ("
              + TensorReader.MAX_VECTOR_VALUES
              + " values)"
              + stream,
          bytes,
          TensorReader.MAX_VECTOR_VALUES);
    }
  }

  private static long saturatingMultiply(long a, long b) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    return hi != 0 || lo < 0 ? Long.MAX_VALUE : lo;
  }
}
