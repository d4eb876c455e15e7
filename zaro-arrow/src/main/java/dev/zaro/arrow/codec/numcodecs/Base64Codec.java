package dev.zaro.arrow.codec.numcodecs;

import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.metadata.CodecSpec;
import java.nio.ByteBuffer;
import java.util.Base64;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * numcodecs {@code base64}: the data as standard (RFC 4648, padded) base64 text, what Python's
 * {@code base64.standard_b64encode} writes. Text outside that alphabet is refused.
 */
public record Base64Codec() implements BytesToBytesCodec {

  static Base64Codec create(CodecSpec spec) {
    new CodecConfig(spec).only();
    return new Base64Codec();
  }

  @Override
  public String name() {
    return "numcodecs.base64";
  }

  @Override
  public ArrowBuf decode(ArrowBuf encoded, long decodedSize, BufferAllocator allocator) {
    long length = encoded.writerIndex();
    if (length > Integer.MAX_VALUE) {
      throw new CodecException("codec " + name() + ": chunk of " + length + " bytes is too large");
    }
    if (length % 4 != 0) {
      throw new CodecException(
          "codec "
              + name()
              + ": not base64 text: "
              + length
              + " characters is not a multiple of 4 (padding missing)");
    }
    ByteBuffer decoded;
    try {
      decoded = Base64.getDecoder().decode(encoded.nioBuffer(0, (int) length));
    } catch (IllegalArgumentException e) {
      throw new CodecException("codec " + name() + ": not base64 text: " + e.getMessage());
    }
    int size = decoded.remaining();
    if (decodedSize >= 0 && size != decodedSize) {
      throw new CodecException(
          "codec " + name() + ": decoded " + size + " bytes, expected " + decodedSize);
    }
    ArrowBuf out = allocator.buffer(Math.max(1, size));
    out.setBytes(0, decoded);
    out.writerIndex(size);
    return out;
  }
}
