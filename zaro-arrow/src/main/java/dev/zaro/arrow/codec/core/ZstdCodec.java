package dev.zaro.arrow.codec.core;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.codec.CodecCapability;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.codec.Scratch;
import dev.zaro.arrow.codec.internal.OutputBuffer;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.metadata.CodecSpec;
import java.nio.ByteBuffer;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * {@code zstd}: one or more zstd frames, decoded by zstd-jni on buffer addresses. A frame checksum,
 * when present, is verified by libzstd.
 */
public record ZstdCodec(int level, boolean checksum) implements BytesToBytesCodec {

  /** zstd's largest block: a decoder cannot skip less. */
  private static final long MAX_BLOCK = 128 * 1024;

  static ZstdCodec create(CodecSpec spec) {
    CodecConfig config = new CodecConfig(spec).only("level", "checksum");
    return new ZstdCodec(config.intValue("level", 0), config.booleanValue("checksum", false));
  }

  /**
   * An upper bound on what {@code compressedSize} bytes of zstd can decode to: at most 128 KiB per
   * 4-byte RLE block. A frame header declaring more lies, and is refused before anything is
   * allocated.
   */
  public static long maxDecodedSize(long compressedSize) {
    return 32768 * compressedSize;
  }

  @Override
  public String name() {
    return "zstd";
  }

  /** Asked once per chunk (and per inner chunk of a shard): made once. */
  private static final Set<CodecCapability> CAPABILITIES =
      Set.of(
          CodecCapability.DECODE_IN_PLACE,
          CodecCapability.DECODE_RANGE,
          CodecCapability.DECODE_STREAMING);

  @Override
  public Set<CodecCapability> capabilities() {
    return CAPABILITIES;
  }

  @Override
  public boolean decodeInto(ArrowBuf encoded, ArrowBuf target, long offset, long size) {
    BytesToBytesCodec.checkRegion(target, offset, size); // zstd writes through raw addresses
    long n = decompress(encoded, target.memoryAddress() + offset, size);
    if (n != size) {
      throw new CodecException("codec zstd: decoded " + n + " bytes, expected " + size);
    }
    return true;
  }

  /** With a scratch: one zstd context per worker, reused (creating one per chunk costs ~30 us). */
  @Override
  public boolean decodeInto(
      ArrowBuf encoded, ArrowBuf target, long offset, long size, Scratch scratch) {
    long length = encoded.writerIndex();
    if (scratch == null || size > Integer.MAX_VALUE || length > Integer.MAX_VALUE) {
      return decodeInto(encoded, target, offset, size); // which checks the region
    }
    BytesToBytesCodec.checkRegion(target, offset, size);
    if (length == 0) {
      throw new CodecException("codec zstd: empty input");
    }
    ZstdDecompressCtx ctx = scratch.state(ZstdDecompressCtx.class, ZstdDecompressCtx::new);
    int n;
    try {
      n =
          ctx.decompressDirectByteBuffer(
              target.nioBuffer(offset, (int) size),
              0,
              (int) size,
              encoded.nioBuffer(0, (int) length),
              0,
              (int) length);
    } catch (ZstdException e) {
      if (e.getErrorCode() == Zstd.errDstSizeTooSmall()) {
        throw new CodecException(
            "codec zstd: data decompresses to more than the expected " + size + " bytes");
      }
      throw new CodecException("codec zstd: " + e.getMessage(), e);
    }
    if (n != size) {
      throw new CodecException("codec zstd: decoded " + n + " bytes, expected " + size);
    }
    return true;
  }

  /**
   * A read that needs only bytes before {@code to}: decodes the stream's prefix and stops (zstd
   * cannot skip ahead, so {@code from} does not help). Not for chunks written with frame checksums,
   * which are verified only at the end of a frame, nor when the prefix is most of the chunk or less
   * than a zstd block (128 KiB) would be skipped: the one-shot decode is faster then.
   */
  @Override
  public boolean decodeRange(
      ArrowBuf encoded, ArrowBuf target, long size, long from, long to, Scratch scratch) {
    long length = encoded.writerIndex();
    if (checksum
        || scratch == null
        || to * 4 > size * 3
        || size - to < MAX_BLOCK
        || size > Integer.MAX_VALUE
        || length > Integer.MAX_VALUE
        || length == 0) {
      return false;
    }
    if (to == 0) {
      return true;
    }
    ZstdDecompressCtx ctx = scratch.state(ZstdDecompressCtx.class, ZstdDecompressCtx::new);
    ByteBuffer src = encoded.nioBuffer(0, (int) length);
    ByteBuffer dst = target.nioBuffer(0, (int) to);
    try {
      while (dst.hasRemaining()) {
        int before = src.position() + dst.position();
        boolean frameDone = ctx.decompressDirectByteBufferStream(dst, src);
        if (frameDone && !src.hasRemaining() && dst.hasRemaining()) {
          throw new CodecException(
              "codec zstd: data ends after " + dst.position() + " bytes, expected " + size);
        }
        if (src.position() + dst.position() == before) {
          throw new CodecException(
              "codec zstd: data is truncated (ended after " + dst.position() + " bytes)");
        }
      }
    } catch (ZstdException e) {
      throw new CodecException("codec zstd: " + e.getMessage(), e);
    } finally {
      ctx.reset();
    }
    return true;
  }

