package dev.zaro.arrow.codec.core;

import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.metadata.CodecSpec;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/** {@code crc32c}: data followed by its CRC-32C, little endian; verified on every read. */
public record Crc32cCodec() implements BytesToBytesCodec {

  static Crc32cCodec create(CodecSpec spec) {
    new CodecConfig(spec).only();
    return new Crc32cCodec();
  }

  @Override
  public String name() {
    return "crc32c";
  }

  @Override
  public long encodedSize(long decodedSize) {
    return decodedSize + 4;
  }

  /** Verifies the checksum and returns the data part: a retained slice of {@code encoded}. */
  @Override
  public ArrowBuf decode(ArrowBuf encoded, long decodedSize, BufferAllocator allocator) {
    long length = verify(encoded);
    if (decodedSize >= 0 && length != decodedSize) {
      throw new CodecException(
          "codec crc32c: data has " + length + " bytes, expected " + decodedSize);
    }
    ArrowBuf data = encoded.slice(0, length);
    encoded.getReferenceManager().retain();
    data.writerIndex(length);
    return data;
  }

  /** Checks the trailing checksum; returns the data length. */
  static long verify(ArrowBuf encoded) {
    long total = encoded.writerIndex();
    if (total < 4) {
      throw new CodecException("codec crc32c: " + total + " bytes is too short to hold a checksum");
    }
    long length = total - 4;
    CRC32C crc = new CRC32C();
    if (length > 0) {
      crc.update(encoded.nioBuffer(0, (int) length));
    }
    int stored = encoded.getInt(length);
    if (stored != (int) crc.getValue()) {
      throw new CodecException(
          String.format(
              "codec crc32c: checksum mismatch: stored 0x%08x, data has 0x%08x",
              stored, (int) crc.getValue()));
    }
    return length;
  }
}
