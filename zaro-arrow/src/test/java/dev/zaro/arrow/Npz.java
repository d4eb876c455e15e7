package dev.zaro.arrow;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Expected values numpy wrote: a .npz (a zip of .npy files, {@code np.savez_compressed}) of 1-D C
 * order arrays of the types xarray's tables hold.
 */
public final class Npz {
  private Npz() {}

  private static final Pattern DESCR = Pattern.compile("'descr': '([^']*)'");

  /**
   * Each array of the .npz by name: long[] (int64, datetime64[ns]), double[], float[], short[]
   * (int16), int[] (uint8), String[].
   */
  public static Map<String, Object> read(Path path) throws IOException {
    Map<String, Object> out = new HashMap<>();
    try (ZipFile zip = new ZipFile(path.toFile())) {
      for (ZipEntry e : zip.stream().map(ZipEntry.class::cast).toList()) {
        try (InputStream in = zip.getInputStream(e)) {
          out.put(e.getName().replaceAll("\\.npy$", ""), npy(in.readAllBytes()));
        }
      }
    }
    return out;
  }

  private static Object npy(byte[] b) {
    ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    int major = b[6];
    int headerLength = major == 1 ? buf.getShort(8) & 0xffff : buf.getInt(8);
    int start = (major == 1 ? 10 : 12) + headerLength;
    String header = new String(b, major == 1 ? 10 : 12, headerLength, StandardCharsets.ISO_8859_1);
    assertTrue(header.contains("'fortran_order': False"), header);
    Matcher m = DESCR.matcher(header);
    assertTrue(m.find(), header);
    String descr = m.group(1);
    buf.position(start);
    ByteBuffer data = buf.slice().order(ByteOrder.LITTLE_ENDIAN);
    switch (descr) {
      case "<M8[ns]", "<i8" -> {
        long[] v = new long[data.remaining() / 8];
        data.asLongBuffer().get(v);
        return v;
      }
      case "<f8" -> {
        double[] v = new double[data.remaining() / 8];
        data.asDoubleBuffer().get(v);
        return v;
      }
      case "<f4" -> {
        float[] v = new float[data.remaining() / 4];
        data.asFloatBuffer().get(v);
        return v;
      }
      case "<i2" -> {
        short[] v = new short[data.remaining() / 2];
        data.asShortBuffer().get(v);
        return v;
      }
      case "|u1" -> {
        int[] v = new int[data.remaining()];
        for (int i = 0; i < v.length; i++) {
          v[i] = data.get(i) & 0xff;
        }
        return v;
      }
      default -> {
        assertTrue(descr.startsWith("<U"), descr);
        int chars = Integer.parseInt(descr.substring(2));
        String[] v = new String[data.remaining() / (4 * chars)];
        for (int i = 0; i < v.length; i++) {
          StringBuilder sb = new StringBuilder();
          for (int c = 0; c < chars; c++) {
            int cp = data.getInt((i * chars + c) * 4);
            if (cp == 0) {
              break;
            }
            sb.appendCodePoint(cp);
          }
          v[i] = sb.toString();
        }
        return v;
      }
    }
  }
}
