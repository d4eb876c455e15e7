package dev.zaro.arrow.codec.blosc;

import com.github.luben.zstd.Zstd;
import dev.zaro.arrow.codec.lz.Lz4BlockDecoder;
import dev.zaro.arrow.codec.lz.StreamException;
import dev.zaro.arrow.error.CodecException;
import java.nio.ByteBuffer;
import java.util.function.IntConsumer;
import java.util.function.IntToLongFunction;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Decodes the blocks of a c-blosc 1.x frame (c-blosc's {@code blosc_d}) on raw addresses. The
 * frame's header has been checked by {@link BloscHeader#read}; this class checks every block offset
 * and stream size against the frame before reading through it, and every stream decoder checks its
 * own lengths and offsets, so nothing here reads outside {@code [frame, frame + cbytes)} or writes
 * outside {@code [dst, dst + nbytes)}.
 */
final class BloscDecoder {
  private BloscDecoder() {}

  /**
   * Checks the block table and every stream header of a compressed frame, and that each stream can
   * decode to its share of the block, before any memory is allocated: a header that lies about the
   * decoded size fails here.
   */
  static void validate(BloscHeader h, long frame) {
    if (h.nbytes() == 0 || h.memcpyed()) {
      return;
    }
    BloscCompressor compressor = h.compressor();
    int blocks = h.blockCount();
    for (int i = 0; i < blocks; i++) {
      long pos = blockStart(h, frame, i);
      int streams = streams(h, i);
      int size = h.blockSize(i) / streams;
      for (int s = 0; s < streams; s++) {
        int csize = streamSize(h, frame, i, s, pos);
        pos += 4;
        if (csize != size) {
          long declared;
          try {
            declared =
                switch (compressor) {
                  case SNAPPY -> SnappyDecoder.declaredLength(frame + pos, csize);
                  case ZSTD -> zstdContentSize(frame + pos, csize);
                  default -> -1;
                };
          } catch (StreamException e) {
            throw streamError(h, i, s, csize, e.getMessage());
          }
          if (declared >= 0 && declared != size) {
            throw streamError(
                h,
                i,
                s,
                csize,
                "cannot decode to the "
                    + size
                    + " bytes the header implies (it declares "
                    + Long.toUnsignedString(declared)
                    + ")");
          }
          long max = compressor.maxDecodedSize(csize);
          if (declared < 0 && max < size) {
            throw streamError(
                h,
                i,
                s,
                csize,
                "cannot decode to the "
                    + size
                    + " bytes the header implies ("
                    + compressor.formatName()
                    + " decodes at most "
                    + max
                    + ")");
          }
        }
        pos += csize;
      }
    }
  }

  /**
   * Decodes the frame at {@code frame} into {@code dst}, which has room for exactly {@code
   * h.nbytes()} bytes. Callers {@link #validate} first (so a bad frame fails before anything is
   * allocated or written); offsets and sizes are checked again here as they are read.
   *
   * @throws CodecException if a block or stream is corrupt
   */
  static void decode(BloscHeader h, long frame, long dst) {
    decode(h, frame, dst, 0, h.nbytes());
  }

  /**
   * Decodes only the blocks holding decoded bytes {@code [from, to)} (blosc blocks are independent,
   * as in c-blosc's {@code blosc_getitem}), each to its place in {@code dst}; bytes of other blocks
   * are not written.
   */
  static void decode(BloscHeader h, long frame, long dst, long from, long to) {
    int nbytes = h.nbytes();
    if (nbytes == 0 || to <= from) {
      return;
    }
    if (from < 0 || to > nbytes) {
      throw new IllegalArgumentException(
          "bytes [" + from + ", " + to + ") of a " + nbytes + "-byte frame");
    }
    if (h.memcpyed()) {
      MemoryUtil.copyMemory(frame + BloscHeader.LENGTH + from, dst + from, to - from);
      return;
    }
    decodeBlocks(
        h,
        frame,
        (int) (from / h.blocksize()),
        (int) ((to - 1) / h.blocksize()),
        i -> dst + (long) i * h.blocksize(),
        i -> {});
  }

  /** Receives each decoded block. */
  interface BlockSink {
    /**
     * Block {@code i}, {@code size} bytes at {@code address}, decoded bytes from {@code i *
     * blocksize}.
     */
    void accept(int i, long address, int size);
  }

  /**
   * Decodes the blocks one after another into the same {@code window} of at least one block ({@code
   * h.blocksize()} bytes), handing each to {@code sink}: a frame decodes in a block's worth of
   * memory.
   */
  static void decodeThrough(BloscHeader h, long frame, long window, BlockSink sink) {
    int nbytes = h.nbytes();
    if (nbytes == 0) {
      return;
    }
    if (h.memcpyed()) {
      for (int i = 0; i < h.blockCount(); i++) {
        sink.accept(i, frame + BloscHeader.LENGTH + (long) i * h.blocksize(), h.blockSize(i));
      }
      return;
    }
    decodeBlocks(
        h, frame, 0, h.blockCount() - 1, i -> window, i -> sink.accept(i, window, h.blockSize(i)));
  }

  /**
   * Decodes blocks {@code first..last}, block {@code i} to {@code out(i)}, calling {@code done(i)}
   * after each.
   */
  private static void decodeBlocks(
      BloscHeader h, long frame, int first, int last, IntToLongFunction outOf, IntConsumer done) {
    int nbytes = h.nbytes();
    int typesize = h.typesize();
    boolean byteShuffle = h.byteShuffle() && typesize > 1;
    boolean bitShuffle = h.bitShuffle();
    long blockBytes = Math.min(h.blocksize(), nbytes);
    long scratchBytes = byteShuffle || bitShuffle ? blockBytes : 0;
    if (bitShuffle && typesize > 1) {
      scratchBytes *= 2;
    }
    BloscCompressor compressor = h.compressor();
    long scratch = scratchBytes > 0 ? MemoryUtil.allocateMemory(scratchBytes) : 0;
    Inflater inflater = compressor == BloscCompressor.ZLIB ? new Inflater() : null;
    try {
      for (int i = first; i <= last; i++) {
        int size = h.blockSize(i);
        long out = outOf.applyAsLong(i);
        boolean unbits = bitShuffle && size >= typesize;
        long streamsDst = byteShuffle || unbits ? scratch : out;
        decodeStreams(h, compressor, frame, i, streamsDst, inflater);
        if (byteShuffle) {
          Unshuffle.bytes(typesize, size, scratch, out);
        } else if (unbits) {
          Unshuffle.bits(typesize, size, scratch, out, scratch + blockBytes);
        }
        done.accept(i);
      }
    } finally {
      if (scratch != 0) {
        MemoryUtil.freeMemory(scratch);
      }
      if (inflater != null) {
        inflater.end();
      }
    }
  }

  /** Decodes the streams of block {@code i}, one after another, into {@code out}. */
  private static void decodeStreams(
      BloscHeader h, BloscCompressor compressor, long frame, int i, long out, Inflater inflater) {
    long pos = blockStart(h, frame, i);
    int streams = streams(h, i);
    int size = h.blockSize(i) / streams;
    for (int s = 0; s < streams; s++) {
      int csize = streamSize(h, frame, i, s, pos);
      pos += 4;
      long src = frame + pos;
      long dst = out + (long) s * size;
      if (csize == size) {
        MemoryUtil.copyMemory(src, dst, size);
      } else {
        try {
          switch (compressor) {
            case BLOSCLZ -> BlosclzDecoder.decode(src, csize, dst, size);
            case LZ4 -> Lz4BlockDecoder.decode(src, csize, dst, size);
            case SNAPPY -> SnappyDecoder.decode(src, csize, dst, size);
            case ZLIB -> inflate(inflater, src, csize, dst, size);
            case ZSTD -> unzstd(src, csize, dst, size);
            default -> throw new IllegalStateException(compressor.toString());
          }
        } catch (StreamException e) {
          throw streamError(h, i, s, csize, e.getMessage());
        }
      }
      pos += csize;
    }
  }

  /** The offset of block {@code i}'s first stream, checked to lie in the frame's data. */
  private static long blockStart(BloscHeader h, long frame, int i) {
    int start = MemoryUtil.getInt(frame + BloscHeader.LENGTH + 4L * i);
    if (start < h.tableEnd() || start > h.cbytes() - 4) {
      throw BloscHeader.error(
          "block "
              + i
              + " of "
              + h.blockCount()
              + " starts at byte "
              + start
              + ", outside the frame's data ["
              + h.tableEnd()
              + ", "
              + h.cbytes()
              + ")");
    }
    return start;
  }

  private static int streams(BloscHeader h, int i) {
    int streams = h.streams(i);
    if (h.blockSize(i) % streams != 0) {
      throw BloscHeader.error(
          "block "
              + i
              + " of "
              + h.blockSize(i)
              + " bytes cannot be split into "
              + streams
              + " streams (blocksize "
              + h.blocksize()
              + " is not a multiple of typesize "
              + h.typesize()
              + ")");
    }
    return streams;
  }

  /** The compressed size at {@code pos}, checked to fit in the frame. */
  private static int streamSize(BloscHeader h, long frame, int i, int s, long pos) {
    if (pos > h.cbytes() - 4) {
      throw BloscHeader.error(
          "block "
              + i
              + " stream "
              + s
              + ": its size field at byte "
              + pos
              + " passes the end of the "
              + h.cbytes()
              + "-byte frame");
    }
    int csize = MemoryUtil.getInt(frame + pos);
    if (csize < 0 || csize > h.cbytes() - pos - 4) {
      throw BloscHeader.error(
          "block "
              + i
              + " stream "
              + s
              + ": compressed size "
              + csize
              + " at byte "
              + pos
              + " passes the end of the "
              + h.cbytes()
              + "-byte frame");
    }
    return csize;
  }

  private static CodecException streamError(
      BloscHeader h, int block, int stream, int csize, String message) {
    return BloscHeader.error(
        "block "
            + block
            + " stream "
            + stream
            + " ("
            + h.compressor().formatName()
            + ", "
            + csize
            + " bytes): "
            + message);
  }

  /** One zlib stream (header, deflate data, Adler-32), exactly {@code size} bytes. */
  private static void inflate(Inflater inflater, long src, int csize, long dst, int size) {
    inflater.reset();
    inflater.setInput(MemoryUtil.directBuffer(src, csize));
    ByteBuffer out = MemoryUtil.directBuffer(dst, size);
    try {
      int stalls = 0;
      while (out.hasRemaining() && !inflater.finished()) {
        int n = inflater.inflate(out);
        if (n > 0) {
          stalls = 0;
          continue;
        }
        if (inflater.finished()) {
          break;
        }
        if (inflater.needsDictionary()) {
          throw new StreamException("zlib stream needs a preset dictionary");
        }
        if (inflater.needsInput()) {
          throw new StreamException(
              "zlib stream is truncated after " + out.position() + " decoded bytes");
        }
        if (++stalls > 2) {
          throw new StreamException("zlib stream makes no progress");
        }
      }
      if (!inflater.finished()) {
        if (inflater.inflate(new byte[1]) > 0) {
          throw new StreamException("zlib stream decodes to more than " + size + " bytes");
        }
        if (!inflater.finished()) {
          throw new StreamException(
              "zlib stream is truncated (no end of stream after " + size + " bytes)");
        }
      }
    } catch (DataFormatException e) {
      throw new StreamException("corrupt zlib data: " + e.getMessage());
    }
    if (out.hasRemaining()) {
      throw new StreamException(
          "zlib stream decodes to " + out.position() + " bytes, expected " + size);
    }
  }

  /**
   * The Frame_Content_Size a zstd frame header declares (c-blosc's ZSTD_compress always writes it),
   * or -1 if absent or the stream is too short to tell.
   */
  static long zstdContentSize(long src, int csize) {
    if (csize < 6 || MemoryUtil.getInt(src) != 0xFD2FB528) {
      return -1;
    }
    int fhd = MemoryUtil.getByte(src + 4) & 0xff;
    int fcsFlag = fhd >>> 6;
    boolean singleSegment = (fhd & 0x20) != 0;
    int dictIdBytes = new int[] {0, 1, 2, 4}[fhd & 3];
    int pos = 5 + (singleSegment ? 0 : 1) + dictIdBytes;
    int fcsBytes = fcsFlag == 0 ? (singleSegment ? 1 : 0) : 1 << fcsFlag;
    if (fcsBytes == 0 || pos + fcsBytes > csize) {
      return -1;
    }
    long value = 0;
    for (int b = 0; b < fcsBytes; b++) {
      value |= (MemoryUtil.getByte(src + pos + b) & 0xffL) << (8 * b);
    }
    return fcsBytes == 2 ? value + 256 : value;
  }

  /** One zstd frame, exactly {@code size} bytes. */
  private static void unzstd(long src, int csize, long dst, int size) {
    long n = Zstd.decompressUnsafe(dst, size, src, csize);
    if (Zstd.isError(n)) {
      throw new StreamException("zstd: " + Zstd.getErrorName(n));
    }
    if (n != size) {
      throw new StreamException("zstd stream decodes to " + n + " bytes, expected " + size);
    }
  }
}
