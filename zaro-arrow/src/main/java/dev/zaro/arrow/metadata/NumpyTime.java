package dev.zaro.arrow.metadata;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A numpy datetime64/timedelta64 unit ({@code "D"}, {@code "10s"}: a count of a base unit) and the
 * one mapping of its values onto Arrow's time types (docs/formats.md, "Arrow shapes"), without
 * loss:
 *
 * <ul>
 *   <li>datetime64: D and W to days (Arrow date32); M and Y to the days of the month's or year's
 *       first day (calendar arithmetic); h, m and s to seconds; ms, us, ns as they are;
 *   <li>timedelta64: W, D, h, m and s to seconds (Arrow duration); M and Y to months (Arrow's
 *       year-month interval); ms, us, ns as they are.
 * </ul>
 *
 * A value that does not fit its target (date32 and months are 32-bit, the rest 64-bit) is an error,
 * never a wrapped instant; numpy's NaT (the smallest int64) has no target value (a null).
 *
 * @param base numpy's base unit: Y, M, W, D, h, m, s, ms, us or ns
 * @param scale how many base units one stored count is (numpy's {@code [10s]}, v3 {@code
 *     scale_factor}), at least 1
 */
public record NumpyTime(String base, long scale) {

  /** numpy's base units zaro reads, coarsest first. */
  public static final List<String> UNITS =
      List.of("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns");

  /** numpy units finer than Arrow's nanoseconds, which zaro refuses. */
  private static final List<String> TOO_FINE = List.of("ps", "fs", "as");

  /** The stored value numpy reads as NaT. */
  public static final long NAT = Long.MIN_VALUE;

  /** What a value becomes in Arrow. */
  public enum Target {
    /** Days since 1970-01-01 as int32 (Arrow date32). */
    DAYS(4),
    /** int64 seconds (Arrow timestamp or duration in seconds). */
    SECONDS(8),
    /** int64 milliseconds. */
    MILLIS(8),
    /** int64 microseconds. */
    MICROS(8),
    /** int64 nanoseconds. */
    NANOS(8),
    /** Months as int32 (Arrow's year-month interval). */
    MONTHS(4);

    private final int bytes;

    Target(int bytes) {
      this.bytes = bytes;
    }

    /** Bytes of one Arrow value. */
    public int bytes() {
      return bytes;
    }
  }

  private static final Pattern UNIT = Pattern.compile("([0-9]*)([A-Za-z]+)");

  /** Checks the base unit is one numpy knows and the scale is positive. */
  public NumpyTime {
    if (!UNITS.contains(base)) {
      throw new IllegalArgumentException(unknownUnit(base));
    }
    if (scale < 1) {
      throw new IllegalArgumentException(
          "scale_factor " + scale + " of unit '" + base + "' must be a positive integer");
    }
  }

  private static String unknownUnit(String unit) {
    if (TOO_FINE.contains(unit)) {
      return "time unit '"
          + unit
          + "' is finer than Arrow's nanoseconds and is not supported (units: "
          + String.join(", ", UNITS)
          + ")";
    }
    return "unknown time unit '" + unit + "' (known: " + String.join(", ", UNITS) + ")";
  }

