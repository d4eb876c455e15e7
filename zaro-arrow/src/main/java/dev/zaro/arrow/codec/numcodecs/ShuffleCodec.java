package dev.zaro.arrow.codec.numcodecs;

import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecCapability;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.metadata.CodecSpec;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * numcodecs {@code shuffle} {elementsize}: a buffer of {@code n} elements of {@code "elementsize"}
 * bytes stored as {@code "elementsize"} planes of {@code n} bytes (plane j holds byte j of every
 * element). The buffer must be a whole number of elements; element sizes of 0 or 1 store the bytes
 * unchanged. Without {@code "elementsize"} (as zarr-python 3's numcodecs codecs may write it) the
 * array's element size is used.
 */
public record ShuffleCodec(int elementSize) implements BytesToBytesCodec {

  static ShuffleCodec create(CodecSpec spec, ChunkSpec input) {
    CodecConfig config = new CodecConfig(spec).only("elementsize");
    int elementSize = config.intValue("elementsize", input.dataType().byteSize());
    if (elementSize < 0) {
      throw config.error("elementsize must not be negative, not " + elementSize);
    }
    return new ShuffleCodec(elementSize);
  }

  @Override
  public String name() {
    return "numcodecs.shuffle";
  }

  @Override
  public Set<CodecCapability> capabilities() {
    return Set.of(CodecCapability.DECODE_IN_PLACE);
  }

  @Override
  public long encodedSize(long decodedSize) {
    return decodedSize;
  }

  @Override
  public ArrowBuf decode(ArrowBuf encoded, long decodedSize, BufferAllocator allocator) {
    long length = check(encoded, decodedSize);
    ArrowBuf out = allocator.buffer(Math.max(1, length));
    try {
      unshuffle(encoded, out.memoryAddress(), length);
      out.writerIndex(length);
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
  }

  @Override
  public boolean decodeInto(ArrowBuf encoded, ArrowBuf target, long offset, long size) {
    BytesToBytesCodec.checkRegion(target, offset, size);
    long length = check(encoded, size);
    unshuffle(encoded, target.memoryAddress() + offset, length);
    return true;
  }

  private long check(ArrowBuf encoded, long decodedSize) {
    long length = encoded.writerIndex();
    if (decodedSize >= 0 && length != decodedSize) {
      throw new CodecException(
          "codec " + name() + ": data has " + length + " bytes, expected " + decodedSize);
    }
    if (elementSize > 1 && length % elementSize != 0) {
      throw new CodecException(
          "codec "
              + name()
              + ": "
              + length
              + " bytes are not a whole number of "
              + elementSize
              + "-byte elements");
    }
    return length;
  }

  private void unshuffle(ArrowBuf encoded, long dst, long length) {
    long src = encoded.memoryAddress();
    if (elementSize <= 1) {
      MemoryUtil.copyMemory(src, dst, length);
      return;
    }
    long n = length / elementSize;
    for (int j = 0; j < elementSize; j++) {
      long plane = src + j * n;
      long out = dst + j;
      for (long i = 0; i < n; i++) {
        MemoryUtil.putByte(out + i * elementSize, MemoryUtil.getByte(plane + i));
      }
    }
  }
}