  @Override
  public ArrowBuf decode(ArrowBuf encoded, long decodedSize, BufferAllocator allocator) {
    if (decodedSize >= 0) {
      ArrowBuf out = allocator.buffer(decodedSize);
      try {
        decodeInto(encoded, out, 0, decodedSize);
        out.writerIndex(decodedSize);
        return out;
      } catch (RuntimeException e) {
        out.close();
        throw e;
      }
    }
    long length = encoded.writerIndex();
    long guess = frameContentSize(encoded);
    if (guess > maxDecodedSize(length)) {
      throw new CodecException(
          "codec zstd: frame declares "
              + guess
              + " decoded bytes, more than "
              + length
              + " bytes of zstd data can hold (at most "
              + maxDecodedSize(length)
              + ")");
    }
    // a corrupt stream can ask for more room whatever it gets: the output never grows past what
    // the data can hold
    long max = Math.min(OutputBuffer.MAX_UNKNOWN_SIZE, maxDecodedSize(length));
    long capacity =
        guess >= 0 ? Math.min(guess, max) : Math.min(Math.max(length * 4, 1 << 16), max);
    while (true) {
      ArrowBuf out = allocator.buffer(capacity);
      try {
        long n =
            Zstd.decompressUnsafe(out.memoryAddress(), capacity, encoded.memoryAddress(), length);
        if (Zstd.isError(n)
            && Zstd.getErrorCode(n) == Zstd.errDstSizeTooSmall()
            && capacity < max) {
          out.close();
          capacity = Math.min(max, Math.max(capacity * 2, 1 << 16));
          continue;
        }
        check(n);
        out.writerIndex(n);
        return out;
      } catch (RuntimeException e) {
        out.close();
        throw e;
      }
    }
  }

  @Override
  public boolean decodeStreaming(
      ArrowBuf encoded, long decodedSize, ArrowBuf window, int unit, Sink sink) {
    long length = encoded.writerIndex();
    int windowSize = (int) Math.min(window.capacity(), Integer.MAX_VALUE - 8) / unit * unit;
    if (length == 0 || length > Integer.MAX_VALUE || windowSize < unit) {
      return false;
    }
    ByteBuffer src = encoded.nioBuffer(0, (int) length);
    ByteBuffer dst = window.nioBuffer(0, windowSize);
    long position = 0;
    int carry = 0;
    try (ZstdDecompressCtx ctx = new ZstdDecompressCtx()) {
      while (true) {
        dst.limit(windowSize).position(carry);
        int srcBefore = src.position();
        boolean frameDone = ctx.decompressDirectByteBufferStream(dst, src);
        int filled = dst.position();
        if (position + filled > decodedSize) {
          throw new CodecException(
              "codec zstd: data decompresses to more than the expected " + decodedSize + " bytes");
        }
        int deliver = filled - filled % unit;
        if (deliver > 0) {
          sink.accept(window, 0, position, deliver);
          position += deliver;
        }
        carry = filled - deliver;
        if (carry > 0) {
          window.setBytes(0, window, deliver, carry);
        }
        boolean inputLeft = src.hasRemaining();
        if (frameDone && !inputLeft) {
          break;
        }
        if (!inputLeft && filled < windowSize && !frameDone) {
          throw new CodecException(
              "codec zstd: data is truncated (ended after " + (position + carry) + " bytes)");
        }
        if (src.position() == srcBefore && filled == carry && !frameDone) {
          throw new CodecException(
              "codec zstd: decoder made no progress at input byte " + srcBefore);
        }
      }
    } catch (ZstdException e) {
      throw new CodecException("codec zstd: " + e.getMessage(), e);
    }
    if (position + carry != decodedSize) {
      throw new CodecException(
          "codec zstd: decoded " + (position + carry) + " bytes, expected " + decodedSize);
    }
    return true;
  }

  private static long frameContentSize(ArrowBuf encoded) {
    int length = (int) Math.min(encoded.writerIndex(), 18);
    if (length < 4) {
      return -1;
    }
    long size = Zstd.getDirectByteBufferFrameContentSize(encoded.nioBuffer(0, length), 0, length);
    return size < 0 ? -1 : size;
  }

  private static long decompress(ArrowBuf encoded, long dst, long capacity) {
    long length = encoded.writerIndex();
    if (length == 0) {
      throw new CodecException("codec zstd: empty input");
    }
    long n = Zstd.decompressUnsafe(dst, capacity, encoded.memoryAddress(), length);
    if (Zstd.isError(n) && Zstd.getErrorCode(n) == Zstd.errDstSizeTooSmall()) {
      throw new CodecException(
          "codec zstd: data decompresses to more than the expected " + capacity + " bytes");
    }
    return check(n);
  }

  private static long check(long n) {
    if (Zstd.isError(n)) {
      throw new CodecException("codec zstd: " + Zstd.getErrorName(n));
    }
    return n;
  }
}
