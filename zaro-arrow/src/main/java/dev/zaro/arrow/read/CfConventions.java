package dev.zaro.arrow.read;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The CF attributes the table layout applies: packing, missing values, time units. */
record CfConventions(Double scaleFactor, Double addOffset, List<Double> missing) {

  static CfConventions of(JsonNode attributes) {
    Double scale = number(attributes.get("scale_factor"));
    Double offset = number(attributes.get("add_offset"));
    List<Double> missing = new ArrayList<>();
    for (String name : new String[] {"_FillValue", "missing_value"}) {
      JsonNode v = attributes.get(name);
      if (v == null) {
        continue;
      }
      if (v.isArray()) {
        v.forEach(e -> addNumber(missing, e));
      } else {
        addNumber(missing, v);
      }
    }
    return new CfConventions(scale, offset, List.copyOf(missing));
  }

  private static void addNumber(List<Double> out, JsonNode v) {
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

  private static final Pattern TIME_UNITS =
      Pattern.compile(
          "\\s*(days?|hours?|minutes?|seconds?|milliseconds?|microseconds?|d|h|hr|min|s|sec|ms|us)\\s+since\\s+(.+?)\\s*",
          Pattern.CASE_INSENSITIVE);

  /** A CF time axis: value v means epoch microseconds {@code epochMicros + v * unitMicros}. */
  record TimeUnits(long unitMicros, long epochMicros) {
    long toMicros(double v) {
      return epochMicros + Math.round(v * unitMicros);
    }
  }

  /** The time units of a coordinate, if its attributes declare a CF time on a standard calendar. */
  static Optional<TimeUnits> timeUnits(JsonNode attributes) {
    JsonNode units = attributes.get("units");
    if (units == null || !units.isTextual()) {
      return Optional.empty();
    }
    JsonNode calendar = attributes.get("calendar");
    if (calendar != null && calendar.isTextual()) {
      String c = calendar.textValue().toLowerCase(Locale.ROOT);
      if (!c.equals("standard") && !c.equals("gregorian") && !c.equals("proleptic_gregorian")) {
        return Optional.empty();
      }
    }
    Matcher m = TIME_UNITS.matcher(units.textValue());
    if (!m.matches()) {
      return Optional.empty();
    }
    long unit =
        switch (m.group(1).toLowerCase(Locale.ROOT)) {
          case "day", "days", "d" -> 86_400_000_000L;
          case "hour", "hours", "h", "hr" -> 3_600_000_000L;
          case "minute", "minutes", "min" -> 60_000_000L;
          case "second", "seconds", "s", "sec" -> 1_000_000L;
          case "millisecond", "milliseconds", "ms" -> 1_000L;
          default -> 1L;
        };
    return parseEpoch(m.group(2)).map(epoch -> new TimeUnits(unit, epoch));
  }

  private static Optional<Long> parseEpoch(String text) {
    String t = text.trim().replace(' ', 'T');
    if (t.endsWith("UTC")) {
      t = t.substring(0, t.length() - 3);
    }
    t = t.replaceAll("T+$", "");
    try {
      if (!t.contains("T")) {
        return Optional.of(
            LocalDate.parse(t).atStartOfDay().toEpochSecond(ZoneOffset.UTC) * 1_000_000L);
      }
      if (t.endsWith("Z") || t.matches(".*[+-]\\d\\d:?\\d\\d$")) {
        OffsetDateTime odt = OffsetDateTime.parse(t.replaceAll("([+-]\\d\\d)(\\d\\d)$", "$1:$2"));
        return Optional.of(odt.toEpochSecond() * 1_000_000L + odt.getNano() / 1000);
      }
      Instant utc = LocalDateTime.parse(t).toInstant(ZoneOffset.UTC);
      return Optional.of(utc.getEpochSecond() * 1_000_000L + utc.getNano() / 1000);
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
