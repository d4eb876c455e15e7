package dev.zaro.arrow.codec.ext;

import dev.zaro.arrow.codec.CodecProvider;
import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.codec.numcodecs.BitRoundCodec;
import dev.zaro.arrow.codec.zfp.ZfpCodec;

/**
 * The registered v3 codecs of zarr-extensions that are not core codecs: {@code bitround} (the
 * numcodecs filter, for integers too), {@code packbits}, {@code scale_offset}, {@code cast_value},
 * {@code reshape} and {@code zfp}.
 */
public final class Extensions implements CodecProvider {
  /** The provider {@link java.util.ServiceLoader} instantiates. */
  public Extensions() {}

  /** Registers every extension codec zaro reads on {@code registry}. */
  @Override
  public void register(CodecRegistry registry) {
    registry.register("bitround", (spec, input, reg) -> BitRoundCodec.create(spec, input));
    registry.register("packbits", (spec, input, reg) -> PackBitsCodec.create(spec, input));
    registry.register("scale_offset", (spec, input, reg) -> ScaleOffsetCodec.create(spec, input));
    registry.register("cast_value", (spec, input, reg) -> CastValueCodec.create(spec, input));
    registry.register("reshape", (spec, input, reg) -> ReshapeCodec.create(spec, input));
    registry.register("zfp", (spec, input, reg) -> ZfpCodec.create(spec, input));
  }
}
