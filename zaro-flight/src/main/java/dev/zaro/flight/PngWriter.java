package dev.zaro.flight;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * Encodes 8-bit RGBA pixels as a PNG (ISO/IEC 15948: colour type 6, no interlace, filter type 0 on
 * every scanline, one zlib stream in one IDAT chunk), with {@code java.util.zip} only: ImageIO's
 * writer would first copy the pixels into a BufferedImage of its own layout.
 */
final class PngWriter {
  private static final byte[] SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

  private PngWriter() {}

  /**
   * The PNG of {@code rgba}: {@code height} rows of {@code width} pixels, 4 bytes each (red, green,
   * blue, alpha), row after row from the top.
   */
  static byte[] encode(byte[] rgba, int width, int height) {
    if (width <= 0 || height <= 0 || (long) width * height * 4 != rgba.length) {
      throw new IllegalArgumentException(
          "a " + width + " x " + height + " RGBA image needs " + 4L * width * height + " bytes");
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(rgba.length / 4 + 1024);
    out.writeBytes(SIGNATURE);
    byte[] header = new byte[13];
    putInt(header, 0, width);
    putInt(header, 4, height);
    header[8] = 8; // bits per sample
    header[9] = 6; // colour type: RGBA
    // compression 0 (deflate), filter method 0, no interlace
    chunk(out, "IHDR", header, header.length);
    Deflater deflater = new Deflater(Deflater.BEST_SPEED);
    try {
      ByteArrayOutputStream idat = new ByteArrayOutputStream(rgba.length / 8 + 64);
      byte[] row = new byte[1 + width * 4]; // filter byte 0 (None), then the row's pixels
      byte[] buf = new byte[1 << 16];
      for (int y = 0; y < height; y++) {
        System.arraycopy(rgba, y * width * 4, row, 1, width * 4);
        deflater.setInput(row);
        while (!deflater.needsInput()) {
          idat.write(buf, 0, deflater.deflate(buf));
        }
      }
      deflater.finish();
      while (!deflater.finished()) {
        idat.write(buf, 0, deflater.deflate(buf));
      }
      chunk(out, "IDAT", idat.toByteArray(), idat.size());
    } finally {
      deflater.end();
    }
    chunk(out, "IEND", new byte[0], 0);
    return out.toByteArray();
  }

  private static void chunk(ByteArrayOutputStream out, String type, byte[] data, int length) {
    byte[] b = new byte[4];
    putInt(b, 0, length);
    out.writeBytes(b);
    byte[] t = type.getBytes(StandardCharsets.US_ASCII);
    out.writeBytes(t);
    out.write(data, 0, length);
    CRC32 crc = new CRC32();
    crc.update(t);
    crc.update(data, 0, length);
    putInt(b, 0, (int) crc.getValue());
    out.writeBytes(b);
  }

  private static void putInt(byte[] b, int at, int v) {
    b[at] = (byte) (v >>> 24);
    b[at + 1] = (byte) (v >>> 16);
    b[at + 2] = (byte) (v >>> 8);
    b[at + 3] = (byte) v;
  }
}
