package dev.zaro.arrow.codec.zfp;

/**
 * The last steps of decoding a zfp block, after its coefficients are read from the bit stream:
 * negabinary to two's complement in raster order (from the sequency order of the {@code PERM}
 * tables), then the inverse transform along every axis, the decorrelating lift or, for the
 * reversible mode, the Lorenzo predictor. On 32-bit types ({@code narrow}) the arithmetic wraps as
 * zfp's {@code int32} does.
 */
final class ZfpTransform {
  private ZfpTransform() {}

  static final int[] PERM1 = {0, 1, 2, 3};
  static final int[] PERM2 = {0, 1, 4, 5, 2, 8, 6, 9, 3, 12, 10, 7, 13, 11, 14, 15};
  static final int[] PERM3 = {
    0, 1, 4, 16, 20, 17, 5, 2, 8, 32, 21, 6, 18, 24, 9, 33, 36, 3, 12, 48, 22, 25, 37, 40, 34, 10,
    7, 19, 28, 13, 49, 52, 41, 38, 26, 23, 29, 53, 11, 35, 44, 14, 50, 56, 42, 27, 39, 45, 30, 54,
    57, 60, 51, 15, 43, 46, 58, 61, 55, 31, 62, 59, 47, 63
  };
  static final int[] PERM4 = {
    0, 1, 4, 16, 64, 5, 80, 17, 68, 65, 20, 2, 8, 32, 128, 84, 81, 69, 21, 6, 18, 66, 24, 72, 9, 96,
    33, 36, 129, 132, 144, 3, 12, 48, 192, 85, 82, 70, 22, 73, 25, 88, 37, 100, 97, 148, 145, 133,
    10, 160, 34, 136, 130, 40, 7, 19, 67, 28, 76, 13, 112, 49, 52, 193, 196, 208, 86, 89, 101, 149,
    161, 137, 41, 134, 38, 164, 26, 152, 146, 104, 98, 74, 83, 71, 23, 77, 29, 92, 53, 116, 113,
    212, 209, 197, 11, 35, 131, 44, 140, 14, 176, 50, 56, 194, 200, 224, 90, 165, 102, 153, 150,
    105, 168, 162, 138, 42, 87, 93, 117, 213, 27, 75, 99, 39, 135, 147, 108, 45, 141, 156, 30, 78,
    177, 180, 54, 114, 120, 57, 198, 210, 216, 201, 225, 228, 15, 240, 51, 204, 195, 60, 169, 166,
    154, 106, 91, 103, 151, 109, 157, 94, 181, 118, 121, 214, 217, 229, 163, 139, 43, 142, 46, 172,
    58, 184, 178, 232, 226, 202, 241, 205, 61, 199, 55, 244, 31, 220, 211, 124, 115, 79, 170, 167,
    155, 107, 158, 110, 173, 122, 185, 182, 233, 230, 218, 95, 245, 119, 221, 215, 125, 242, 206,
    62, 203, 59, 248, 47, 236, 227, 188, 179, 143, 171, 174, 186, 234, 246, 222, 126, 219, 123, 249,
    111, 237, 231, 189, 183, 159, 252, 243, 207, 63, 175, 250, 187, 238, 235, 190, 253, 247, 223,
    127, 254, 251, 239, 191, 255
  };

  private static int[] perm(int dims) {
    return switch (dims) {
      case 1 -> PERM1;
      case 2 -> PERM2;
      case 3 -> PERM3;
      default -> PERM4;
    };
  }

  /**
   * Negabinary {@code ublock} (sequency order) to two's complement {@code block} (raster order).
   */
  static void fromNegabinary(boolean narrow, int dims, long[] ublock, long[] block) {
    int[] perm = perm(dims);
    for (int i = 0; i < ublock.length; i++) {
      long u = ublock[i];
      block[perm[i]] =
          narrow
              ? ((int) u ^ 0xaaaaaaaa) - 0xaaaaaaaa
              : (u ^ 0xaaaaaaaaaaaaaaaaL) - 0xaaaaaaaaaaaaaaaaL;
    }
  }

  /** The inverse transform along every axis of the block, the last first. */
  static void inverse(long[] block, int dims, boolean narrow, boolean reversible) {
    for (int axis = dims - 1; axis >= 0; axis--) {
      lift(block, dims, axis, narrow, reversible);
    }
  }

  /** The inverse transform along {@code axis} (0 = x) of every row of the block. */
  private static void lift(long[] p, int dims, int axis, boolean narrow, boolean reversible) {
    int stride = 1 << (2 * axis);
    int rows = 1 << (2 * (dims - 1));
    for (int r = 0; r < rows; r++) {
      // the row's first element: r's base-4 digits, with a 0 inserted at position axis
      int low = r & (stride - 1);
      int base = low + ((r - low) << 2);
      if (reversible) {
        lorenzo(p, base, stride, narrow);
      } else {
        inverseLift(p, base, stride, narrow);
      }
    }
  }

  private static void inverseLift(long[] p, int i, int s, boolean narrow) {
    if (narrow) {
      int x = (int) p[i];
      int y = (int) p[i + s];
      int z = (int) p[i + 2 * s];
      int w = (int) p[i + 3 * s];
      y += w >> 1;
      w -= y >> 1;
      y += w;
      w -= y - w;
      z += x;
      x -= z - x;
      y += z;
      z -= y - z;
      w += x;
      x -= w - x;
      p[i] = x;
      p[i + s] = y;
      p[i + 2 * s] = z;
      p[i + 3 * s] = w;
    } else {
      long x = p[i];
      long y = p[i + s];
      long z = p[i + 2 * s];
      long w = p[i + 3 * s];
      y += w >> 1;
      w -= y >> 1;
      y += w;
      w -= y - w;
      z += x;
      x -= z - x;
      y += z;
      z -= y - z;
      w += x;
      x -= w - x;
      p[i] = x;
      p[i + s] = y;
      p[i + 2 * s] = z;
      p[i + 3 * s] = w;
    }
  }

  private static void lorenzo(long[] p, int i, int s, boolean narrow) {
    long x = p[i];
    long y = p[i + s];
    long z = p[i + 2 * s];
    long w = p[i + 3 * s];
    w += z;
    z += y;
    w += z;
    y += x;
    z += y;
    w += z;
    if (narrow) {
      p[i] = (int) x;
      p[i + s] = (int) y;
      p[i + 2 * s] = (int) z;
      p[i + 3 * s] = (int) w;
    } else {
      p[i] = x;
      p[i + s] = y;
      p[i + 2 * s] = z;
      p[i + 3 * s] = w;
    }
  }
}
