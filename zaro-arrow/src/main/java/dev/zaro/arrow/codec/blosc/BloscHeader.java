package dev.zaro.arrow.codec.blosc;

import dev.zaro.arrow.error.CodecException;
import org.apache.arrow.memory.ArrowBuf;

/**
 * The 16-byte header of a c-blosc 1.x frame, read and checked against the buffer that holds it.
 *
 * <pre>
 * byte 0      format version (2)
 * byte 1      compressor format version (1)
 * byte 2      flags: bit0 byte-shuffle, bit1 memcpyed, bit2 bit-shuffle, bit3 reserved,
 *             bit4 don't split, bits 5-7 compressor code
 * byte 3      typesize
 * bytes 4-7   nbytes: decoded size (little-endian i32)
 * bytes 8-11  blocksize (i32)
 * bytes 12-15 cbytes: frame size including this header (i32)
 * </pre>
 *
 * @param version the blosc format version
 * @param compressorVersion the compressor format version
 * @param flags the flag byte
 * @param typesize the element size shuffling works with (1..255)
 * @param nbytes decoded size
 * @param blocksize decoded bytes per block (the last block may be shorter)
 * @param cbytes encoded size of the whole frame
 */
public record BloscHeader(
    int version,
    int compressorVersion,
    int flags,
    int typesize,
    int nbytes,
    int blocksize,
    int cbytes) {

  /** Header length, and the offset of a memcpyed frame's data. */
  public static final int LENGTH = 16;

  /** The only frame format version c-blosc 1.x writes and reads. */
  public static final int FORMAT_VERSION = 2;

  /** c-blosc's largest buffer ({@code BLOSC_MAX_BUFFERSIZE}). */
  public static final int MAX_NBYTES = Integer.MAX_VALUE - LENGTH;

  static final int DOSHUFFLE = 0x01;
  static final int MEMCPYED = 0x02;
  static final int DOBITSHUFFLE = 0x04;
  static final int RESERVED = 0x08;
  static final int DONT_SPLIT = 0x10;

  /**
   * Reads and checks the header of the frame in {@code frame[0, writerIndex)} ({@code frame} is not
   * closed or retained): every field that sizes or locates data is checked against the others and
   * against the buffer, so that the block table can be read without going past the frame. Bytes
   * after {@code cbytes} are allowed and ignored.
   *
   * @throws CodecException if the header is truncated, inconsistent or from another format
   */
  public static BloscHeader read(ArrowBuf frame) {
    long length = frame.writerIndex();
    if (length < LENGTH) {
      throw error("frame of " + length + " bytes is shorter than the " + LENGTH + "-byte header");
    }
    BloscHeader h =
        new BloscHeader(
            frame.getByte(0) & 0xff,
            frame.getByte(1) & 0xff,
            frame.getByte(2) & 0xff,
            frame.getByte(3) & 0xff,
            frame.getInt(4),
            frame.getInt(8),
            frame.getInt(12));
    h.check(length);
    return h;
  }

  private void check(long length) {
    if (version != FORMAT_VERSION) {
      throw error(
          "unsupported format version "
              + version
              + " (c-blosc 1.x frames have version "
              + FORMAT_VERSION
              + "; c-blosc2 frames are not supported)");
    }
    if (compressorVersion != 1) {
      throw error(
          "unsupported compressor format version " + compressorVersion + " (c-blosc 1.x writes 1)");
    }
    if ((flags & RESERVED) != 0) {
      throw error(String.format("reserved flag bit 3 is set (flags 0x%02x)", flags));
    }
    if ((flags & (DOSHUFFLE | DOBITSHUFFLE)) == (DOSHUFFLE | DOBITSHUFFLE)) {
      throw error(
          String.format(
              "flags 0x%02x ask for both byte- and bit-shuffle (a c-blosc2 header?)", flags));
    }
    if (typesize == 0) {
      throw error("typesize is 0");
    }
    if (nbytes < 0 || nbytes > MAX_NBYTES) {
      throw error(
          "decoded size "
              + Integer.toUnsignedString(nbytes)
              + " is out of range (0.."
              + MAX_NBYTES
              + ")");
    }
    if (cbytes < LENGTH) {
      throw error(
          "frame size (cbytes) " + cbytes + " is smaller than the " + LENGTH + "-byte header");
    }
    if (cbytes > length) {
      throw error("frame is truncated: header says " + cbytes + " bytes, buffer holds " + length);
    }
    if (nbytes == 0) {
      return;
    }
    // a memcpyed frame's blocks still matter: decoding through a window goes block by block
    if (blocksize <= 0) {
      throw error("blocksize " + blocksize + " is not positive");
    }
    if (memcpyed()) {
      if (cbytes != (long) nbytes + LENGTH) {
        throw error(
            "memcpyed frame of "
                + nbytes
                + " bytes must be "
                + ((long) nbytes + LENGTH)
                + " bytes long, header says "
                + cbytes);
      }
      return;
    }
    compressor();
    long tableEnd = LENGTH + 4L * blockCount();
    if (tableEnd > cbytes) {
      throw error(
          blockCount()
              + " blocks of "
              + blocksize
              + " bytes need a "
              + (tableEnd - LENGTH)
              + "-byte offset table, but the frame has "
              + (cbytes - LENGTH)
              + " bytes after its header");
    }
  }

  /** Bytes the frame stores at its start after {@link #LENGTH}: one i32 offset per block. */
  int tableEnd() {
    return LENGTH + 4 * blockCount();
  }

  public boolean memcpyed() {
    return (flags & MEMCPYED) != 0;
  }

  /** True when blocks were byte-shuffled (c-blosc ignores the flag for typesize 1). */
  public boolean byteShuffle() {
    return (flags & DOSHUFFLE) != 0;
  }

  public boolean bitShuffle() {
    return (flags & DOBITSHUFFLE) != 0;
  }

  /** The writer's "don't split" flag; see {@link #streams} for the full rule. */
  public boolean dontSplit() {
    return (flags & DONT_SPLIT) != 0;
  }

  /** The compressor of a compressed (not memcpyed) frame. */
  public BloscCompressor compressor() {
    int code = flags >>> 5;
    BloscCompressor c = BloscCompressor.fromCode(code);
    if (c == null) {
      throw error(
          String.format(
              "unknown compressor code %d (flags 0x%02x; known: 0 blosclz, 1 lz4/lz4hc,"
                  + " 2 snappy, 3 zlib, 4 zstd)",
              code, flags));
    }
    return c;
  }

  /** Blocks in the frame: {@code ceil(nbytes / blocksize)}. */
  public int blockCount() {
    if (nbytes == 0) {
      return 0;
    }
    return (int) (((long) nbytes + blocksize - 1) / blocksize);
  }

  /** Decoded size of block {@code i}: the block size, or what is left for the last one. */
  public int blockSize(int i) {
    long start = (long) i * blocksize;
    return (int) Math.min(blocksize, nbytes - start);
  }

  /**
   * The number of streams block {@code i} is stored as, per c-blosc's {@code blosc_d}: {@code
   * typesize} streams (one per byte of the element) unless the don't-split flag is set, the block
   * is the short last one, typesize exceeds 16, or the block holds fewer than 128 elements; else 1.
   */
  public int streams(int i) {
    int size = blockSize(i);
    boolean leftover = size < blocksize;
    if (!dontSplit() && typesize <= 16 && size / typesize >= 128 && !leftover) {
      return typesize;
    }
    return 1;
  }

  static CodecException error(String message) {
    return new CodecException("codec blosc: " + message);
  }
}
