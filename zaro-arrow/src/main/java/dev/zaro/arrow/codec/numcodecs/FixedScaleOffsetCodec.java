package dev.zaro.arrow.codec.numcodecs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.codec.ArrayToArrayCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.internal.JsonDocument;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * numcodecs {@code fixedscaleoffset} {offset, scale, dtype, astype}: stored values are {@code
 * round((x - offset) * scale)} as {@code astype}. Decoding is numpy's {@code (enc / scale +
 * offset).astype(dtype)}, in the precision numpy picks: float64 for integer {@code astype}, else
 * {@code astype}'s own float width (with scale and offset cast to it, as numpy treats Python
 * scalars).
 */
public record FixedScaleOffsetCodec(double offset, double scale, DataType dtype, DataType astype)
    implements ArrayToArrayCodec {

  static FixedScaleOffsetCodec create(CodecSpec spec, ChunkSpec input) {
    CodecConfig config = new CodecConfig(spec).only("offset", "scale", "dtype", "astype");
    DataType dtype = Filters.decodedType(config, "dtype", input);
    DataType astype = Filters.type(config, "astype", dtype);
    Filters.numeric(config, dtype, false);
    Filters.numeric(config, astype, false);
    return new FixedScaleOffsetCodec(
        number(config, "offset"), number(config, "scale"), dtype, astype);
  }

  static double number(CodecConfig config, String field) {
    JsonNode node = config.node(field);
    if (node == null) {
      throw config.error("configuration field '" + field + "' is missing");
    }
    if (!node.isNumber()) {
      throw config.error(
          "configuration field '"
              + field
              + "' must be a number, not "
              + JsonDocument.describe(node));
    }
    return node.doubleValue();
  }

  @Override
  public String name() {
    return "numcodecs.fixedscaleoffset";
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
          if (Elements.isInteger(astype) || astype.bits() == 64) {
            for (long i = 0; i < n; i++) {
              Elements.putDouble(
                  out, i, dtype, Elements.getDouble(encoded, i, astype) / scale + offset);
            }
          } else if (astype.bits() == 32) {
            float s = (float) scale;
            float o = (float) offset;
            for (long i = 0; i < n; i++) {
              float v = encoded.getFloat(i * 4) / s + o;
              Elements.putDouble(out, i, dtype, v);
            }
          } else {
            float s = (float) Elements.roundHalf(scale);
            float o = (float) Elements.roundHalf(offset);
            for (long i = 0; i < n; i++) {
              float q = (float) Elements.roundHalf(Elements.getFloat(encoded, i, astype) / s);
              Elements.putDouble(out, i, dtype, Elements.roundHalf(q + o));
            }
          }
        });
  }
}
