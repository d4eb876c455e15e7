package dev.zaro.arrow.codec.core;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.codec.ArrayToArrayCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecCapability;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.metadata.CodecSpec;
import java.util.Arrays;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/** {@code transpose}: the encoded array's dimension i is the decoded array's dimension order[i]. */
@SuppressWarnings("ArrayRecordComponent") // equals and hashCode below use the contents
public record TransposeCodec(int[] order) implements ArrayToArrayCodec {

  static TransposeCodec create(CodecSpec spec, ChunkSpec input, CodecRegistry registry) {
    CodecConfig config = new CodecConfig(spec).only("order");
    JsonNode node = config.node("order");
    int rank = input.rank();
    int[] order = new int[rank];
    if (node == null) {
      throw config.error("configuration field 'order' is missing");
    } else if (node.isTextual() && node.textValue().equals("C")) {
      Arrays.setAll(order, i -> i);
    } else if (node.isTextual() && node.textValue().equals("F")) {
      Arrays.setAll(order, i -> rank - 1 - i);
    } else {
      boolean[] seen = new boolean[rank];
      if (!node.isArray() || node.size() != rank) {
        throw config.error("order must be a permutation of 0.." + (rank - 1) + ", not " + node);
      }
      for (int i = 0; i < rank; i++) {
        JsonNode e = node.get(i);
        if (!e.isIntegralNumber()
            || e.intValue() < 0
            || e.intValue() >= rank
            || seen[e.intValue()]) {
          throw config.error("order must be a permutation of 0.." + (rank - 1) + ", not " + node);
        }
        order[i] = e.intValue();
        seen[order[i]] = true;
      }
    }
    return new TransposeCodec(order);
  }

  @Override
  public String name() {
    return "transpose";
  }

  @Override
  public ChunkSpec encodedSpec(ChunkSpec decoded) {
    int[] shape = decoded.shape();
    int[] encoded = new int[shape.length];
    for (int i = 0; i < shape.length; i++) {
      encoded[i] = shape[order[i]];
    }
    return decoded.withShape(encoded);
  }

  @Override
  public Set<CodecCapability> capabilities() {
    return Set.of(CodecCapability.LAYOUT_ONLY);
  }

  @Override
  public SlabView encodedView(SlabView decodedView) {
    return decodedView.permute(order);
  }

  @Override
  public ArrowBuf decode(ArrowBuf encoded, ChunkSpec decoded, BufferAllocator allocator) {
    ArrowBuf out = allocator.buffer(decoded.byteSize());
    try {
      SlabView.whole(out, 0, decoded.dataType().byteSize(), decoded.shape())
          .permute(order)
          .scatterFrom(encoded, encoded.writerIndex(), 0);
      out.writerIndex(decoded.byteSize());
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TransposeCodec t && Arrays.equals(order, t.order);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(order);
  }
}
