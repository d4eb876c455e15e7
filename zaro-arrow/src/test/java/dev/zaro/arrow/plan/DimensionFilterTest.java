package dev.zaro.arrow.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.vector.DimensionColumn;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Dimension ranges against brute force over the sample's coordinates and random predicates. */
class DimensionFilterTest extends AllocatorTest {

  private static final String SAMPLE =
      Fixtures.testdata().resolve("sample/climate.zarr").toString();

  /** Every row a predicate keeps lies inside the range; the range is exactly the matching rows. */
  @Test
  void rangesAreExactlyTheMatchingIndicesOnMonotoneCoordinates() {
    try (Zaro zaro = Zaro.open(SAMPLE)) {
      List<DimensionColumn> columns = zaro.dimensionColumns("t2m", TableOptions.DEFAULT, allocator);
      long[] shape = zaro.meta("t2m").shape();
      Random random = new Random(7);
      DimensionFilter.Op[] ops = DimensionFilter.Op.values();
      for (int trial = 0; trial < 300; trial++) {
        int d = random.nextInt(shape.length);
        DimensionColumn c = columns.get(d);
        DimensionFilter.Op op = ops[random.nextInt(ops.length)];
        double pick = c.valueAt(random.nextInt((int) shape[d]));
        double v = random.nextBoolean() ? pick : pick + (random.nextDouble() - 0.5) * 3;
        DimensionFilter filter = new DimensionFilter(columns, shape).restrict(c.name(), op, v);
        long[] range = filter.range(d);
        for (long i = 0; i < shape[d]; i++) {
          double x = c.valueAt(i);
          boolean match =
              switch (op) {
                case EQ -> x == v;
                case LT -> x < v;
                case LE -> x <= v;
                case GT -> x > v;
                case GE -> x >= v;
              };
          assertEquals(
              match, i >= range[0] && i < range[1], c.name() + " " + op + " " + v + " at " + i);
        }
      }
    }
  }

  /**
   * Exact columns: the sample's monotone coordinates (CF times, lat, lon) and sql/grid's index
   * dimension; not exact: grid's non-monotone {@code s} coordinate, a string-label coordinate
   * (xarray's stations) and a column that is not there.
   */
  @Test
  void exactOnMonotoneNumbersAndTimesOnly() {
    try (Zaro zaro = Zaro.open(SAMPLE)) {
      DimensionFilter filter = zaro.dimensionFilter("t2m", TableOptions.DEFAULT);
      assertTrue(filter.isExact("time"));
      assertTrue(filter.isExact("lat"));
      assertTrue(filter.isExact("lon"));
      assertFalse(filter.isExact("t2m"));
    }
    try (Zaro zaro = Zaro.open(Fixtures.testdata().resolve("sql/grid.zarr").toString())) {
      assertTrue(zaro.dimensionFilter("v", TableOptions.DEFAULT).isExact("x"));
      assertTrue(zaro.dimensionFilter("v", TableOptions.DEFAULT).isExact("y"));
      assertFalse(zaro.dimensionFilter("w", TableOptions.DEFAULT).isExact("s"));
    }
    try (Zaro zaro = Zaro.open(Fixtures.testdata().resolve("xarray/stations.zarr").toString())) {
      assertFalse(zaro.dimensionFilter("temperature", TableOptions.DEFAULT).isExact("station"));
    }
  }

  /**
   * CF time coordinates compare with dates; lat (decreasing in the sample or not) works both ways.
   */
  @Test
  void timesAndSelections() {
    try (Zaro zaro = Zaro.open(SAMPLE)) {
      DimensionFilter filter = zaro.dimensionFilter("t2m", TableOptions.DEFAULT);
      DimensionColumn time = (DimensionColumn) filter.column("time");
      assertEquals(DimensionColumn.Kind.TIMES, time.kind());
      long[] shape = zaro.meta("t2m").shape();
      // the third time value as a LocalDateTime
      long micros = (long) time.valueAt(2);
      LocalDateTime third = LocalDateTime.ofEpochSecond(micros / 1_000_000, 0, ZoneOffset.UTC);
      filter
          .restrict("time", DimensionFilter.Op.GE, third)
          .restrictIn(
              "time",
              List.of(
                  third,
                  LocalDateTime.ofEpochSecond(
                      (long) time.valueAt(5) / 1_000_000, 0, ZoneOffset.UTC)));
      assertEquals(2, filter.range(0)[0]);
      assertEquals(6, filter.range(0)[1]);
      Selection narrowed = filter.apply(Selection.parse("1:9:2", shape));
      assertEquals("3:6:2, 0:" + shape[1] + ":1, 0:" + shape[2] + ":1", narrowed.canonical());
      // an unknown column or a non-numeric literal narrows nothing
      DimensionFilter none =
          zaro.dimensionFilter("t2m", TableOptions.DEFAULT)
              .restrict("nope", DimensionFilter.Op.EQ, 1)
              .restrict("lat", DimensionFilter.Op.EQ, "x");
      assertEquals(Selection.all(shape).canonical(), none.apply(Selection.all(shape)).canonical());
      // contradictory ranges: empty
      DimensionFilter empty =
          zaro.dimensionFilter("t2m", TableOptions.DEFAULT.withCf(false))
              .restrict("lon", DimensionFilter.Op.LT, -1e9);
      assertTrue(empty.isEmpty());
      assertEquals(0, empty.apply(Selection.all(shape)).size());
    }
  }
}
