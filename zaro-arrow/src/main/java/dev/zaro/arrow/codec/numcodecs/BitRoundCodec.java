package dev.zaro.arrow.codec.numcodecs;

import dev.zaro.arrow.codec.ArrayToArrayCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecCapability;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * {@code bitround} {keepbits} (zarr-extensions) and numcodecs {@code bitround}, its alias: mantissa
 * bits (for integers: bits below the highest set bit) were rounded away when encoding; decoding
 * changes nothing, so this is a layout-only codec with the identity layout. Floats (complex: per
 * component) keep 0..mantissa bits; integers (0..their width) only under the name {@code bitround},
 * as numcodecs refuses them.
 *
 * @param name the metadata name the codec was found by
 */
public record BitRoundCodec(String name, int keepbits) implements ArrayToArrayCodec {

  /** The codec for {@code spec}, by the name {@code spec} gives. */
  public static BitRoundCodec create(CodecSpec spec, ChunkSpec input) {
    CodecConfig config = new CodecConfig(spec).only("keepbits");
    int keepbits = config.requiredInt("keepbits");
    DataType type = input.dataType();
    int limit =
        switch (type.kind()) {
          case FLOAT, COMPLEX ->
              switch (type.kind() == DataType.Kind.COMPLEX ? type.bits() / 2 : type.bits()) {
                case 16 -> 10;
                case 32 -> 23;
                default -> 52;
              };
          case INT, UINT, DATETIME, TIMEDELTA -> {
            if (!spec.name().equals("bitround")) {
              throw config.error("only float arrays can be bit-rounded, not " + type);
            }
            yield type.bits();
          }
          default ->
              throw config.error(
                  "only float, complex and integer arrays can be bit-rounded, not " + type);
        };
    if (keepbits < 0 || keepbits > limit) {
      throw config.error("keepbits must be 0.." + limit + " for " + type + ", not " + keepbits);
    }
    return new BitRoundCodec(spec.name(), keepbits);
  }

  @Override
  public ChunkSpec encodedSpec(ChunkSpec decoded) {
    return decoded;
  }

  @Override
  public Set<CodecCapability> capabilities() {
    return Set.of(CodecCapability.LAYOUT_ONLY);
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
