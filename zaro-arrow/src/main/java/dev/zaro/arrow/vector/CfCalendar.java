package dev.zaro.arrow.vector;

import java.time.LocalDate;
import java.util.Locale;

/**
 * The CF calendars zaro decodes, as {@link CfConventions.CfTime} reads CF times in them: dates to
 * day numbers and back; {@link #labels} where labels are not Gregorian dates.
 */
enum CfCalendar {
  /** standard/gregorian: Julian labels before 1582-10-15, Gregorian after (as cftime). */
  STANDARD,
  PROLEPTIC_GREGORIAN,
  JULIAN,
  NOLEAP,
  ALL_LEAP,
  DAY_360;

  static CfCalendar of(String name) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "standard", "gregorian" -> STANDARD;
      case "proleptic_gregorian" -> PROLEPTIC_GREGORIAN;
      case "julian" -> JULIAN;
      case "noleap", "365_day" -> NOLEAP;
      case "all_leap", "366_day" -> ALL_LEAP;
      case "360_day" -> DAY_360;
      default -> null;
    };
  }

  /** True when a date of this calendar may be no Gregorian date: then values read as labels. */
  boolean labels() {
    return this == DAY_360;
  }

  private static final int[] CUMULATIVE_365 = {
    0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365
  };
  private static final int[] CUMULATIVE_366 = {
    0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366
  };

  /** The first Gregorian day (1582-10-15) of the standard calendar, as a Gregorian epoch day. */
  static final long GREGORIAN_START = LocalDate.of(1582, 10, 15).toEpochDay();

  /** Day number of date y-m-d in this calendar (consecutive days, consecutive numbers). */
  long day(long y, int m, int d) {
    return switch (this) {
      case PROLEPTIC_GREGORIAN -> LocalDate.of((int) y, m, d).toEpochDay();
      case STANDARD ->
          (y > 1582 || (y == 1582 && (m > 10 || (m == 10 && d >= 15))))
              ? LocalDate.of((int) y, m, d).toEpochDay()
              : julianDay(y, m, d);
      case JULIAN -> julianDay(y, m, d);
      case NOLEAP -> y * 365 + CUMULATIVE_365[m - 1] + d - 1;
      case ALL_LEAP -> y * 366 + CUMULATIVE_366[m - 1] + d - 1;
      case DAY_360 -> y * 360 + (m - 1) * 30L + d - 1;
    };
  }

  /** The date {y, m, d} of day number {@code n} ({@link #day}). */
  long[] date(long n) {
    switch (this) {
      case PROLEPTIC_GREGORIAN -> {
        LocalDate t = LocalDate.ofEpochDay(n);
        return new long[] {t.getYear(), t.getMonthValue(), t.getDayOfMonth()};
      }
      case STANDARD -> {
        if (n >= GREGORIAN_START) {
          LocalDate t = LocalDate.ofEpochDay(n);
          return new long[] {t.getYear(), t.getMonthValue(), t.getDayOfMonth()};
        }
        return julianDate(n);
      }
      case JULIAN -> {
        return julianDate(n);
      }
      case NOLEAP, ALL_LEAP -> {
        int length = this == NOLEAP ? 365 : 366;
        int[] cumulative = this == NOLEAP ? CUMULATIVE_365 : CUMULATIVE_366;
        long y = Math.floorDiv(n, length);
        int doy = Math.floorMod(n, length);
        int m = 1;
        while (cumulative[m] <= doy) {
          m++;
        }
        return new long[] {y, m, doy - cumulative[m - 1] + 1};
      }
      default -> {
        long y = Math.floorDiv(n, 360);
        int doy = Math.floorMod(n, 360);
        return new long[] {y, doy / 30 + 1, doy % 30 + 1};
      }
    }
  }

  /** Julian calendar date to Gregorian epoch day (through the Julian day number). */
  private static long julianDay(long y, int m, int d) {
    long a = (14L - m) / 12;
    long yy = y + 4800 - a;
    long mm = m + 12 * a - 3;
    long jdn = d + (153 * mm + 2) / 5 + 365 * yy + Math.floorDiv(yy, 4) - 32083;
    return jdn - 2_440_588L;
  }

  private static long[] julianDate(long epochDay) {
    long c = epochDay + 2_440_588L + 32_082;
    long dd = Math.floorDiv(4 * c + 3, 1461);
    long e = c - Math.floorDiv(1461 * dd, 4);
    long m = (5 * e + 2) / 153;
    long day = e - (153 * m + 2) / 5 + 1;
    long month = m + 3 - 12 * (m / 10);
    long year = dd - 4800 + m / 10;
    return new long[] {year, month, day};
  }
}
