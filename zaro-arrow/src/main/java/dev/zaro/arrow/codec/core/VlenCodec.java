package dev.zaro.arrow.codec.core;

import dev.zaro.arrow.codec.ArrayToBytesCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecCapability;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.codec.VarHeap;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.metadata.CodecSpec;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * {@code vlen-utf8} and {@code vlen-bytes} (also numcodecs' VLenUTF8/VLenBytes): a u32 element
 * count, then per element (C order) a u32 length and its bytes. Decoding does not copy the values:
 * the chunk buffer is kept in the view's {@link VarHeap} and each selected element becomes a
 * 16-byte reference (address, length) in the target.
 */
public record VlenCodec(String name) implements ArrayToBytesCodec {

  static VlenCodec create(CodecSpec spec, ChunkSpec input) {
    new CodecConfig(spec).only();
    if (!input.dataType().isVariableLength()) {
      throw new CodecException(
          "codec " + spec.name() + " needs a string or bytes data type, not " + input.dataType());
    }
    return new VlenCodec(spec.name());
  }

  @Override
  public long encodedSize(ChunkSpec spec) {
    return -1;
  }

  /** The chunk buffer becomes part of the result, so it must not be a reused scratch buffer. */
  @Override
  public Set<CodecCapability> capabilities() {
    return Set.of(CodecCapability.KEEPS_INPUT);
  }

  @Override
  public void decodeInto(
      ArrowBuf encoded, ChunkSpec spec, SlabView target, BufferAllocator allocator) {
    if (target.heap() == null || target.itemSize() != VarHeap.ELEMENT_BYTES) {
      throw new IllegalStateException("codec " + name + " needs a variable-length target view");
    }
    long length = encoded.writerIndex();
    long n = spec.elementCount();
    if (length < 4) {
      throw new CodecException(
          "codec " + name + ": chunk of " + length + " bytes has no element count");
    }
    long count = encoded.getInt(0) & 0xffffffffL;
    if (count != n) {
      throw new CodecException(
          "codec " + name + ": chunk holds " + count + " elements, expected " + n + " for " + spec);
    }
    long base = encoded.memoryAddress();
    try (ArrowBuf refs = allocator.buffer(Math.max(1, n * VarHeap.ELEMENT_BYTES))) {
      long pos = 4;
      long out = refs.memoryAddress();
      for (long i = 0; i < n; i++) {
        if (pos + 4 > length) {
          throw new CodecException(
              "codec " + name + ": chunk ends inside the length of element " + i);
        }
        long len = MemoryUtil.getInt(base + pos) & 0xffffffffL;
        pos += 4;
        if (len > length - pos) {
          throw new CodecException(
              "codec "
                  + name
                  + ": element "
                  + i
                  + " claims "
                  + len
                  + " bytes but only "
                  + (length - pos)
                  + " remain");
        }
        MemoryUtil.putLong(out + i * 16, base + pos);
        MemoryUtil.putLong(out + i * 16 + 8, len);
        pos += len;
      }
      if (pos != length) {
        throw new CodecException(
            "codec " + name + ": " + (length - pos) + " bytes left after " + n + " elements");
      }
      target.heap().retain(encoded);
      target.scatterFrom(refs, n * VarHeap.ELEMENT_BYTES, 0);
    }
  }
}
