package dev.zaro.arrow.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.json.Json;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * CF times in each calendar against cftime 1.6.2's {@code num2date} (the labels below were printed
 * by it), the decoder xarray uses for calendars other than standard and for dates pandas cannot
 * hold.
 */
class CfTimeTest {
  private static CfConventions.CfTime time(String units, String calendar) throws Exception {
    return CfConventions.CfTime.of(
            Json.readTree("{\"units\": \"" + units + "\", \"calendar\": \"" + calendar + "\"}"),
            "t")
        .orElseThrow();
  }

  @ParameterizedTest
  @CsvSource({
    "days since 1582-10-15, standard, -1, 1582-10-04 00:00:00",
    "days since 1582-10-15, standard, -3650, 1572-10-07 00:00:00",
    "hours since 1500-03-01 06:00, gregorian, -252, 1500-02-19 18:00:00",
    "days since 2000-01-01, julian, 0, 2000-01-01 00:00:00",
    "days since 1850-01-01 00:00:00, noleap, 58400.25, 2010-01-01 06:00:00",
    "days since 0001-01-01, 360_day, 719999.5, 2000-12-30 12:00:00",
    "minutes since 1970-01-01T00:00:00+01:00, standard, 0, 1969-12-31 23:00:00",
  })
  void labelsAsCftime(String units, String calendar, double v, String label) throws Exception {
    CfConventions.CfTime t = time(units, calendar);
    assertEquals(label, t.label(v, false, 0));
    if (!t.labels()) {
      long micros = t.toLong(v, false, 0);
      assertEquals(
          LocalDateTime.parse(label.replace(' ', 'T')).toEpochSecond(ZoneOffset.UTC) * 1_000_000L,
          micros);
    }
  }

  @ParameterizedTest
  @CsvSource({
    "days since 2000-01-01, tropical, calendar 'tropical' is not supported",
    "days since yesterday, standard, cannot read the reference date",
    "days since 2001-02-30, standard, is not a valid date",
  })
  void badUnitsAreErrors(String units, String calendar, String message) {
    ZaroException e = assertThrows(ZaroException.class, () -> time(units, calendar));
    assertTrue(e.getMessage().contains(message), e.getMessage());
    assertTrue(e.getMessage().startsWith("t: "), e.getMessage());
  }

  @ParameterizedTest
  @CsvSource({
    "days since 1970-01-01, 200000000000, true",
    "nanoseconds since 1970-01-01, 1e300, false",
    "days since 1970-01-01, NaN, false"
  })
  void outOfRangeIsAnError(String units, double v, boolean integral) throws Exception {
    CfConventions.CfTime t = time(units, "standard");
    assertThrows(ZaroException.class, () -> t.toLong(v, false, 0));
    if (integral) {
      assertThrows(ZaroException.class, () -> t.toLong(v, true, (long) v));
    }
  }
}
