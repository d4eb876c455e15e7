package dev.zaro.arrow.codec.numcodecs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.codec.ArrayToArrayCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecCapability;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.internal.JsonDocument;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * numcodecs {@code quantize} {digits, dtype, astype}: rounding happened when encoding; decoding
 * only casts {@code astype} back to {@code dtype} (floats only). With equal types it changes
 * nothing, so it is then a layout-only codec that never materializes the chunk.
 */
public record QuantizeCodec(int digits, DataType dtype, DataType astype)
    implements ArrayToArrayCodec {

  static QuantizeCodec create(CodecSpec spec, ChunkSpec input) {
    CodecConfig config = new CodecConfig(spec).only("digits", "dtype", "astype");
    JsonNode digits = config.node("digits");
    if (digits == null || !digits.isIntegralNumber() || !digits.canConvertToInt()) {
      throw config.error(
          "configuration field 'digits' must be an integer, not "
              + (digits == null ? "missing" : JsonDocument.describe(digits)));
    }
    DataType dtype = Filters.decodedType(config, "dtype", input);
    DataType astype = Filters.type(config, "astype", dtype);
    if (dtype.kind() != DataType.Kind.FLOAT || astype.kind() != DataType.Kind.FLOAT) {
      throw config.error(
          "only floating point data types are supported, not " + dtype + " as " + astype);
    }
    return new QuantizeCodec(digits.intValue(), dtype, astype);
  }

  @Override
  public String name() {
    return "numcodecs.quantize";
  }

  @Override
  public ChunkSpec encodedSpec(ChunkSpec decoded) {
    return Filters.withType(decoded, astype);
  }

  @Override
  public Set<CodecCapability> capabilities() {
    return dtype.equals(astype) ? Set.of(CodecCapability.LAYOUT_ONLY) : Set.of();
  }

  @Override
  public SlabView encodedView(SlabView decodedView) {
    if (!dtype.equals(astype)) {
      return ArrayToArrayCodec.super.encodedView(decodedView);
    }
    return decodedView;
  }

  @Override
  public ArrowBuf decode(ArrowBuf encoded, ChunkSpec decoded, BufferAllocator allocator) {
    long n = Filters.elements(name(), encoded, decoded, astype);
    return Filters.decodeTo(
        allocator,
        decoded,
        out -> {
          for (long i = 0; i < n; i++) {
            Elements.cast(encoded, astype, out, dtype, i);
          }
        });
  }
}