  /**
   * Parses numpy's unit text: a base unit, optionally preceded by a count ({@code "10s"}).
   *
   * @throws IllegalArgumentException naming the unit when it is unknown, finer than nanoseconds, or
   *     its count is 0
   */
  public static NumpyTime parse(String unit) {
    Matcher m = UNIT.matcher(unit == null ? "" : unit);
    if (!m.matches()) {
      throw new IllegalArgumentException(unknownUnit(unit));
    }
    long scale;
    try {
      scale = m.group(1).isEmpty() ? 1 : Long.parseLong(m.group(1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("time unit '" + unit + "' has a count too large", e);
    }
    return new NumpyTime(m.group(2), scale);
  }

  /** numpy's text for this unit: {@code "D"}, {@code "10s"}. */
  @Override
  public String toString() {
    return scale == 1 ? base : scale + base;
  }

  /** The Arrow values of a datetime64 ({@code datetime}) or a timedelta64 of this unit. */
  public Target target(boolean datetime) {
    return switch (base) {
      case "Y", "M" -> datetime ? Target.DAYS : Target.MONTHS;
      case "W", "D" -> datetime ? Target.DAYS : Target.SECONDS;
      case "h", "m", "s" -> Target.SECONDS;
      case "ms" -> Target.MILLIS;
      case "us" -> Target.MICROS;
      default -> Target.NANOS;
    };
  }

  /** Whether stored values are already their Arrow values (s, ms, us, ns with scale 1). */
  public boolean isIdentity() {
    return scale == 1
        && switch (base) {
          case "s", "ms", "us", "ns" -> true;
          default -> false;
        };
  }

  /** Base units per target unit (seconds, days or months) for the linear conversions. */
  private long factor(boolean datetime) {
    return switch (base) {
      case "Y" -> 12; // months (timedelta) or, for datetime, months then calendar arithmetic
      case "W" -> datetime ? 7 : 7 * 86_400L;
      case "D" -> datetime ? 1 : 86_400L;
      case "h" -> 3_600;
      case "m" -> 60;
      default -> 1;
    };
  }

  /**
   * The Arrow value of stored value {@code v} (not NaT) of a datetime64 ({@code datetime}) or a
   * timedelta64 of this unit.
   *
   * @throws ArithmeticException when the value does not fit its target (for datetime days and
   *     months: past Arrow date32's range), with a message naming the value and the unit
   */
  public long convert(long v, boolean datetime) {
    Target target = target(datetime);
    try {
      long n = Math.multiplyExact(Math.multiplyExact(v, scale), factor(datetime));
      if (datetime && (base.equals("M") || base.equals("Y"))) {
        n = firstDayOfMonth(n);
      }
      if (target.bytes() == 4 && n != (int) n) {
        throw new ArithmeticException("int32 overflow");
      }
      return n;
    } catch (ArithmeticException e) {
      throw new ArithmeticException(
          "value "
              + v
              + " of unit '"
              + this
              + "' does not fit "
              + describe(target, datetime)
              + (target.bytes() == 4 && datetime ? " (a date past Arrow's range)" : ""));
    }
  }

  /**
   * Converts stored values (little-endian int64) to their Arrow values, little endian in {@link
   * Target#bytes()} each; NaT becomes the smallest value of that width.
   *
   * @throws ArithmeticException as {@link #convert} does
   */
  public byte[] convertAll(byte[] stored, boolean datetime) {
    int width = target(datetime).bytes();
    ByteBuffer in = ByteBuffer.wrap(stored).order(ByteOrder.LITTLE_ENDIAN);
    ByteBuffer out = ByteBuffer.allocate(stored.length / 8 * width).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < stored.length / 8; i++) {
      long v = in.getLong(i * 8);
      if (width == 4) {
        out.putInt(v == NAT ? Integer.MIN_VALUE : (int) convert(v, datetime));
      } else {
        out.putLong(v == NAT ? NAT : convert(v, datetime));
      }
    }
    return out.array();
  }

  private static String describe(Target target, boolean datetime) {
    return switch (target) {
      case DAYS -> "Arrow date32 (int32 days since 1970-01-01)";
      case MONTHS -> "Arrow's month interval (int32 months)";
      default ->
          (datetime ? "an Arrow timestamp" : "an Arrow duration")
              + " in "
              + target.name().toLowerCase(Locale.ROOT)
              + " (int64)";
    };
  }

  /** Months beyond which the first day's epoch day cannot be an int32 (about 5.8 million years). */
  private static final long MAX_MONTHS = 12L * 6_000_000;

  /** Days since 1970-01-01 of the first day of month {@code months} (0 = January 1970). */
  static long firstDayOfMonth(long months) {
    if (Math.abs(months) > MAX_MONTHS) {
      throw new ArithmeticException("month " + months + " out of range");
    }
    long year = 1970 + Math.floorDiv(months, 12);
    int month = Math.floorMod(months, 12) + 1;
    return daysFromCivil(year, month, 1);
  }

  /** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
  private static long daysFromCivil(long y, int m, int d) {
    y -= m <= 2 ? 1 : 0;
    long era = Math.floorDiv(y, 400);
    long yoe = y - era * 400;
    long doy = (153L * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146_097 + doe - 719_468;
  }
}
