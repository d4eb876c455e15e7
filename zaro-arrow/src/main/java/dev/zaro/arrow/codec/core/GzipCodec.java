package dev.zaro.arrow.codec.core;

import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.codec.CodecCapability;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.codec.internal.OutputBuffer;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.metadata.CodecSpec;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Set;
import java.util.zip.CRC32;
import java.util.zip.Inflater;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/** {@code gzip}: an RFC 1952 stream (one or more members); CRC-32 and size trailers checked. */
public record GzipCodec(int level) implements BytesToBytesCodec {
  private static final int FHCRC = 2;
  private static final int FEXTRA = 4;
  private static final int FNAME = 8;
  private static final int FCOMMENT = 16;

  static GzipCodec create(CodecSpec spec) {
    CodecConfig config = new CodecConfig(spec).only("level");
    int level = config.intValue("level", 6);
    if (level < 0 || level > 9) {
      throw config.error("level must be 0..9, not " + level);
    }
    return new GzipCodec(level);
  }

  @Override
  public String name() {
    return "gzip";
  }

  /** Asked once per chunk (and per inner chunk of a shard): made once. */
  private static final Set<CodecCapability> CAPABILITIES =
      Set.of(CodecCapability.DECODE_IN_PLACE, CodecCapability.DECODE_STREAMING);

  @Override
  public Set<CodecCapability> capabilities() {
    return CAPABILITIES;
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

  /**
   * Inflates through {@code window}, handing each filled part to {@code sink} (CRC and size
   * checked).
   */
  @Override
  public boolean decodeStreaming(
      ArrowBuf encoded, long decodedSize, ArrowBuf window, int unit, Sink sink) {
    if (decodedSize < 0 || window.capacity() < unit) {
      return false;
    }
    try (OutputBuffer out = OutputBuffer.window(window, decodedSize, unit, sink)) {
      decodeTo(encoded, out);
      out.flush();
    }
    return true;
  }

  private void decodeTo(ArrowBuf encoded, OutputBuffer out) {
    long length = encoded.writerIndex();
    if (length > Integer.MAX_VALUE) {
      throw new CodecException("codec gzip: encoded chunk of " + length + " bytes is too large");
    }
    ByteBuffer in = encoded.nioBuffer(0, (int) length).order(ByteOrder.LITTLE_ENDIAN);
    int members = 0;
    while (true) {
      int memberStart = in.position();
      readHeader(in);
      long before = out.written();
      CRC32 crc = new CRC32();
      Inflater inflater = new Inflater(true);
      int rest;
      try {
        rest = Inflation.inflate("gzip", inflater, in.slice(), out, crc);
      } finally {
        inflater.end();
      }
      int trailer = in.limit() - rest;
      if (rest < 8) {
        throw new CodecException(
            "codec gzip: member at byte " + memberStart + " lacks its 8-byte trailer");
      }
      int storedCrc = in.getInt(trailer);
      int storedSize = in.getInt(trailer + 4);
      long produced = out.written() - before;
      if (storedCrc != (int) crc.getValue()) {
        throw new CodecException(
            String.format(
                "codec gzip: CRC-32 mismatch: trailer says 0x%08x, data has 0x%08x",
                storedCrc, (int) crc.getValue()));
      }
      if (storedSize != (int) produced) {
        throw new CodecException(
            "codec gzip: trailer size "
                + Integer.toUnsignedString(storedSize)
                + " differs from the "
                + produced
                + " bytes decoded");
      }
      members++;
      in.position(trailer + 8);
      if (in.remaining() >= 2
          && (in.get(in.position()) & 0xff) == 0x1f
          && (in.get(in.position() + 1) & 0xff) == 0x8b) {
        continue;
      }
      while (in.hasRemaining()) {
        if (in.get() != 0) {
          throw new CodecException(
              "codec gzip: " + (in.remaining() + 1) + " bytes of garbage after member " + members);
        }
      }
      break;
    }
    if (out.isFixed() && out.written() != out.limit()) {
      throw new CodecException(
          "codec gzip: decoded " + out.written() + " bytes, expected " + out.limit());
    }
  }

  private static void readHeader(ByteBuffer in) {
    if (in.remaining() < 10) {
      throw new CodecException(
          "codec gzip: data too short for a gzip header (" + in.remaining() + " bytes)");
    }
    int start = in.position();
    if ((in.get(start) & 0xff) != 0x1f || (in.get(start + 1) & 0xff) != 0x8b) {
      throw new CodecException(
          String.format(
              "codec gzip: not gzip data (starts with 0x%02x%02x, not 0x1f8b)",
              in.get(start) & 0xff, in.get(start + 1) & 0xff));
    }
    if (in.get(start + 2) != 8) {
      throw new CodecException("codec gzip: unknown compression method " + in.get(start + 2));
    }
    int flags = in.get(start + 3) & 0xff;
    if ((flags & 0xe0) != 0) {
      throw new CodecException(
          "codec gzip: reserved header flags set (0x" + Integer.toHexString(flags) + ")");
    }
    int pos = start + 10;
    try {
      if ((flags & FEXTRA) != 0) {
        int xlen = in.getShort(pos) & 0xffff;
        pos += 2 + xlen;
      }
      if ((flags & FNAME) != 0) {
        while (in.get(pos++) != 0) {}
      }
      if ((flags & FCOMMENT) != 0) {
        while (in.get(pos++) != 0) {}
      }
      if ((flags & FHCRC) != 0) {
        pos += 2;
      }
      if (pos > in.limit()) {
        throw new IndexOutOfBoundsException();
      }
    } catch (IndexOutOfBoundsException e) {
      throw new CodecException("codec gzip: header is truncated");
    }
    in.position(pos);
  }
}
