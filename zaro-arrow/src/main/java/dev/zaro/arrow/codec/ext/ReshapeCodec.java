package dev.zaro.arrow.codec.ext;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.codec.ArrayToArrayCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.codec.numcodecs.Filters;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.internal.JsonDocument;
import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * {@code reshape} {shape} (zarr-extensions): the chunk array is stored with another shape and the
 * same elements in the same C order. Each entry of {@code shape} is a size, {@code -1} (at most
 * once: whatever keeps the element count), or a list of input dimensions whose sizes multiply (in
 * increasing order over all entries, each list aligned with the input's dimensions). Decoding hands
 * the stored bytes on without copying them.
 */
@SuppressWarnings("ArrayRecordComponent") // an internal codec, never compared
public record ReshapeCodec(int[] encodedShape) implements ArrayToArrayCodec {

  static ReshapeCodec create(CodecSpec spec, ChunkSpec input) {
    CodecConfig config = new CodecConfig(spec).only("shape");
    JsonNode shape = config.node("shape");
    if (shape == null) {
      throw config.error("configuration field 'shape' is missing");
    }
    if (!shape.isArray()) {
      throw config.error("shape must be a list, not " + JsonDocument.describe(shape));
    }
    int[] in = input.shape();
    long[] sizes = new long[shape.size()];
    int[][] dims = new int[shape.size()][];
    int auto = -1;
    int lastDim = -1;
    for (int i = 0; i < sizes.length; i++) {
      JsonNode entry = shape.get(i);
      if (entry.isIntegralNumber()
          && entry.canConvertToLong()
          && (entry.longValue() > 0 || entry.longValue() == -1)) {
        if (entry.longValue() == -1) {
          if (auto >= 0) {
            throw config.error("shape has -1 more than once");
          }
          auto = i;
        }
        sizes[i] = entry.longValue();
      } else if (entry.isArray()) {
        dims[i] = new int[entry.size()];
        sizes[i] = 1;
        for (int k = 0; k < dims[i].length; k++) {
          JsonNode d = entry.get(k);
          if (!d.isIntegralNumber()
              || !d.canConvertToInt()
              || d.intValue() < 0
              || d.intValue() >= in.length) {
            throw config.error(
                "shape["
                    + i
                    + "]: "
                    + JsonDocument.describe(d)
                    + " is not a dimension of the "
                    + in.length
                    + "-d input");
          }
          if (d.intValue() <= lastDim) {
            throw config.error(
                "shape["
                    + i
                    + "]: input dimensions must increase over the whole shape, and "
                    + d.intValue()
                    + " follows "
                    + lastDim);
          }
          lastDim = d.intValue();
          dims[i][k] = lastDim;
          sizes[i] *= in[lastDim];
        }
      } else {
        throw config.error(
            "shape["
                + i
                + "] must be a positive size, -1 or a list of input dimensions, not "
                + JsonDocument.describe(entry));
      }
    }
    long total = input.elementCount();
    long known = 1;
    for (int i = 0; i < sizes.length; i++) {
      known = i == auto ? known : known * sizes[i];
    }
    if (auto >= 0) {
      if (known == 0 || total % known != 0) {
        throw config.error(
            "no size for -1 makes "
                + Arrays.toString(in)
                + " ("
                + total
                + " elements) fit "
                + JsonDocument.describe(shape));
      }
      sizes[auto] = total / known;
    } else if (known != total) {
      throw config.error(
          "shape "
              + JsonDocument.describe(shape)
              + " holds "
              + known
              + " elements, the chunk "
              + Arrays.toString(in)
              + " "
              + total);
    }
    for (int i = 0; i < sizes.length; i++) {
      if (dims[i] != null && dims[i].length > 0) {
        long before = product(sizes, 0, i);
        long after = product(sizes, i + 1, sizes.length);
        if (before != product(in, 0, dims[i][0])
            || after != product(in, dims[i][dims[i].length - 1] + 1, in.length)) {
          throw config.error(
              "shape["
                  + i
                  + "] = "
                  + Arrays.toString(dims[i])
                  + " does not line up with the input "
                  + Arrays.toString(in)
                  + " (the sizes before and after it must equal those of the input dimensions"
                  + " before and after)");
        }
      }
      if (sizes[i] > Integer.MAX_VALUE) {
        throw config.error("shape[" + i + "] = " + sizes[i] + " is too large");
      }
    }
    return new ReshapeCodec(Arrays.stream(sizes).mapToInt(v -> (int) v).toArray());
  }

  private static long product(long[] sizes, int from, int to) {
    long p = 1;
    for (int i = from; i < to; i++) {
      p *= sizes[i];
    }
    return p;
  }

  private static long product(int[] sizes, int from, int to) {
    long p = 1;
    for (int i = from; i < to; i++) {
      p *= sizes[i];
    }
    return p;
  }

  @Override
  public int[] encodedShape() {
    return encodedShape.clone();
  }

  @Override
  public String name() {
    return "reshape";
  }

  @Override
  public ChunkSpec encodedSpec(ChunkSpec decoded) {
    return decoded.withShape(encodedShape);
  }

  /** The stored bytes themselves: a retained slice of {@code encoded}. */
  @Override
  public ArrowBuf decode(ArrowBuf encoded, ChunkSpec decoded, BufferAllocator allocator) {
    Filters.elements(name(), encoded, decoded, decoded.dataType());
    long size = decoded.byteSize();
    ArrowBuf data = encoded.slice(0, size);
    encoded.getReferenceManager().retain();
    data.writerIndex(size);
    return data;
  }
}
