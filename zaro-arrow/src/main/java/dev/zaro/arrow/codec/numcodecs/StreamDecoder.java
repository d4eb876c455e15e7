package dev.zaro.arrow.codec.numcodecs;

import dev.zaro.arrow.codec.internal.OutputBuffer;
import dev.zaro.arrow.error.CodecException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Runs a decompressor that is a Java {@link InputStream} (bz2, lzma) over an encoded buffer, into
 * an {@link OutputBuffer}: never more than the expected decoded size is allocated or written, and a
 * stream that decodes to more or fewer bytes is an error. Library exceptions on corrupt data become
 * {@link CodecException}s naming the codec.
 */
final class StreamDecoder {
  private StreamDecoder() {}

  /** Opens the decompressing stream over the encoded bytes. */
  @FunctionalInterface
  interface Opener {
    InputStream open(InputStream encoded) throws IOException;
  }

  static ArrowBuf decode(
      String codec, Opener opener, ArrowBuf encoded, long decodedSize, BufferAllocator allocator) {
    try (OutputBuffer out =
        OutputBuffer.allocate(allocator, decodedSize, encoded.writerIndex() * 4)) {
      decodeTo(codec, opener, encoded, out);
      return out.take();
    }
  }

  static boolean decodeInto(
      String codec, Opener opener, ArrowBuf encoded, ArrowBuf target, long offset, long size) {
    try (OutputBuffer out = OutputBuffer.into(target, offset, size)) { // checks the region
      decodeTo(codec, opener, encoded, out);
    }
    return true;
  }

  private static void decodeTo(String codec, Opener opener, ArrowBuf encoded, OutputBuffer out) {
    long length = encoded.writerIndex();
    if (length > Integer.MAX_VALUE) {
      throw new CodecException(
          "codec " + codec + ": encoded chunk of " + length + " bytes is too large");
    }
    if (length == 0) {
      throw new CodecException("codec " + codec + ": empty input");
    }
    byte[] chunk = new byte[(int) Math.min(64 * 1024, Math.max(1024, length * 4))];
    try (InputStream in = opener.open(new BufferInputStream(encoded.nioBuffer(0, (int) length)))) {
      while (true) {
        long room = out.remaining();
        if (room == 0 && !out.grow()) {
          if (in.read() >= 0) {
            throw new CodecException(
                "codec "
                    + codec
                    + ": stream decompresses to more than the expected "
                    + out.limit()
                    + " bytes");
          }
          break;
        }
        int n = in.read(chunk, 0, (int) Math.min(chunk.length, out.remaining()));
        if (n < 0) {
          break;
        }
        MemoryUtil.copyToMemory(chunk, 0, out.writeAddress(), n);
        out.advance(n);
      }
    } catch (IOException e) {
      throw new CodecException(
          "codec " + codec + ": corrupt or truncated stream: " + e.getMessage(), e);
    } catch (CodecException e) {
      throw e;
    } catch (RuntimeException e) {
      // decoders may throw unchecked exceptions on malformed input
      throw new CodecException("codec " + codec + ": corrupt stream: " + e, e);
    }
    if (out.isFixed() && out.written() != out.limit()) {
      throw new CodecException(
          "codec " + codec + ": decoded " + out.written() + " bytes, expected " + out.limit());
    }
  }

  /** An input stream over a ByteBuffer (here: a view of the encoded ArrowBuf, no copy). */
  private static final class BufferInputStream extends InputStream {
    private final ByteBuffer buffer;

    BufferInputStream(ByteBuffer buffer) {
      this.buffer = buffer;
    }

    @Override
    public int read() {
      return buffer.hasRemaining() ? buffer.get() & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (len == 0) {
        return 0;
      }
      if (!buffer.hasRemaining()) {
        return -1;
      }
      int n = Math.min(len, buffer.remaining());
      buffer.get(b, off, n);
      return n;
    }

    @Override
    public int available() {
      return buffer.remaining();
    }

    @Override
    public long skip(long n) {
      int k = (int) Math.max(0, Math.min(n, buffer.remaining()));
      buffer.position(buffer.position() + k);
      return k;
    }
  }
}
