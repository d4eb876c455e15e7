package dev.zaro.arrow.codec.numcodecs;

import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.codec.zfp.ZfpDecoder;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * numcodecs {@code zfpy} {mode, tolerance, rate, precision}: a zfp stream with zfp's full header
 * (magic and codec version 5, field type and sizes, compression mode), what {@code
 * zfpy.compress_numpy} writes for the chunk array; decoded in pure Java by {@link ZfpDecoder}. The
 * header, not the configuration, says how the chunk was compressed.
 */
public record ZfpyCodec(ZfpDecoder.Type type) implements BytesToBytesCodec {

  static ZfpyCodec create(CodecSpec spec, ChunkSpec input) {
    CodecConfig config =
        new CodecConfig(spec).only("mode", "tolerance", "rate", "precision", "compression_kwargs");
    DataType t = input.dataType();
    ZfpDecoder.Type type = ZfpDecoder.Type.of(t);
    if (type == null) {
      throw config.error("zfp compresses int32, int64, float32 and float64 arrays, not " + t);
    }
    return new ZfpyCodec(type);
  }

  @Override
  public String name() {
    return "numcodecs.zfpy";
  }

  @Override
  public ArrowBuf decode(ArrowBuf encoded, long decodedSize, BufferAllocator allocator) {
    ZfpDecoder.Bits header = new ZfpDecoder.Bits(encoded, encoded.writerIndex(), 0);
    if (header.bits(8) != 'z' || header.bits(8) != 'f' || header.bits(8) != 'p') {
      throw new CodecException("codec " + name() + ": no zfp header (magic \"zfp\" missing)");
    }
    long version = header.bits(8);
    if (version != 5) {
      throw new CodecException(
          "codec "
              + name()
              + ": zfp codec version "
              + version
              + " (zaro reads version 5,"
              + " zfp 1.0)");
    }
    long meta = header.bits(52);
    ZfpDecoder.Type stored = ZfpDecoder.Type.ofHeaderCode((int) (meta & 3));
    int dims = (int) ((meta >>> 2) & 3) + 1;
    long[] sizes = new long[dims]; // numpy order: slowest first
    int width = new int[] {48, 24, 16, 12}[dims - 1];
    long rest = meta >>> 4;
    for (int d = 0; d < dims; d++) {
      sizes[dims - 1 - d] = (rest & ((1L << Math.min(width, 32)) - 1)) + 1;
      rest >>>= width;
    }
    long mode = header.bits(12);
    if (mode > 4094) {
      mode += header.bits(52) << 12;
    }
    ZfpDecoder.Params params = params(mode);
    if (stored != type) {
      throw new CodecException(
          "codec " + name() + ": the stream holds " + stored + " values, the array " + type);
    }
    ZfpDecoder.Field field = new ZfpDecoder.Field(stored, sizes);
    long size = field.count() * stored.size();
    if (decodedSize >= 0 && size != decodedSize) {
      throw new CodecException(
          "codec "
              + name()
              + ": the stream holds "
              + Arrays.toString(sizes)
              + " values ("
              + size
              + " bytes), expected "
              + decodedSize
              + " bytes");
    }
    ArrowBuf out = allocator.buffer(Math.max(1, size));
    try {
      ZfpDecoder.decode(encoded, header.pos, params, field, out);
      out.writerIndex(size);
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
  }

  /** zfp's mode word (12-bit short or 64-bit long form) as parameters. */
  static ZfpDecoder.Params params(long mode) {
    if (mode <= 4094) {
      if (mode < 2048) {
        return new ZfpDecoder.Params((int) mode + 1, (int) mode + 1, 64, -1074); // fixed rate
      }
      if (mode < 2048 + 128) {
        return new ZfpDecoder.Params(1, 16658, (int) mode + 1 - 2048, -1074); // fixed precision
      }
      if (mode == 2048 + 128) {
        return new ZfpDecoder.Params(1, 16658, 64, -1075); // reversible
      }
      return new ZfpDecoder.Params(
          1, 16658, 64, (int) mode - 1074 - (2048 + 128 + 1)); // fixed accuracy
    }
    long m = mode >>> 12;
    int minbits = (int) (m & 0x7fff) + 1;
    m >>>= 15;
    int maxbits = (int) (m & 0x7fff) + 1;
    m >>>= 15;
    int maxprec = (int) (m & 0x7f) + 1;
    m >>>= 7;
    int minexp = (int) (m & 0x7fff) - 16495;
    if (minbits > maxbits || maxprec > 64) {
      throw new CodecException(
          "codec numcodecs.zfpy: invalid expert mode (minbits "
              + minbits
              + ", maxbits "
              + maxbits
              + ", maxprec "
              + maxprec
              + ")");
    }
    return new ZfpDecoder.Params(minbits, maxbits, maxprec, minexp);
  }
}
