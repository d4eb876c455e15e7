package dev.zaro.flight;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.flight.CallStatus;

/**
 * The explorer's colormaps: 256 colours each, from {@code explorer/colormaps.txt} (matplotlib's
 * tables, written by tests/python/make_colormaps.py): {@code viridis} and {@code rdbu} (diverging,
 * blue to white to red: matplotlib's {@code RdBu_r}).
 *
 * <p>A value {@code v} takes colour {@code floor((v - vmin) / (vmax - vmin) * 256)}, clipped to
 * {@code [0, 255]} (matplotlib's {@code Normalize} then {@code Colormap.__call__}); {@code vmin ==
 * vmax} takes colour 0; NaN and missing values are transparent.
 */
final class Colormaps {
  static final String DEFAULT = "viridis";

  private static final Map<String, byte[]> MAPS = load();

  private Colormaps() {}

  /** The names served. */
  static Set<String> names() {
    return MAPS.keySet();
  }

  /** The 256 RGB triples of {@code name} (768 bytes); INVALID_ARGUMENT for an unknown name. */
  static byte[] of(String name) {
    byte[] lut = MAPS.get(name);
    if (lut == null) {
      throw CallStatus.INVALID_ARGUMENT
          .withDescription(
              "unknown colormap '"
                  + name
                  + "' (zaro draws with: "
                  + String.join(", ", names())
                  + ")")
          .toRuntimeException();
    }
    return lut;
  }

  /**
   * Writes {@code v}'s colour into {@code rgba} at pixel {@code i}: transparent black for NaN, else
   * the colour of its place between {@code vmin} and {@code vmax}, opaque.
   */
  static void paint(byte[] lut, double v, double vmin, double vmax, byte[] rgba, int i) {
    int at = 4 * i;
    if (Double.isNaN(v)) {
      rgba[at] = 0;
      rgba[at + 1] = 0;
      rgba[at + 2] = 0;
      rgba[at + 3] = 0;
      return;
    }
    int k;
    if (vmax == vmin) {
      k = 0;
    } else {
      double x = (v - vmin) / (vmax - vmin) * 256;
      k = x < 0 ? 0 : x >= 255 ? 255 : (int) x;
    }
    rgba[at] = lut[3 * k];
    rgba[at + 1] = lut[3 * k + 1];
    rgba[at + 2] = lut[3 * k + 2];
    rgba[at + 3] = (byte) 255;
  }

  private static Map<String, byte[]> load() {
    Map<String, byte[]> maps = new LinkedHashMap<>();
    try (InputStream in = Colormaps.class.getResourceAsStream("explorer/colormaps.txt")) {
      if (in == null) {
        throw new IllegalStateException("explorer/colormaps.txt is missing from zaro-flight's jar");
      }
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] parts = line.trim().split(" ", -1);
        if (parts.length != 257) {
          throw new IllegalStateException("colormap '" + parts[0] + "' has not 256 colours");
        }
        byte[] lut = new byte[768];
        for (int k = 0; k < 256; k++) {
          int rgb = Integer.parseInt(parts[k + 1], 16);
          lut[3 * k] = (byte) (rgb >>> 16);
          lut[3 * k + 1] = (byte) (rgb >>> 8);
          lut[3 * k + 2] = (byte) rgb;
        }
        maps.put(parts[0], lut);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Collections.unmodifiableMap(maps);
  }
}
