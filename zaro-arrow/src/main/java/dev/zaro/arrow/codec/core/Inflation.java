package dev.zaro.arrow.codec.core;

import dev.zaro.arrow.codec.internal.OutputBuffer;
import dev.zaro.arrow.error.CodecException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/** DEFLATE decoding with {@link Inflater} on direct buffers (shared by gzip and zlib). */
public final class Inflation {
  private Inflation() {}

  /**
   * Inflates one stream from {@code input} (positioned at its start) into {@code out}.
   *
   * @param crc updated with the produced bytes when not null
   * @return bytes of {@code input} not consumed (the trailer and anything after it)
   */
  public static int inflate(
      String codec, Inflater inflater, ByteBuffer input, OutputBuffer out, CRC32 crc) {
    inflater.setInput(input);
    try {
      while (!inflater.finished()) {
        if (out.remaining() == 0 && !out.grow()) {
          if (probeMore(inflater)) {
            throw new CodecException(
                "codec "
                    + codec
                    + ": stream decompresses to more than the expected "
                    + out.limit()
                    + " bytes");
          }
          break;
        }
        ByteBuffer target = out.writable();
        int start = target.position();
        int n = inflater.inflate(target);
        if (crc != null && n > 0) {
          ByteBuffer produced = target.duplicate();
          produced.position(start).limit(start + n);
          crc.update(produced);
        }
        out.advance(n);
        if (n == 0 && !inflater.finished()) {
          if (inflater.needsDictionary()) {
            throw new CodecException("codec " + codec + ": stream needs a preset dictionary");
          }
          if (inflater.needsInput()) {
            throw new CodecException(
                "codec "
                    + codec
                    + ": stream is truncated (ended after "
                    + out.written()
                    + " decoded bytes)");
          }
        }
      }
    } catch (DataFormatException e) {
      throw new CodecException("codec " + codec + ": corrupt deflate data: " + e.getMessage(), e);
    }
    return inflater.getRemaining();
  }

  /** True if the inflater would produce another byte. */
  private static boolean probeMore(Inflater inflater) throws DataFormatException {
    byte[] one = new byte[1];
    return inflater.inflate(one) > 0;
  }
}
