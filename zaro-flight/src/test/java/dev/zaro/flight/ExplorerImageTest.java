package dev.zaro.flight;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.zaro.arrow.plan.Selection;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import javax.imageio.ImageIO;
import org.apache.arrow.flight.FlightRuntimeException;
import org.junit.jupiter.api.Test;

/**
 * The picture endpoint's parts: PNG encoding (read back by the JDK's own PNG decoder), the colormap
 * rule at its edges, and striding. The pixels of whole pictures against numpy's rendering are
 * tests/python/test_explorer.py's.
 */
class ExplorerImageTest {
  @Test
  void pngDecodesToTheSamePixels() throws IOException {
    int w = 37;
    int h = 5;
    byte[] rgba = new byte[4 * w * h];
    for (int i = 0; i < rgba.length; i++) {
      rgba[i] = (byte) (i * 31 + i / 7);
    }
    BufferedImage img = ImageIO.read(new ByteArrayInputStream(PngWriter.encode(rgba, w, h)));
    assertEquals(w, img.getWidth());
    assertEquals(h, img.getHeight());
    for (int y = 0; y < h; y++) {
      for (int x = 0; x < w; x++) {
        int at = 4 * (y * w + x);
        int argb = img.getRGB(x, y);
        assertEquals(rgba[at + 3] & 0xff, argb >>> 24, "alpha at " + x + "," + y);
        if ((rgba[at + 3] & 0xff)
            == 255) { // ImageIO premultiplies nothing, but compare opaque only
          assertEquals(rgba[at] & 0xff, (argb >>> 16) & 0xff);
          assertEquals(rgba[at + 1] & 0xff, (argb >>> 8) & 0xff);
          assertEquals(rgba[at + 2] & 0xff, argb & 0xff);
        }
      }
    }
  }

  @Test
  void pngRefusesAWrongPixelCount() {
    assertThrows(IllegalArgumentException.class, () -> PngWriter.encode(new byte[15], 2, 2));
  }

  @Test
  void colourPlacesFollowMatplotlib() {
    byte[] lut = Colormaps.of("viridis");
    byte[] out = new byte[4];
    // below vmin: colour 0; at vmax: colour 255; just under a boundary: the colour before it
    Colormaps.paint(lut, -5, 0, 1, out, 0);
    assertArrayEquals(new byte[] {lut[0], lut[1], lut[2], (byte) 255}, out);
    Colormaps.paint(lut, 1, 0, 1, out, 0);
    assertArrayEquals(new byte[] {lut[765], lut[766], lut[767], (byte) 255}, out);
    Colormaps.paint(lut, 3.0 / 256 - 1e-12, 0, 1, out, 0);
    assertArrayEquals(new byte[] {lut[6], lut[7], lut[8], (byte) 255}, out);
    Colormaps.paint(lut, Double.NaN, 0, 1, out, 0);
    assertArrayEquals(new byte[4], out);
    Colormaps.paint(lut, 7, 7, 7, out, 0); // vmin == vmax: colour 0
    assertArrayEquals(new byte[] {lut[0], lut[1], lut[2], (byte) 255}, out);
  }

  @Test
  void unknownColormapNamesTheKnownOnes() {
    FlightRuntimeException e =
        assertThrows(FlightRuntimeException.class, () -> Colormaps.of("jet"));
    assertEquals("unknown colormap 'jet' (zaro draws with: viridis, rdbu)", e.getMessage());
  }

  @Test
  void stridingKeepsEveryKthIndexOfLongSides() {
    Selection s = Selection.parse("3, 10:1010, 0:50", new long[] {5, 2000, 100});
    Selection drawn = SliceImage.strided(s, 100);
    assertEquals("3, 10:1001:10, 0:50:1", drawn.canonical());
    assertArrayEquals(new long[] {100, 50}, drawn.resultShape());
    Selection list = Selection.parse("[0,1,2,3,4], :", new long[] {5, 3});
    assertEquals("[0,2,4], 0:3:1", SliceImage.strided(list, 3).canonical());
  }
}
