package dev.zaro.arrow.codec;

import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.metadata.CodecSpec;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/** {@code bytes}: C-order elements in little or big endian. */
public record BytesCodec(boolean bigEndian) implements ArrayToBytesCodec {

  static BytesCodec create(CodecSpec spec, ChunkSpec input, CodecRegistry registry) {
    CodecConfig config = new CodecConfig(spec).only("endian");
    String endian = config.string("endian", null);
    if (endian == null) {
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
    return !bigEndian || spec.dataType().swapUnit() == 1;
  }

  /** Bytes swapped per unit when decoding (0: none). */
  public int swapUnit(ChunkSpec spec) {
    return isIdentity(spec) ? 0 : spec.dataType().swapUnit();
  }

  @Override
  public void decodeInto(ArrowBuf encoded, ChunkSpec spec, SlabView target, BufferAllocator allocator) {
    long length = encoded.writerIndex();
    if (length != spec.byteSize()) {
      throw new CodecException("codec bytes: chunk has " + length + " bytes, expected "
          + spec.byteSize() + " for " + spec);
    }
    target.scatterFrom(encoded, length, isIdentity(spec) ? 0 : spec.dataType().swapUnit());
  }
}
