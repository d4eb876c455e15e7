package dev.zaro.flight;

import java.util.Locale;

/** Byte sizes as people write them: {@code 512m}, {@code 2g}, {@code 65536}; binary units. */
public final class Sizes {
  private Sizes() {}

  /**
   * Parses a size: digits with an optional suffix k, m, g or t (powers of 1024; a trailing {@code
   * b} or {@code ib} is allowed, any case). Throws IllegalArgumentException naming the text.
   */
  public static long parse(String text) {
    String s = text.strip().toLowerCase(Locale.ROOT);
    if (s.endsWith("ib")) {
      s = s.substring(0, s.length() - 2);
    } else if (s.endsWith("b")) {
      s = s.substring(0, s.length() - 1);
    }
    int shift =
        s.isEmpty()
            ? -1
            : switch (s.charAt(s.length() - 1)) {
              case 'k' -> 10;
              case 'm' -> 20;
              case 'g' -> 30;
              case 't' -> 40;
              default -> -1;
            };
    String digits = shift >= 0 ? s.substring(0, s.length() - 1).strip() : s;
    try {
      long n = Long.parseLong(digits);
      if (n < 0 || n > (Long.MAX_VALUE >> Math.max(shift, 0))) {
        throw new NumberFormatException();
      }
      return n << Math.max(shift, 0);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "' is not a size (a whole number with an optional"
              + " suffix k, m or g, e.g. 512m or 2g)");
    }
  }

  /** A size for messages: {@code 1.5 GiB}, {@code 64 MiB}, {@code 800 B}. */
  public static String human(long bytes) {
    String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = bytes;
    int u = 0;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return (v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.1f", v))
        + " "
        + units[u];
  }
}
