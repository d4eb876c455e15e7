package dev.zaro.arrow.codec.core;

import dev.zaro.arrow.codec.CodecProvider;
import dev.zaro.arrow.codec.CodecRegistry;

/**
 * The codecs of the Zarr v3 core specification (and its vlen extensions): {@code bytes}, {@code
 * transpose}, {@code gzip}, {@code zstd}, {@code crc32c}, {@code sharding_indexed}, {@code
 * vlen-utf8} and {@code vlen-bytes}. This package is not exported: users reach these codecs by name
 * through {@link CodecRegistry}.
 */
public final class CoreCodecs implements CodecProvider {
  /** The provider {@link java.util.ServiceLoader} instantiates. */
  public CoreCodecs() {}

  /** Registers every core codec on {@code registry}. */
  @Override
  public void register(CodecRegistry registry) {
    registry.register("bytes", BytesCodec::create);
    registry.register("transpose", TransposeCodec::create);
    registry.register("gzip", (spec, input, reg) -> GzipCodec.create(spec));
    registry.register("zstd", (spec, input, reg) -> ZstdCodec.create(spec));
    registry.register("crc32c", (spec, input, reg) -> Crc32cCodec.create(spec));
    registry.register("sharding_indexed", ShardingCodec::create);
    registry.register("vlen-utf8", (spec, input, reg) -> VlenCodec.create(spec, input));
    registry.register("vlen-bytes", (spec, input, reg) -> VlenCodec.create(spec, input));
  }
}
