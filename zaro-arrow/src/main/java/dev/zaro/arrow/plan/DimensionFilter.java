package dev.zaro.arrow.plan;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * Index ranges per dimension, narrowed by predicates on the values along each dimension ({@link
 * CoordinateValues}, the table layout's dimension columns): coordinate values, CF times as
 * timestamps, or the int64 index where a dimension has no coordinate array. A predicate becomes a
 * range only through a monotone column (increasing or decreasing, no NaN); one it cannot turn into
 * a range (non-monotone coordinates, an unknown column, a literal of the wrong kind) narrows
 * nothing, so an engine that keeps applying every predicate itself stays correct. Narrowing only
 * ever shrinks: the ranges are a superset of the rows that match. Not thread-safe; cheap to make.
 */
public final class DimensionFilter {
  /** A comparison {@code column OP value}. */
  public enum Op {
    /** Equal to the value. */
    EQ,
    /** Less than the value. */
    LT,
    /** Less than or equal to the value. */
    LE,
    /** Greater than the value. */
    GT,
    /** Greater than or equal to the value. */
    GE
  }

  private final List<CoordinateValues> columns;
  private final long[] shape;

  /** Per dimension, the array indices {@code [lo, hi)} that can still match. */
  private final long[] lo;

  private final long[] hi;

  /** Per dimension: 1 non-decreasing, -1 non-increasing, 0 neither, 2 not yet known. */
  private final int[] order;

  /**
   * A filter that keeps every index (until narrowed); {@code Zaro.dimensionFilter} makes one from
   * an array's dimension columns.
   *
   * @param columns the values along each dimension of the array, one per dimension
   * @param shape the array's shape
   */
  public DimensionFilter(List<? extends CoordinateValues> columns, long[] shape) {
    if (columns.size() != shape.length) {
      throw new IllegalArgumentException(
          columns.size() + " columns for " + shape.length + " dimensions");
    }
    this.columns = List.copyOf(columns);
    this.shape = shape.clone();
    this.lo = new long[shape.length];
    this.hi = shape.clone();
    this.order = new int[shape.length];
    Arrays.fill(order, 2);
  }

  /** The column named {@code name}, or null. */
  public CoordinateValues column(String name) {
    for (CoordinateValues c : columns) {
      if (c.name().equals(name)) {
        return c;
      }
    }
    return null;
  }

  /**
   * Narrows by {@code column op value}.
   *
   * @param value a {@link Number}; for a timestamp column also an {@link Instant}, a {@link
   *     LocalDateTime} or {@link LocalDate} (UTC), or epoch microseconds as a Number
   * @return this
   */
  public DimensionFilter restrict(String column, Op op, Object value) {
    CoordinateValues c = column(column);
    if (c != null && c.isLabels()) {
      return op == Op.EQ ? restrictIn(column, List.of(value)) : this;
    }
    Double v = c == null ? null : key(c, value);
    if (v == null || v.isNaN() || !monotone(c)) {
      return this;
    }
    int d = c.dim();
    long n = shape[d];
    // first index whose value is >= v (or > v), in increasing terms
    long ge = firstWhere(c, n, v, false);
    long gt = firstWhere(c, n, v, true);
    long from;
    long to;
    switch (op) {
      case EQ -> {
        from = ge;
        to = gt;
      }
      case LT -> {
        from = 0;
        to = ge;
      }
      case LE -> {
        from = 0;
        to = gt;
      }
      case GT -> {
        from = gt;
        to = n;
      }
      default -> {
        from = ge;
        to = n;
      }
    }
    if (order[d] < 0) {
      // decreasing: the same positions counted from the other end
      long f = n - to;
      to = n - from;
      from = f;
    }
    lo[d] = Math.max(lo[d], from);
    hi[d] = Math.min(hi[d], to);
    return this;
  }

  /** Narrows by {@code column BETWEEN low AND high} (both inclusive). */
  public DimensionFilter restrictBetween(String column, Object low, Object high) {
    return restrict(column, Op.GE, low).restrict(column, Op.LE, high);
  }

  /**
   * Narrows by {@code column IN (values)} to the hull of the values' ranges. On labels (text
   * coordinates, 360_day times) the values are Strings (or byte arrays) and the range is the hull
   * of the positions holding one of them, whatever the labels' order.
   */
  public DimensionFilter restrictIn(String column, Collection<?> values) {
    CoordinateValues c = column(column);
    if (c != null && c.isLabels()) {
      return restrictLabels(c, values);
    }
    if (c == null
        || !monotone(c)
        || values.stream().anyMatch(v -> key(c, v) == null || key(c, v).isNaN())) {
      return this;
    }
    int d = c.dim();
    long from = shape[d];
    long to = 0;
    for (Object value : values) {
      DimensionFilter one = new DimensionFilter(columns, shape);
      one.order[d] = order[d];
      one.restrict(column, Op.EQ, value);
      if (one.lo[d] < one.hi[d]) {
        from = Math.min(from, one.lo[d]);
        to = Math.max(to, one.hi[d]);
      }
    }
    lo[d] = Math.max(lo[d], from);
    hi[d] = Math.min(hi[d], Math.max(from, to));
    return this;
  }

  private DimensionFilter restrictLabels(CoordinateValues c, Collection<?> values) {
    List<byte[]> wanted = new ArrayList<>();
    for (Object v : values) {
      if (v instanceof String text) {
        wanted.add(text.getBytes(StandardCharsets.UTF_8));
      } else if (v instanceof byte[] bytes) {
        wanted.add(bytes);
      } else {
        return this; // not a label: narrows nothing
      }
    }
    int d = c.dim();
    long from = shape[d];
    long to = 0;
    for (long i = 0; i < shape[d]; i++) {
      byte[] label = c.labelAt(i);
      for (byte[] w : wanted) {
        if (Arrays.equals(label, w)) {
          from = Math.min(from, i);
          to = Math.max(to, i + 1);
          break;
        }
      }
    }
    lo[d] = Math.max(lo[d], from);
    hi[d] = Math.min(hi[d], Math.max(from, to));
    return this;
  }

  /**
   * Whether a comparison ({@code =, <, <=, >, >=} and BETWEEN, each against one value) on {@code
   * column} narrows to exactly the indices whose values match, not to a superset: the column is
   * monotone (values or CF times, no NaN), not labels. An engine may then drop such a predicate
   * after narrowing by it; IN narrows to the hull of its values and stays a superset.
   */
  public boolean isExact(String column) {
    CoordinateValues c = column(column);
    return c != null && !c.isLabels() && monotone(c);
  }

  /** True when no index can match. */
  public boolean isEmpty() {
    for (int d = 0; d < shape.length; d++) {
      if (lo[d] >= hi[d]) {
        return true;
      }
    }
    return false;
  }

  /** The array indices {@code [lo, hi)} of dimension {@code d} that can still match. */
  public long[] range(int d) {
    return new long[] {lo[d], Math.max(lo[d], hi[d])};
  }

  /**
   * {@code base} narrowed to the ranges: every dimension keeps its start, step and dropped flag (an
   * index list its order), and selects only the indices inside its range (none when {@link
   * #isEmpty()}).
   */
  public Selection apply(Selection base) {
    List<Selection.Dim> dims = new ArrayList<>();
    boolean empty = isEmpty();
    for (int d = 0; d < shape.length; d++) {
      Selection.Dim s = base.dims().get(d);
      // the selected indices that fall in [lo, hi) (an index list keeps its order)
      Selection.Dim in = s.within(lo[d], hi[d]);
      dims.add(empty ? s.positions(0, 0) : in);
    }
    return Selection.of(dims);
  }

  /** Caches and returns whether column c is monotone. */
  private boolean monotone(CoordinateValues c) {
    int d = c.dim();
    if (order[d] == 2) {
      boolean up = true;
      boolean down = true;
      double prev = Double.NaN;
      for (long i = 0; i < shape[d]; i++) {
        double v = c.valueAt(i);
        if (Double.isNaN(v)) {
          up = false;
          down = false;
          break;
        }
        if (i > 0) {
          up &= v >= prev;
          down &= v <= prev;
        }
        prev = v;
      }
      order[d] = up ? 1 : down ? -1 : 0;
    }
    return order[d] != 0;
  }

  /** In increasing terms, the first position whose value is >= v ({@code strict}: > v). */
  private long firstWhere(CoordinateValues c, long n, double v, boolean strict) {
    boolean decreasing = order[c.dim()] < 0;
    long a = 0;
    long b = n;
    while (a < b) {
      long m = (a + b) >>> 1;
      double x = c.valueAt(decreasing ? n - 1 - m : m);
      if (strict ? x > v : x >= v) {
        b = m;
      } else {
        a = m + 1;
      }
    }
    return a;
  }

  /** The literal as the column orders it, or null if it cannot be compared with it. */
  private static Double key(CoordinateValues c, Object value) {
    if (c.isEpochMicros()) {
      if (value instanceof Instant t) {
        return (double) ChronoUnit.MICROS.between(Instant.EPOCH, t);
      }
      if (value instanceof LocalDateTime t) {
        return (double) ChronoUnit.MICROS.between(Instant.EPOCH, t.toInstant(ZoneOffset.UTC));
      }
      if (value instanceof LocalDate t) {
        return (double)
            ChronoUnit.MICROS.between(Instant.EPOCH, t.atStartOfDay().toInstant(ZoneOffset.UTC));
      }
    }
    return value instanceof Number number ? number.doubleValue() : null;
  }
}
