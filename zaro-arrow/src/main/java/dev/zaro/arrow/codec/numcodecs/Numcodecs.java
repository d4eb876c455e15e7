package dev.zaro.arrow.codec.numcodecs;

import dev.zaro.arrow.codec.CodecProvider;
import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.codec.blosc.BloscCodec;
import dev.zaro.arrow.metadata.CodecSpec;

/**
 * The numcodecs compressors and filters, registered as {@code numcodecs.<id>} codecs with the
 * numcodecs configuration (without its {@code id}). Zarr v2 metadata maps onto them (see {@link
 * dev.zaro.arrow.metadata.internal.V2Metadata}); the names are also those zarr-python 3 gives
 * numcodecs codecs in v3 metadata.
 */
public final class Numcodecs implements CodecProvider {
  /** The provider {@link java.util.ServiceLoader} instantiates. */
  public Numcodecs() {}

  /** Registers every numcodecs codec zaro reads on {@code registry}. */
  @Override
  public void register(CodecRegistry registry) {
    registry.register("numcodecs.zlib", (spec, input, reg) -> ZlibCodec.create(spec));
    registry.register("numcodecs.lz4", (spec, input, reg) -> Lz4Codec.create(spec));
    // zarrita (the JavaScript Zarr v3 implementation) writes numcodecs' LZ4 under the bare name
    registry.register("lz4", (spec, input, reg) -> Lz4Codec.create(spec));
    registry.register("numcodecs.bz2", (spec, input, reg) -> Bz2Codec.create(spec));
    registry.register("numcodecs.lzma", (spec, input, reg) -> LzmaCodec.create(spec));
    registry.register("numcodecs.shuffle", (spec, input, reg) -> ShuffleCodec.create(spec, input));
    registry.register("numcodecs.delta", (spec, input, reg) -> DeltaCodec.create(spec, input));
    registry.register(
        "numcodecs.fixedscaleoffset",
        (spec, input, reg) -> FixedScaleOffsetCodec.create(spec, input));
    registry.register(
        "numcodecs.quantize", (spec, input, reg) -> QuantizeCodec.create(spec, input));
    registry.register(
        "numcodecs.bitround", (spec, input, reg) -> BitRoundCodec.create(spec, input));
    registry.register("numcodecs.astype", (spec, input, reg) -> AsTypeCodec.create(spec, input));
    registry.register(
        "numcodecs.categorize", (spec, input, reg) -> CategorizeCodec.create(spec, input));
    registry.register(
        "numcodecs.packbits", (spec, input, reg) -> PackBitsCodec.create(spec, input));
    for (ChecksumCodec.Algorithm algorithm : ChecksumCodec.Algorithm.values()) {
      registry.register(
          "numcodecs." + algorithm.id(),
          (spec, input, reg) -> ChecksumCodec.create(spec, algorithm));
    }
    registry.register("numcodecs.base64", (spec, input, reg) -> Base64Codec.create(spec));
    registry.register("numcodecs.zfpy", (spec, input, reg) -> ZfpyCodec.create(spec, input));
    registry.register("numcodecs.json2", (spec, input, reg) -> ObjectListCodec.json(spec, input));
    registry.register(
        "numcodecs.msgpack2", (spec, input, reg) -> ObjectListCodec.msgpack(spec, input));
    // numcodecs' gzip and zstd are the v3 codecs of those names (same streams, same configuration)
    registry.register(
        "numcodecs.gzip",
        (spec, input, reg) -> reg.create(new CodecSpec("gzip", spec.configuration()), input));
    registry.register(
        "numcodecs.zstd",
        (spec, input, reg) -> reg.create(new CodecSpec("zstd", spec.configuration()), input));
    registry.register(
        "numcodecs.blosc",
        (spec, input, reg) ->
            BloscCodec.fromNumcodecs(spec.configuration(), input.dataType().byteSize()));
  }
}
