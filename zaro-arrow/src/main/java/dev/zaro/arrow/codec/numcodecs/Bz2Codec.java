package dev.zaro.arrow.codec.numcodecs;

import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.codec.CodecCapability;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.metadata.CodecSpec;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorInputStream;

/**
 * numcodecs {@code bz2} {level}: a bzip2 stream (or several, concatenated, as Python's {@code
 * bz2.decompress} reads them), decoded by Apache Commons Compress; block and stream CRCs are
 * checked.
 */
public record Bz2Codec(int level) implements BytesToBytesCodec {

  static Bz2Codec create(CodecSpec spec) {
    CodecConfig config = new CodecConfig(spec).only("level");
    int level = config.intValue("level", 1);
    if (level < 1 || level > 9) {
      throw config.error("level must be 1..9, not " + level);
    }
    return new Bz2Codec(level);
  }

  @Override
  public String name() {
    return "numcodecs.bz2";
  }

  @Override
  public Set<CodecCapability> capabilities() {
    return Set.of(CodecCapability.DECODE_IN_PLACE);
  }

  private static final StreamDecoder.Opener OPENER = in -> new BZip2CompressorInputStream(in, true);

  @Override
  public ArrowBuf decode(ArrowBuf encoded, long decodedSize, BufferAllocator allocator) {
    return StreamDecoder.decode(name(), OPENER, encoded, decodedSize, allocator);
  }

  @Override
  public boolean decodeInto(ArrowBuf encoded, ArrowBuf target, long offset, long size) {
    return StreamDecoder.decodeInto(name(), OPENER, encoded, target, offset, size);
  }
}
