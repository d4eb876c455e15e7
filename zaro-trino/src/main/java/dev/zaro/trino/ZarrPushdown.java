package dev.zaro.trino;

import dev.zaro.arrow.plan.DimensionFilter;
import dev.zaro.arrow.vector.DimensionColumn;
import io.airlift.slice.Slice;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.RealType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarcharType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A TupleDomain on dimension columns as index ranges, through zaro's {@link DimensionFilter} (the
 * one that narrows {@code zaro sql} and Spark reads): ranges on coordinate values, CF times
 * (TIMESTAMP(6)) and indices narrow through monotone columns, whatever their direction; equality
 * and IN on string labels (text coordinates, 360_day times) narrow to the hull of the labels'
 * positions. A domain whose ranges are one range on a column {@link DimensionFilter#isExact} calls
 * exact is enforced by the read (the selection holds exactly the matching rows) and leaves the
 * filter; every other domain (several ranges, labels, non-dimension columns, columns without a
 * monotone order) narrows what it can and stays with Trino, which checks every row.
 */
final class ZarrPushdown {
  private ZarrPushdown() {}

  /** The narrowed handle and what Trino must still check. */
  record Result(ZarrTableHandle handle, TupleDomain<ColumnHandle> remaining) {}

  static Result narrow(
      ZarrTableHandle handle,
      List<DimensionColumn> dimensions,
      long[] shape,
      TupleDomain<ColumnHandle> summary) {
    List<Long> lo = new ArrayList<>(handle.lo());
    List<Long> hi = new ArrayList<>(handle.hi());
    if (summary.isNone()) {
      hi.set(0, lo.get(0)); // nothing matches: no row
      return new Result(handle.withRanges(lo, hi), TupleDomain.all());
    }
    Map<ColumnHandle, Domain> remaining = new HashMap<>();
    for (Map.Entry<ColumnHandle, Domain> e : summary.getDomains().orElseThrow().entrySet()) {
      ZarrColumnHandle column = (ZarrColumnHandle) e.getKey();
      Domain domain = e.getValue();
      int d = column.dimension();
      if (d < 0) {
        remaining.put(column, domain);
        continue;
      }
      long[] range = new long[] {0, shape[d]};
      boolean exact = range(dimensions, shape, column, domain, range);
      lo.set(d, Math.max(lo.get(d), range[0]));
      hi.set(d, Math.max(lo.get(d), Math.min(hi.get(d), range[1])));
      if (!exact) {
        remaining.put(column, domain);
      }
    }
    return new Result(handle.withRanges(lo, hi), TupleDomain.withColumnDomains(remaining));
  }

  /**
   * Narrows {@code range} ([lo, hi) of the column's dimension) to the hull of the indices the
   * domain can match; true when exactly the matching indices are left.
   */
  private static boolean range(
      List<DimensionColumn> dimensions,
      long[] shape,
      ZarrColumnHandle column,
      Domain domain,
      long[] range) {
    int d = column.dimension();
    String name = column.name();
    if (domain.isNone() || domain.getValues().isNone()) {
      range[1] = range[0]; // only NULL, which a dimension never is, or nothing
      return true;
    }
    if (domain.getValues().isAll()) {
      return true;
    }
    DimensionColumn dimension = dimensions.get(d);
    Type type = column.type();
    if (dimension.isLabels()) {
      if (!(type instanceof VarcharType) || !domain.getValues().isDiscreteSet()) {
        return false;
      }
      List<Object> labels = new ArrayList<>();
      for (Object value : domain.getValues().getDiscreteSet()) {
        labels.add(((Slice) value).toStringUtf8());
      }
      DimensionFilter filter = new DimensionFilter(dimensions, shape).restrictIn(name, labels);
      long[] r = filter.range(d);
      range[0] = r[0];
      range[1] = r[1];
      return false;
    }
    List<Range> ranges;
    try {
      ranges = domain.getValues().getRanges().getOrderedRanges();
    } catch (UnsupportedOperationException | IllegalStateException e) {
      return false; // not an ordered set of values
    }
    long from = shape[d];
    long to = 0;
    boolean exact = ranges.size() == 1;
    for (Range r : ranges) {
      DimensionFilter filter = new DimensionFilter(dimensions, shape);
      if (!r.isLowUnbounded()) {
        Object low = literal(type, dimension, r.getLowBoundedValue());
        if (low == null) {
          return false;
        }
        filter.restrict(
            name,
            r.isSingleValue()
                ? DimensionFilter.Op.EQ
                : r.isLowInclusive() ? DimensionFilter.Op.GE : DimensionFilter.Op.GT,
            low);
      }
      if (!r.isHighUnbounded() && !r.isSingleValue()) {
        Object high = literal(type, dimension, r.getHighBoundedValue());
        if (high == null) {
          return false;
        }
        filter.restrict(
            name, r.isHighInclusive() ? DimensionFilter.Op.LE : DimensionFilter.Op.LT, high);
      }
      exact &= filter.isExact(name);
      if (!filter.isEmpty()) {
        long[] one = filter.range(d);
        from = Math.min(from, one[0]);
        to = Math.max(to, one[1]);
      }
    }
    range[0] = from;
    range[1] = Math.max(from, to);
    return exact;
  }

  /**
   * A Trino value as {@link DimensionFilter} compares it with the column, or null when it does not:
   * numbers of the integer, REAL and DOUBLE types; TIMESTAMP(6) (epoch microseconds) against CF
   * times and datetime64 coordinates read as microsecond timestamps.
   */
  private static Object literal(Type type, DimensionColumn column, Object value) {
    if (type == BigintType.BIGINT
        || type == IntegerType.INTEGER
        || type == SmallintType.SMALLINT
        || type == TinyintType.TINYINT) {
      return column.isEpochMicros() ? null : (Long) value;
    }
    if (type == DoubleType.DOUBLE) {
      return column.isEpochMicros() ? null : (Double) value;
    }
    if (type == RealType.REAL) {
      return column.isEpochMicros()
          ? null
          : (double) Float.intBitsToFloat(Math.toIntExact((Long) value));
    }
    if (type.equals(TimestampType.TIMESTAMP_MICROS)) {
      return column.isEpochMicros() ? (Long) value : null;
    }
    return null;
  }
}
