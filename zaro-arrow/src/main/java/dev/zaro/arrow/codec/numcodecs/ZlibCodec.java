package dev.zaro.arrow.codec.numcodecs;

import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.codec.CodecCapability;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.codec.core.Inflation;
import dev.zaro.arrow.codec.internal.OutputBuffer;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.metadata.CodecSpec;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.zip.Inflater;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * numcodecs {@code zlib} {level}: one RFC 1950 zlib stream (what Python's {@code zlib.compress}
 * writes), inflated by {@link Inflater} on buffer addresses; the Adler-32 trailer is checked. Bytes
 * after the stream are refused.
 */
public record ZlibCodec(int level) implements BytesToBytesCodec {

  static ZlibCodec create(CodecSpec spec) {
    CodecConfig config = new CodecConfig(spec).only("level");
    int level = config.intValue("level", 1);
    if (level < -1 || level > 9) {
      throw config.error("level must be -1..9, not " + level);
    }
    return new ZlibCodec(level);
  }

  @Override
  public String name() {
    return "numcodecs.zlib";
  }

  @Override
  public Set<CodecCapability> capabilities() {
    return Set.of(CodecCapability.DECODE_IN_PLACE);
  }

  @Override
  public ArrowBuf decode(ArrowBuf encoded, long decodedSize, BufferAllocator allocator) {
    try (OutputBuffer out =
        OutputBuffer.allocate(allocator, decodedSize, encoded.writerIndex() * 4)) {
      decodeTo(encoded, out);
      return out.take();
    }
  }

  @Override
  public boolean decodeInto(ArrowBuf encoded, ArrowBuf target, long offset, long size) {
    try (OutputBuffer out = OutputBuffer.into(target, offset, size)) {
      decodeTo(encoded, out);
    }
    return true;
  }

  private void decodeTo(ArrowBuf encoded, OutputBuffer out) {
    long length = encoded.writerIndex();
    if (length > Integer.MAX_VALUE) {
      throw new CodecException(
          "codec " + name() + ": encoded chunk of " + length + " bytes is too large");
    }
    if (length < 2) {
      throw new CodecException(
          "codec " + name() + ": " + length + " bytes is too short for a zlib stream");
    }
    ByteBuffer in = encoded.nioBuffer(0, (int) length);
    Inflater inflater = new Inflater();
    int rest;
    try {
      rest = Inflation.inflate(name(), inflater, in, out, null);
      if (!inflater.finished()) {
        throw new CodecException(
            "codec "
                + name()
                + ": stream is truncated (ended after "
                + out.written()
                + " decoded bytes)");
      }
    } finally {
      inflater.end();
    }
    if (rest > 0) {
      throw new CodecException(
          "codec " + name() + ": " + rest + " bytes after the end of the zlib stream");
    }
    if (out.isFixed() && out.written() != out.limit()) {
      throw new CodecException(
          "codec " + name() + ": decoded " + out.written() + " bytes, expected " + out.limit());
    }
  }
}
