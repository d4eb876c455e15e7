package dev.zaro.sql;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.Properties;
import java.util.TimeZone;

/**
 * What the Arrow Flight SQL JDBC driver reads for a query's first column, run in a JVM of its own
 * (its time zone from {@code -Duser.timezone}) by {@link FlightSqlTimeZoneTest}: per row, tab
 * separated, the epoch microseconds of {@code getObject(Instant)}, {@code
 * getObject(OffsetDateTime)}, {@code getObject(ZonedDateTime)} and {@code getTimestamp()}, then
 * {@code getString()}. The first line names the JVM's zone.
 *
 * <p>Arguments: the server's port and the query.
 */
public final class JdbcTimes {
  private JdbcTimes() {}

  public static void main(String[] args) throws Exception {
    System.out.println(TimeZone.getDefault().getID());
    Properties props = new Properties();
    props.setProperty("useEncryption", "false");
    try (Connection c =
            DriverManager.getConnection("jdbc:arrow-flight-sql://127.0.0.1:" + args[0], props);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(args[1])) {
      while (rs.next()) {
        System.out.println(
            micros(rs.getObject(1, Instant.class))
                + "\t"
                + micros(rs.getObject(1, OffsetDateTime.class).toInstant())
                + "\t"
                + micros(rs.getObject(1, ZonedDateTime.class).toInstant())
                + "\t"
                + micros(rs.getTimestamp(1).toInstant())
                + "\t"
                + rs.getString(1));
      }
    }
  }

  private static long micros(Instant i) {
    return i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000;
  }
}
