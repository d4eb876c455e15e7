package dev.zaro.cli;

import java.sql.Blob;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Locale;

/**
 * How the command line prints one SQL value, in every output mode of {@code zaro sql} and its
 * shell: as DuckDB's own cast to VARCHAR spells it where the JDBC driver's Java object would print
 * otherwise (a BLOB's bytes, a timestamp without a trailing {@code .0}, a TIMESTAMPTZ with its
 * offset after a space), else the object's own text.
 */
final class ValueText {
  private ValueText() {}

  /** The text of {@code v}; {@code NULL} for null. */
  static String of(Object v) {
    if (v == null) {
      return "NULL";
    }
    if (v instanceof Timestamp t) {
      return dateTime(t.toLocalDateTime());
    }
    if (v instanceof LocalDateTime t) {
      return dateTime(t);
    }
    if (v instanceof OffsetDateTime t) {
      return dateTime(t.toLocalDateTime()) + offset(t.getOffset());
    }
    if (v instanceof byte[] b) {
      return blob(b);
    }
    if (v instanceof Blob b) {
      try {
        long n = b.length();
        return blob(n == 0 ? new byte[0] : b.getBytes(1, Math.toIntExact(n)));
      } catch (SQLException | ArithmeticException e) {
        return "<blob: " + e.getMessage() + ">";
      }
    }
    return v.toString();
  }

  /** {@code 2020-01-01 00:00:00}, with the fraction of a second only where there is one. */
  private static String dateTime(LocalDateTime t) {
    String date = t.toLocalDate().toString();
    String time =
        String.format(Locale.ROOT, "%02d:%02d:%02d", t.getHour(), t.getMinute(), t.getSecond());
    int nanos = t.getNano();
    if (nanos == 0) {
      return date + " " + time;
    }
    String fraction = String.format(Locale.ROOT, "%09d", nanos).replaceAll("0+$", "");
    return date + " " + time + "." + fraction;
  }

  /** {@code +00}, {@code -05}, {@code +05:30}. */
  private static String offset(ZoneOffset offset) {
    int seconds = offset.getTotalSeconds();
    int abs = Math.abs(seconds);
    String sign = seconds < 0 ? "-" : "+";
    String text = String.format(Locale.ROOT, "%s%02d", sign, abs / 3600);
    if (abs % 3600 != 0) {
      text += String.format(Locale.ROOT, ":%02d", abs % 3600 / 60);
    }
    return text;
  }

  /** Printable ASCII as it is, every other byte and the backslash as {@code \xHH}. */
  private static String blob(byte[] bytes) {
    StringBuilder b = new StringBuilder(bytes.length);
    for (byte x : bytes) {
      int c = x & 0xff;
      if (c >= 0x20 && c < 0x7f && c != '\\') {
        b.append((char) c);
      } else {
        b.append(String.format(Locale.ROOT, "\\x%02X", c));
      }
    }
    return b.toString();
  }
}
