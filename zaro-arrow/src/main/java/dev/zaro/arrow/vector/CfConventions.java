package dev.zaro.arrow.vector;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.internal.HalfFloat;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The CF conventions the table layout applies, as xarray's decoders (xarray 2023.01: {@code
 * conventions.decode_cf_variable}, {@code backends/zarr.py}, {@code coding/times.py}) apply them,
 * in their order: missing values become nulls, {@code scale_factor}/{@code add_offset} unpack, then
 * CF time {@code units} ("&lt;unit&gt; since &lt;date&gt;") make timestamps in the variable's
 * {@code calendar}, units without "since" make durations, and {@code dtype: "bool"} makes booleans.
 * The one place that knows CF rules; docs/formats.md, "Stores xarray wrote".
 *
 * @param scaleFactor {@code scale_factor}, or null
 * @param addOffset {@code add_offset}, or null
 * @param missing the values that read as null
 * @param time what CF time units make of the values, or null
 * @param bool whether the values are xarray's booleans ({@code dtype: "bool"})
 */
record CfConventions(
    Double scaleFactor, Double addOffset, List<Double> missing, CfTime time, boolean bool) {

  /** No CF decoding: the stored values. */
  static final CfConventions NONE = new CfConventions(null, null, List.of(), null, false);

  /**
   * The conventions of an array from its metadata. For a v2 array written for xarray (its
   * attributes carry {@code _ARRAY_DIMENSIONS}) a declared {@code fill_value} is the CF {@code
   * _FillValue}, replacing any {@code _FillValue} attribute, as xarray's zarr backend reads it; in
   * v3 only the attribute counts.
   *
   * @throws ZaroException for CF time units in a calendar zaro does not know
   */
  static CfConventions of(ArrayMetadata meta, String where) {
    JsonNode attributes = meta.attributes();
    DataType type = meta.dataType();
    Double scale = number(attributes.get("scale_factor"));
    Double offset = number(attributes.get("add_offset"));
    List<Double> missing = new ArrayList<>();
    Double zarrFill = xarrayFillValue(meta);
    if (zarrFill != null) {
      missing.add(zarrFill);
    } else {
      addNumbers(missing, attributes.get("_FillValue"));
    }
    addNumbers(missing, attributes.get("missing_value"));
    boolean numeric =
        type.kind() == DataType.Kind.INT
            || type.kind() == DataType.Kind.UINT
            || type.kind() == DataType.Kind.FLOAT;
    CfTime time = numeric ? CfTime.of(attributes, where).orElse(null) : null;
    JsonNode dtype = attributes.get("dtype");
    boolean bool =
        time == null
            && numeric
            && scale == null
            && offset == null
            && dtype != null
            && dtype.isTextual()
            && dtype.textValue().equals("bool");
    return new CfConventions(scale, offset, List.copyOf(missing), time, bool);
  }

  /**
   * A v2 array's declared {@code fill_value} as a number when the array was written for xarray
   * (integers and floats only), else null.
   */
  private static Double xarrayFillValue(ArrayMetadata meta) {
    DataType type = meta.dataType();
    if (meta.zarrFormat() != 2
        || !meta.attributes().has("_ARRAY_DIMENSIONS")
        || meta.fillValue().isUnset()
        || type.fallbackFormat().isPresent()) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(meta.fillValue().bytes()).order(ByteOrder.LITTLE_ENDIAN);
    return switch (type.kind()) {
      case INT ->
          switch (type.bits()) {
            case 8 -> (double) b.get(0);
            case 16 -> (double) b.getShort(0);
            case 32 -> (double) b.getInt(0);
            default -> (double) b.getLong(0);
          };
      case UINT ->
          switch (type.bits()) {
            case 8 -> (double) (b.get(0) & 0xff);
            case 16 -> (double) (b.getShort(0) & 0xffff);
            case 32 -> (double) (b.getInt(0) & 0xffffffffL);
            default -> {
              long v = b.getLong(0);
              yield v >= 0 ? v : (v >>> 1) * 2.0 + (v & 1);
            }
          };
      case FLOAT ->
          switch (type.bits()) {
            case 16 -> (double) HalfFloat.toFloat(b.getShort(0));
            case 32 -> (double) b.getFloat(0);
            default -> b.getDouble(0);
          };
      default -> null;
    };
  }

  private static void addNumbers(List<Double> out, JsonNode v) {
    if (v == null) {
      return;
    }
    if (v.isArray()) {
      v.forEach(e -> addNumbers(out, e));
      return;
    }
    Double d = number(v);
    if (d != null) {
      out.add(d);
    }
  }

  private static Double number(JsonNode v) {
    if (v == null || v.isNull()) {
      return null;
    }
    if (v.isNumber()) {
      return v.doubleValue();
    }
    if (v.isTextual()) {
      return switch (v.textValue()) {
        case "NaN" -> Double.NaN;
        case "Infinity" -> Double.POSITIVE_INFINITY;
        case "-Infinity" -> Double.NEGATIVE_INFINITY;
        default -> null;
      };
    }
    return null;
  }

  boolean packed() {
    return scaleFactor != null || addOffset != null;
  }

  boolean masks() {
    return !missing.isEmpty();
  }

  /** Whether any decoding changes the values (then the value column is converted row by row). */
  boolean converts() {
    return packed() || masks() || time != null || bool;
  }

  boolean isMissing(double raw) {
    for (double m : missing) {
      if (raw == m || (Double.isNaN(m) && Double.isNaN(raw))) {
        return true;
      }
    }
    return false;
  }

  double unpack(double raw) {
    return raw * (scaleFactor == null ? 1 : scaleFactor) + (addOffset == null ? 0 : addOffset);
  }

  /** The value column's Arrow type after decoding, or null when the stored type stays. */
  ArrowType valueType() {
    if (time != null) {
      return time.arrowType();
    }
    if (bool) {
      return ArrowType.Bool.INSTANCE;
    }
    if (packed()) {
      return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
    }
    return null;
  }

  /** The field metadata CF decoding adds (the source calendar of timestamps), or null. */
  Map<String, String> fieldMetadata() {
    return time == null ? null : time.fieldMetadata();
  }

  /** xarray's duration units: exactly these strings ({@code coding.times.TIME_UNITS}). */
  private static final Map<String, Long> DURATION_NANOS =
      Map.of(
          "days", 86_400_000_000_000L,
          "hours", 3_600_000_000_000L,
          "minutes", 60_000_000_000L,
          "seconds", 1_000_000_000L,
          "milliseconds", 1_000_000L,
          "microseconds", 1_000L,
          "nanoseconds", 1L);

  private static final Pattern TIME_UNITS =
      Pattern.compile(
          "\\s*(days?|hours?|hrs?|minutes?|mins?|seconds?|secs?|milliseconds?|msecs?|microseconds?"
              + "|usecs?|nanoseconds?|d|h|hr|min|s|sec|ms|us|ns)\\s+since\\s+(.+?)\\s*",
          Pattern.CASE_INSENSITIVE);

  private static final Pattern REFERENCE =
      Pattern.compile(
          "(-?\\d{1,4})-(\\d{1,2})-(\\d{1,2})"
              + "(?:[ T]+(\\d{1,2}):(\\d{1,2})(?::(\\d{1,2})(?:\\.(\\d{1,9}))?)?)?"
              + "\\s*(Z|UTC|GMT|[+-]\\d{1,2}(?::?\\d{2})?)?");

  private static final long DAY_MICROS = 86_400_000_000L;

  /**
   * A CF time variable: value v means the instant {@code reference + v * unit} in {@code calendar},
   * read as a timestamp carrying that calendar's labels (year, month, day, time of day; the labels
   * read as a Gregorian date-time, UTC), as a label string for calendars whose dates are not all
   * Gregorian (360_day), or as a duration (units without "since").
   */
  static final class CfTime {
    private final long unitNanos;
    private final CfCalendar calendar;
    private final String calendarName;
    private final boolean duration;

    /** The reference instant in microseconds of the calendar's day numbers (0 = day 0, 00:00). */
    private final long referenceMicros;

    private final String where;

    private CfTime(
        long unitNanos,
        CfCalendar calendar,
        String calendarName,
        boolean duration,
        long referenceMicros,
        String where) {
      this.unitNanos = unitNanos;
      this.calendar = calendar;
      this.calendarName = calendarName;
      this.duration = duration;
      this.referenceMicros = referenceMicros;
      this.where = where;
    }

    /**
     * The CF time of a variable with {@code attributes}: units "&lt;unit&gt; since &lt;date&gt;"
     * (any xarray or cftime time unit), or one of xarray's duration units ("days", "hours",
     * "minutes", "seconds", "milliseconds", "microseconds", "nanoseconds", exactly).
     *
     * @param where names the variable in errors
     * @throws ZaroException for time units in a calendar zaro does not know, or a reference date it
     *     cannot read
     */
    static Optional<CfTime> of(JsonNode attributes, String where) {
      JsonNode units = attributes.get("units");
      if (units == null || !units.isTextual()) {
        return Optional.empty();
      }
      String text = units.textValue();
      Long durationNanos = DURATION_NANOS.get(text);
      if (durationNanos != null) {
        return Optional.of(new CfTime(durationNanos, null, null, true, 0, where));
      }
      Matcher m = TIME_UNITS.matcher(text);
      if (!m.matches()) {
        return Optional.empty();
      }
      JsonNode cal = attributes.get("calendar");
      String name = cal != null && cal.isTextual() ? cal.textValue() : "standard";
      CfCalendar calendar = CfCalendar.of(name);
      if (calendar == null) {
        throw new ZaroException(
            ErrorKind.UNSUPPORTED,
            where
                + ": CF calendar '"
                + name
                + "' is not supported (standard, gregorian, proleptic_gregorian, julian, noleap,"
                + " 365_day, all_leap, 366_day, 360_day are); read it raw (--raw)");
      }
      long unit =
          switch (m.group(1).toLowerCase(Locale.ROOT)) {
            case "day", "days", "d" -> 86_400_000_000_000L;
            case "hour", "hours", "hr", "hrs", "h" -> 3_600_000_000_000L;
            case "minute", "minutes", "min", "mins" -> 60_000_000_000L;
            case "second", "seconds", "sec", "secs", "s" -> 1_000_000_000L;
            case "millisecond", "milliseconds", "msec", "msecs", "ms" -> 1_000_000L;
            case "microsecond", "microseconds", "usec", "usecs", "us" -> 1_000L;
            default -> 1L;
          };
      Matcher r = REFERENCE.matcher(m.group(2).trim());
      if (!r.matches()) {
        throw new ZaroException(
            ErrorKind.INVALID_ARGUMENT,
            where + ": cannot read the reference date of CF time units '" + text + "'");
      }
      long reference;
      try {
        long day =
            calendar.day(
                Long.parseLong(r.group(1)),
                Integer.parseInt(r.group(2)),
                Integer.parseInt(r.group(3)));
        long micros = day * DAY_MICROS;
        if (r.group(4) != null) {
          micros += Long.parseLong(r.group(4)) * 3_600_000_000L;
          micros += Long.parseLong(r.group(5)) * 60_000_000L;
        }
        if (r.group(6) != null) {
          micros += Long.parseLong(r.group(6)) * 1_000_000L;
        }
        if (r.group(7) != null) {
          micros += Long.parseLong((r.group(7) + "00000").substring(0, 6));
        }
        String zone = r.group(8);
        if (zone != null && (zone.startsWith("+") || zone.startsWith("-"))) {
          String digits = zone.substring(1).replace(":", "");
          long hours = Long.parseLong(digits.length() <= 2 ? digits : digits.substring(0, 2));
          long minutes =
              digits.length() <= 2 ? 0 : Long.parseLong(digits.substring(digits.length() - 2));
          long offset = (hours * 60 + minutes) * 60_000_000L;
          micros += zone.startsWith("+") ? -offset : offset;
        }
        reference = micros;
      } catch (DateTimeException | ArrayIndexOutOfBoundsException e) {
        throw new ZaroException(
            ErrorKind.INVALID_ARGUMENT,
            where + ": the reference date of CF time units '" + text + "' is not a valid date");
      }
      return Optional.of(new CfTime(unit, calendar, name, false, reference, where));
    }

    /** Whether the values are durations (units without "since"). */
    boolean duration() {
      return duration;
    }

    /** Whether the values read as label strings (360_day). */
    boolean labels() {
      return !duration && calendar.labels();
    }

    /** The calendar's name as the attribute gives it ("standard" when absent). */
    String calendarName() {
      return calendarName;
    }

    /**
     * Duration(ns) for nanosecond durations, Duration(us) for others, Utf8 labels, Timestamp(us).
     */
    ArrowType arrowType() {
      if (duration) {
        return new ArrowType.Duration(unitNanos == 1 ? TimeUnit.NANOSECOND : TimeUnit.MICROSECOND);
      }
      if (labels()) {
        return ArrowType.Utf8.INSTANCE;
      }
      return new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
    }

    /** {@code cf.calendar} for timestamps and labels of a calendar other than standard. */
    Map<String, String> fieldMetadata() {
      return duration || calendar == CfCalendar.STANDARD
          ? null
          : Map.of("cf.calendar", calendarName);
    }

    /**
     * The value's offset from the reference in microseconds (nanoseconds for a nanosecond
     * duration): exact for integers, rounded to the nearest for fractions.
     */
    private long offset(double v, boolean integral, long raw) {
      long unit = unitNanos;
      boolean nanos = duration && unit == 1;
      try {
        if (integral) {
          return nanos || unit >= 1000
              ? Math.multiplyExact(raw, nanos ? unit : unit / 1000)
              : Math.floorDiv(raw, 1000 / unit);
        }
        double x = nanos ? v * unit : v * (unit / 1000.0);
        if (Double.isNaN(x) || Math.abs(x) >= 9.2e18) {
          throw new ArithmeticException();
        }
        return Math.round(x);
      } catch (ArithmeticException e) {
        throw new ZaroException(
            ErrorKind.INVALID_ARGUMENT,
            where + ": CF time value " + (integral ? raw : v) + " is out of the timestamp range");
      }
    }

    /**
     * The timestamp of a value: epoch microseconds of its calendar labels read as a Gregorian
     * date-time (UTC); a duration in its unit for durations.
     *
     * @param raw the value as a long when {@code integral}
     * @throws ZaroException for a date with no Gregorian label (Feb 29 of a Gregorian common year
     *     in julian or all_leap), or out of range
     */
    long toLong(double v, boolean integral, long raw) {
      long off = offset(v, integral, raw);
      if (duration) {
        return off;
      }
      long total = total(off, v, integral, raw);
      if (calendar == CfCalendar.PROLEPTIC_GREGORIAN
          || (calendar == CfCalendar.STANDARD
              && total >= CfCalendar.GREGORIAN_START * DAY_MICROS)) {
        return total;
      }
      long day = Math.floorDiv(total, DAY_MICROS);
      long[] ymd = calendar.date(day);
      try {
        return LocalDate.of((int) ymd[0], (int) ymd[1], (int) ymd[2]).toEpochDay() * DAY_MICROS
            + Math.floorMod(total, DAY_MICROS);
      } catch (DateTimeException e) {
        throw new ZaroException(
            ErrorKind.INVALID_ARGUMENT,
            where
                + ": "
                + label(v, integral, raw)
                + " ("
                + calendarName
                + " calendar) is no Gregorian date, so no timestamp can carry it; read it raw"
                + " (--raw)");
      }
    }

    /** The reference plus {@code offset} microseconds, or an error when that overflows. */
    private long total(long offset, double v, boolean integral, long raw) {
      try {
        return Math.addExact(referenceMicros, offset);
      } catch (ArithmeticException e) {
        throw new ZaroException(
            ErrorKind.INVALID_ARGUMENT,
            where + ": CF time value " + (integral ? raw : v) + " is out of the timestamp range");
      }
    }

    /** The value's label "YYYY-MM-DD HH:MM:SS[.ffffff]" in its calendar. */
    String label(double v, boolean integral, long raw) {
      long total = total(offset(v, integral, raw), v, integral, raw);
      long[] ymd = calendar.date(Math.floorDiv(total, DAY_MICROS));
      long t = Math.floorMod(total, DAY_MICROS);
      long s = t / 1_000_000;
      long us = t % 1_000_000;
      return String.format(
          Locale.ROOT,
          "%04d-%02d-%02d %02d:%02d:%02d%s",
          ymd[0],
          ymd[1],
          ymd[2],
          s / 3600,
          s / 60 % 60,
          s % 60,
          us == 0 ? "" : String.format(Locale.ROOT, ".%06d", us));
    }
  }
}
