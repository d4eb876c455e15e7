package dev.zaro.arrow.codec.blosc;

import dev.zaro.arrow.codec.core.ZstdCodec;

/**
 * The compressor formats a c-blosc 1.x frame can hold (bits 5-7 of its flags). lz4 and lz4hc write
 * the same format.
 */
public enum BloscCompressor {
  BLOSCLZ(0, "blosclz"),
  LZ4(1, "lz4"),
  SNAPPY(2, "snappy"),
  ZLIB(3, "zlib"),
  ZSTD(4, "zstd");

  private final int code;
  private final String formatName;

  BloscCompressor(int code, String formatName) {
    this.code = code;
    this.formatName = formatName;
  }

  /** The code in the frame's flags. */
  public int code() {
    return code;
  }

  /** The format's name in messages. */
  public String formatName() {
    return formatName;
  }

  /** The compressor for a flags code, or null if the code is unknown. */
  public static BloscCompressor fromCode(int code) {
    for (BloscCompressor c : values()) {
      if (c.code == code) {
        return c;
      }
    }
    return null;
  }

  /**
   * An upper bound on what {@code compressedSize} bytes of this format can decode to, so a header
   * claiming more is refused before anything is allocated. lz4 and blosclz encode at most 255 bytes
   * per input byte (length extension bytes), deflate at most 1032, and zstd at most 128 KiB per
   * 4-byte RLE block. snappy streams (always) and zstd frames (as c-blosc writes them) state their
   * decoded size, which is checked exactly instead.
   */
  long maxDecodedSize(long compressedSize) {
    return switch (this) {
      case BLOSCLZ, LZ4 -> 255 * compressedSize;
      case ZLIB -> 1032 * compressedSize;
      case ZSTD -> ZstdCodec.maxDecodedSize(compressedSize);
      case SNAPPY -> Long.MAX_VALUE;
    };
  }
}
