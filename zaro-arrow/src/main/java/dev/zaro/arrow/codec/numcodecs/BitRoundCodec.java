package dev.zaro.arrow.codec.numcodecs;

import dev.zaro.arrow.codec.ArrayToArrayCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * numcodecs {@code bitround} {keepbits}: mantissa bits were rounded away when encoding; decoding
 * changes nothing, so this is a layout-only codec with the identity layout.
 */
public record BitRoundCodec(int keepbits) implements ArrayToArrayCodec {

  static BitRoundCodec create(CodecSpec spec, ChunkSpec input) {
    CodecConfig config = new CodecConfig(spec).only("keepbits");
    int keepbits = config.requiredInt("keepbits");
    if (input.dataType().kind() != DataType.Kind.FLOAT) {
      throw config.error("only float arrays can be bit-rounded, not " + input.dataType());
    }
    int mantissa = switch (input.dataType().bits()) {
      case 16 -> 10;
      case 32 -> 23;
      default -> 52;
    };
    if (keepbits < 0 || keepbits > mantissa) {
      throw config.error("keepbits must be 0.." + mantissa + " for " + input.dataType() + ", not " + keepbits);
    }
    return new BitRoundCodec(keepbits);
  }

  @Override
  public String name() {
    return "numcodecs.bitround";
  }

  @Override
  public ChunkSpec encodedSpec(ChunkSpec decoded) {
    return decoded;
  }

  @Override
  public boolean isLayoutOnly() {
    return true;
  }

  @Override
  public SlabView encodedView(SlabView decodedView) {
    return decodedView;
  }

  @Override
  public ArrowBuf decode(ArrowBuf encoded, ChunkSpec decoded, BufferAllocator allocator) {
    return Filters.copy(name(), encoded, decoded, allocator);
  }
}
