package dev.zaro.arrow.codec.blosc;

import dev.zaro.arrow.codec.CodecProvider;
import dev.zaro.arrow.codec.CodecRegistry;

/** Registers the {@code blosc} codec (v3 name; zarr v2's blosc compressor maps onto it). */
public final class BloscCodecs implements CodecProvider {
  /** The provider {@link java.util.ServiceLoader} instantiates. */
  public BloscCodecs() {}

  @Override
  public void register(CodecRegistry registry) {
    registry.register("blosc", (spec, input, reg) -> BloscCodec.create(spec, input));
  }
}
