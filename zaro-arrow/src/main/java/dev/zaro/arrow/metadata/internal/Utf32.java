package dev.zaro.arrow.metadata.internal;

/**
 * NumPy's fixed-length unicode ({@code <U}n): little-endian UTF-32, padded with NUL code points.
 */
public final class Utf32 {
  private Utf32() {}

  /**
   * The string held by {@code length} bytes at {@code offset}: code points up to the first NUL.
   *
   * @throws IllegalArgumentException on a value that is not a Unicode code point
   */
  public static String decode(byte[] bytes, int offset, int length) {
    StringBuilder sb = new StringBuilder();
    for (int i = offset; i + 3 < offset + length; i += 4) {
      int c =
          (bytes[i] & 0xff)
              | (bytes[i + 1] & 0xff) << 8
              | (bytes[i + 2] & 0xff) << 16
              | (bytes[i + 3] & 0xff) << 24;
      if (c == 0) {
        break;
      }
      if (!Character.isValidCodePoint(c)) {
        throw new IllegalArgumentException("invalid UTF-32 code point 0x" + Integer.toHexString(c));
      }
      sb.appendCodePoint(c);
    }
    return sb.toString();
  }
}
