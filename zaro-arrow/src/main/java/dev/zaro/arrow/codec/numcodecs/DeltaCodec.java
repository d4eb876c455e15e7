package dev.zaro.arrow.codec.numcodecs;

import dev.zaro.arrow.codec.ArrayToArrayCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * numcodecs {@code delta} {dtype, astype}: the encoded array holds the first element, then the
 * differences of neighbours in flat (storage) order, as {@code astype}. Decoding is numpy's {@code
 * cumsum(enc, out=dec)}: each element is cast to {@code dtype} and accumulated in {@code dtype}
 * arithmetic (integers wrap, floats round at every step).
 */
public record DeltaCodec(DataType dtype, DataType astype) implements ArrayToArrayCodec {

  static DeltaCodec create(CodecSpec spec, ChunkSpec input) {
    CodecConfig config = new CodecConfig(spec).only("dtype", "astype");
    DataType dtype = Filters.decodedType(config, "dtype", input);
    DataType astype = Filters.type(config, "astype", dtype);
    Filters.numeric(config, dtype, false);
    Filters.numeric(config, astype, false);
    if (Elements.isInteger(dtype) && !Elements.isInteger(astype)) {
      throw config.error(
          "cannot accumulate " + astype + " differences into " + dtype + " elements");
    }
    return new DeltaCodec(dtype, astype);
  }

  @Override
  public String name() {
    return "numcodecs.delta";
  }

  @Override
  public ChunkSpec encodedSpec(ChunkSpec decoded) {
    return Filters.withType(decoded, astype);
  }

  @Override
  public ArrowBuf decode(ArrowBuf encoded, ChunkSpec decoded, BufferAllocator allocator) {
    long n = Filters.elements(name(), encoded, decoded, astype);
    return Filters.decodeTo(
        allocator,
        decoded,
        out -> {
          if (Elements.isInteger(dtype)) {
            long sum = 0;
            for (long i = 0; i < n; i++) {
              sum += Elements.getLong(encoded, i, astype);
              Elements.putLong(out, i, dtype, sum);
            }
          } else if (dtype.bits() == 64) {
            double sum = 0;
            for (long i = 0; i < n; i++) {
              double x = Elements.getDouble(encoded, i, astype);
              sum = i == 0 ? x : sum + x;
              out.setDouble(i * 8, sum);
            }
          } else if (dtype.bits() == 32) {
            float sum = 0;
            for (long i = 0; i < n; i++) {
              float x =
                  Elements.isInteger(astype)
                      ? Elements.toFloat(Elements.getLong(encoded, i, astype), astype)
                      : (float) Elements.getFloat(encoded, i, astype);
              sum = i == 0 ? x : sum + x;
              out.setFloat(i * 4, sum);
            }
          } else {
            float sum = 0;
            for (long i = 0; i < n; i++) {
              float x = (float) Elements.roundHalf(Elements.getDouble(encoded, i, astype));
              sum = i == 0 ? x : (float) Elements.roundHalf(sum + x);
              out.setShort(i * 2, Elements.halfFromDouble(sum));
            }
          }
        });
  }
}
