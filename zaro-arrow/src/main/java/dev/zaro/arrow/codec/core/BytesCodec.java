package dev.zaro.arrow.codec.core;

import dev.zaro.arrow.codec.ArrayToBytesCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * {@code bytes}: C-order elements in little or big endian. Values narrower than a byte (int2, int4,
 * uint2, uint4, float4/float6 bit patterns) sit in the low bits of their byte and the upper bits
 * mean nothing: decoding sign-extends (int) or clears (the rest) them. A big-endian struct swaps
 * each field by its own unit.
 */
public record BytesCodec(boolean bigEndian) implements ArrayToBytesCodec {

  static BytesCodec create(CodecSpec spec, ChunkSpec input, CodecRegistry registry) {
    CodecConfig config = new CodecConfig(spec).only("endian");
    String endian = config.string("endian", null);
    if (endian == null) {
      // a struct without endian is little endian (zarr-extensions' legacy "structured" rule)
      if (input.dataType().byteSize() > 1 && input.dataType().swapUnit() > 1) {
        throw config.error("configuration field 'endian' is required for " + input.dataType());
      }
      return new BytesCodec(false);
    }
    return switch (endian) {
      case "little" -> new BytesCodec(false);
      case "big" -> new BytesCodec(true);
      default -> throw config.error("endian must be \"little\" or \"big\", not \"" + endian + "\"");
    };
  }

  @Override
  public String name() {
    return "bytes";
  }

  @Override
  public long encodedSize(ChunkSpec spec) {
    return spec.byteSize();
  }

  @Override
  public boolean isIdentity(ChunkSpec spec) {
    return (!bigEndian || spec.dataType().swapUnit() == 1) && !spec.dataType().hasNarrowValues();
  }

  /**
   * Bytes swapped per unit when decoding (0: none), or -1 when elements need more than one swap
   * unit or a fix of narrow values, which only {@link #decodeInto} does.
   */
  @Override
  public int swapUnit(ChunkSpec spec) {
    if (isIdentity(spec)) {
      return 0;
    }
    return spec.dataType().hasNarrowValues() || spec.dataType().kind() == DataType.Kind.STRUCT
        ? -1
        : spec.dataType().swapUnit();
  }

  @Override
  public void decodeInto(
      ArrowBuf encoded, ChunkSpec spec, SlabView target, BufferAllocator allocator) {
    long length = encoded.writerIndex();
    if (length != spec.byteSize()) {
      throw new CodecException(
          "codec bytes: chunk has "
              + length
              + " bytes, expected "
              + spec.byteSize()
              + " for "
              + spec);
    }
    if (swapUnit(spec) >= 0) {
      target.scatterFrom(encoded, length, swapUnit(spec));
      return;
    }
    try (ArrowBuf fixed = allocator.buffer(Math.max(1, length))) {
      fixed.setBytes(0, encoded, 0, length);
      List<Unit> units = new ArrayList<>();
      units(spec.dataType(), 0, bigEndian, units);
      int itemSize = spec.dataType().byteSize();
      long base = fixed.memoryAddress();
      for (long e = 0; e < length; e += itemSize) {
        for (Unit u : units) {
          u.apply(base + e);
        }
      }
      fixed.writerIndex(length);
      target.scatterFrom(fixed, length, 0);
    }
  }

  /**
   * One fix within an element: reverse {@code swap} bytes at {@code offset} (when above 1), or make
   * the byte at {@code offset} canonical for its {@code narrow} type (when not null).
   */
  private record Unit(int offset, int swap, DataType narrow) {
    void apply(long element) {
      long a = element + offset;
      if (narrow != null) {
        MemoryUtil.putByte(a, narrow.canonicalByte(MemoryUtil.getByte(a)));
        return;
      }
      for (int i = 0; i < swap / 2; i++) {
        byte x = MemoryUtil.getByte(a + i);
        MemoryUtil.putByte(a + i, MemoryUtil.getByte(a + swap - 1 - i));
        MemoryUtil.putByte(a + swap - 1 - i, x);
      }
    }
  }

  /** The fixes one element of {@code type} at {@code offset} needs. */
  private static void units(DataType type, int offset, boolean bigEndian, List<Unit> out) {
    type.forEachValue(
        offset,
        (value, at) -> {
          if (value.valueBits() < value.bits()) {
            out.add(new Unit(at, 0, value));
            return;
          }
          int unit = value.swapUnit();
          for (int u = 0; bigEndian && unit > 1 && u < value.byteSize(); u += unit) {
            out.add(new Unit(at + u, unit, null));
          }
        });
  }
}
