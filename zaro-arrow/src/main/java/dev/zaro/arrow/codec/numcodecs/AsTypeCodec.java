package dev.zaro.arrow.codec.numcodecs;

import dev.zaro.arrow.codec.ArrayToArrayCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * numcodecs {@code astype} {encode_dtype, decode_dtype}: elements are stored as {@code
 * encode_dtype}; decoding is numpy's {@code astype(decode_dtype)} (integers wrap, floats round to
 * nearest, floats become integers by truncation).
 */
public record AsTypeCodec(DataType encodeType, DataType decodeType) implements ArrayToArrayCodec {

  static AsTypeCodec create(CodecSpec spec, ChunkSpec input) {
    CodecConfig config = new CodecConfig(spec).only("encode_dtype", "decode_dtype");
    DataType decode = Filters.decodedType(config, "decode_dtype", input);
    if (config.node("encode_dtype") == null) {
      throw config.error("configuration field 'encode_dtype' is missing");
    }
    DataType encode = Filters.type(config, "encode_dtype", decode);
    Filters.numeric(config, decode, true);
    Filters.numeric(config, encode, true);
    return new AsTypeCodec(encode, decode);
  }

  @Override
  public String name() {
    return "numcodecs.astype";
  }

  @Override
  public ChunkSpec encodedSpec(ChunkSpec decoded) {
    return Filters.withType(decoded, encodeType);
  }

  @Override
  public ArrowBuf decode(ArrowBuf encoded, ChunkSpec decoded, BufferAllocator allocator) {
    long n = Filters.elements(name(), encoded, decoded, encodeType);
    return Filters.decodeTo(
        allocator,
        decoded,
        out -> {
          for (long i = 0; i < n; i++) {
            Elements.cast(encoded, encodeType, out, decodeType, i);
          }
        });
  }
}
