package dev.zaro.arrow.codec.numcodecs;

import dev.zaro.arrow.codec.ArrayToArrayCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * numcodecs {@code packbits}: a chunk of n one-byte booleans is stored as one byte holding the
 * number of padding bits, then {@code ceil(n / 8)} bytes of bits, most significant first (numpy's
 * {@code packbits}). Decodes to bytes 0 and 1.
 */
public record PackBitsCodec() implements ArrayToArrayCodec {

  static PackBitsCodec create(CodecSpec spec, ChunkSpec input) {
    CodecConfig config = new CodecConfig(spec).only();
    if (input.dataType().byteSize() != 1 || !Elements.isInteger(input.dataType())) {
      throw config.error("packs one-byte booleans, not " + input.dataType() + " elements");
    }
    return new PackBitsCodec();
  }

  @Override
  public String name() {
    return "numcodecs.packbits";
  }

  @Override
  public ChunkSpec encodedSpec(ChunkSpec decoded) {
    long n = decoded.elementCount();
    long bytes = (n + 7) / 8 + 1;
    if (bytes > Integer.MAX_VALUE) {
      throw new CodecException("codec " + name() + ": chunk of " + n + " elements is too large");
    }
    return new ChunkSpec(new int[] {(int) bytes}, DataType.UINT8, FillValue.zero(DataType.UINT8));
  }

  @Override
  public ArrowBuf decode(ArrowBuf encoded, ChunkSpec decoded, BufferAllocator allocator) {
    long n = decoded.elementCount();
    long expected = (n + 7) / 8 + 1;
    if (encoded.writerIndex() != expected) {
      throw new CodecException(
          "codec "
              + name()
              + ": encoded chunk has "
              + encoded.writerIndex()
              + " bytes, expected "
              + expected
              + " for "
              + n
              + " elements");
    }
    int padding = encoded.getByte(0) & 0xff;
    if (padding != (8 - n % 8) % 8) {
      throw new CodecException(
          "codec "
              + name()
              + ": header says "
              + padding
              + " padding bits, expected "
              + (8 - n % 8) % 8
              + " for "
              + n
              + " elements");
    }
    return Filters.decodeTo(
        allocator,
        decoded,
        out -> {
          for (long i = 0; i < n; i++) {
            int b = encoded.getByte(1 + (i >>> 3)) & 0xff;
            out.setByte(i, (b >>> (7 - (int) (i & 7))) & 1);
          }
        });
  }
}
