package dev.zaro.arrow.codec.numcodecs;

import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.codec.CodecCapability;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.codec.lz.Lz4BlockDecoder;
import dev.zaro.arrow.codec.lz.StreamException;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.metadata.CodecSpec;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * numcodecs {@code lz4} {acceleration}: a 4-byte little-endian decoded size, then one LZ4 block
 * (the raw block format, no frame). The header is checked against the expected size, and against
 * what the block could possibly decode to, before anything is allocated.
 */
public record Lz4Codec(int acceleration) implements BytesToBytesCodec {

  /** An LZ4 block expands at most about 255 times (a sequence of 1 token byte + 255s). */
  private static final long MAX_RATIO = 255;

  static Lz4Codec create(CodecSpec spec) {
    CodecConfig config = new CodecConfig(spec).only("acceleration");
    return new Lz4Codec(config.intValue("acceleration", 1));
  }

  @Override
  public String name() {
    return "numcodecs.lz4";
  }

  @Override
  public Set<CodecCapability> capabilities() {
    return Set.of(CodecCapability.DECODE_IN_PLACE);
  }

  private long header(ArrowBuf encoded, long decodedSize) {
    long length = encoded.writerIndex();
    if (length < 4) {
      throw new CodecException(
          "codec " + name() + ": " + length + " bytes is too short for the 4-byte size header");
    }
    long size = encoded.getInt(0) & 0xffffffffL;
    if (decodedSize >= 0 && size != decodedSize) {
      throw new CodecException(
          "codec " + name() + ": header says " + size + " decoded bytes, expected " + decodedSize);
    }
    if (size > (length - 4) * MAX_RATIO + 16 || size > Integer.MAX_VALUE) {
      throw new CodecException(
          "codec "
              + name()
              + ": header says "
              + size
              + " decoded bytes, more than "
              + (length - 4)
              + " bytes of LZ4 data can hold");
    }
    return size;
  }

  @Override
  public ArrowBuf decode(ArrowBuf encoded, long decodedSize, BufferAllocator allocator) {
    long size = header(encoded, decodedSize);
    ArrowBuf out = allocator.buffer(Math.max(1, size));
    try {
      decodeBlock(encoded, out.memoryAddress(), size);
      out.writerIndex(size);
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
  }

  @Override
  public boolean decodeInto(ArrowBuf encoded, ArrowBuf target, long offset, long size) {
    BytesToBytesCodec.checkRegion(target, offset, size);
    decodeBlock(encoded, target.memoryAddress() + offset, header(encoded, size));
    return true;
  }

  private void decodeBlock(ArrowBuf encoded, long dst, long size) {
    long length = encoded.writerIndex() - 4;
    if (length > Integer.MAX_VALUE || size > Integer.MAX_VALUE) {
      throw new CodecException(
          "codec "
              + name()
              + ": a block of "
              + length
              + " bytes decoding to "
              + size
              + " is larger than LZ4 allows");
    }
    try {
      Lz4BlockDecoder.decode(encoded.memoryAddress() + 4, (int) length, dst, (int) size);
    } catch (StreamException e) {
      throw new CodecException("codec " + name() + ": corrupt LZ4 block: " + e.getMessage());
    }
  }
}
