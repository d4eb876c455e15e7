package dev.zaro.arrow.plan;

import dev.zaro.arrow.error.SelectionException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A numpy-style selection over an array: per dimension {@code start:stop}, {@code :}, {@code
 * start:stop:step}, an integer index (which drops the dimension) or an index list in brackets,
 * {@code [i,j,k]}; {@code ...} stands for as many {@code :} as needed, and missing trailing entries
 * are {@code :}. Negative indices count from the end. Unlike numpy, explicit bounds outside the
 * dimension are an error rather than silently clamped, and steps must be positive.
 *
 * <p>Index lists have numpy's outer meaning (as {@code np.ix_}): {@code [0,239], [0,90,180], :}
 * selects a 2 x 3 x n result, each list independently of the others. A list keeps its dimension
 * (even {@code [3]}), may be unsorted and hold duplicates (the result follows the list's order),
 * and may be empty ({@code []}: a 0-length dimension).
 *
 * @param text the selection as written
 * @param dims one entry per array dimension
 */
public record Selection(String text, List<Dim> dims) {

  /**
   * The selected indices of one dimension: {@code start + i * step} for {@code i < count}, or, for
   * an index list ({@link #isList()}), {@code indices[i]}. Use {@link #index(long)} for the i-th
   * selected index whatever the kind; {@link #start()} and {@link #step()} throw for a list, so no
   * stride arithmetic is ever applied to one by mistake.
   *
   * @param start the first index (a range or an integer index)
   * @param step the distance between selected indices, positive (a range)
   * @param count how many indices are selected
   * @param dropped true for an integer index: the dimension is not part of the result
   * @param indices the selected indices in order (non-negative, in range), or null for a range
   */
  @SuppressWarnings("ArrayRecordComponent") // equals, hashCode and toString below use the contents
  public record Dim(long start, long step, long count, boolean dropped, long[] indices) {

    /** A range or an integer index (no index list). */
    public Dim(long start, long step, long count, boolean dropped) {
      this(start, step, count, dropped, null);
    }

    /**
     * Checks that an index list is kept (not dropped), that its count is its length and that its
     * indices are not negative (the parser has made them so).
     */
    public Dim {
      if (indices != null) {
        if (dropped || count != indices.length || start != 0 || step != 1) {
          throw new IllegalArgumentException(
              "an index list is a kept dimension of start 0, step 1 and its length as count");
        }
        indices = indices.clone();
        for (long i : indices) {
          if (i < 0) {
            throw new IllegalArgumentException("index list " + Arrays.toString(indices));
          }
        }
      }
    }

    /** An index list (indices already non-negative and in range). */
    public static Dim list(long[] indices) {
      return new Dim(0, 1, indices.length, false, indices);
    }

    /** True for an index list. */
    public boolean isList() {
      return indices != null;
    }

    /** The first index of a range or an integer index; throws for an index list. */
    @Override
    public long start() {
      if (indices != null) {
        throw new IllegalStateException("an index list has no start: " + this);
      }
      return start;
    }

    /** The step of a range (1 for an integer index); throws for an index list. */
    @Override
    public long step() {
      if (indices != null) {
        throw new IllegalStateException("an index list has no step: " + this);
      }
      return step;
    }

    /** A copy of the selected indices of an index list, or null for a range. */
    @Override
    public long[] indices() {
      return indices == null ? null : indices.clone();
    }

    /** The {@code k}-th selected index ({@code 0 <= k < count}). */
    public long index(long k) {
      return indices != null ? indices[Math.toIntExact(k)] : start + k * step;
    }

    /** The smallest selected index (the first one of a range); {@code count} must be positive. */
    public long min() {
      if (indices == null) {
        return start;
      }
      long m = Long.MAX_VALUE;
      for (long i : indices) {
        m = Math.min(m, i);
      }
      return m;
    }

    /** The largest selected index; {@code count} must be positive. */
    public long max() {
      if (indices == null) {
        return start + (count - 1) * step;
      }
      long m = Long.MIN_VALUE;
      for (long i : indices) {
        m = Math.max(m, i);
      }
      return m;
    }

    /**
     * The selected positions {@code [from, from + n)} of this dimension, as a dimension of the same
     * kind (a range stays a range; a list keeps that part of its list).
     */
    public Dim positions(long from, long n) {
      if (from < 0 || n < 0 || from + n > count) {
        throw new IllegalArgumentException("positions " + from + "+" + n + " of " + this);
      }
      if (indices != null) {
        return list(Arrays.copyOfRange(indices, (int) from, (int) (from + n)));
      }
      return new Dim(start + from * step, step, n, dropped);
    }

    /**
     * The selected indices that fall in {@code [lo, hi)}, in order, as a dimension of this kind.
     */
    public Dim within(long lo, long hi) {
      if (indices != null) {
        return list(Arrays.stream(indices).filter(i -> i >= lo && i < hi).toArray());
      }
      long k0 = lo <= start ? 0 : (lo - start + step - 1) / step;
      long k1 = hi <= start ? 0 : Math.min(count, (hi - 1 - start) / step + 1);
      long n = Math.max(0, k1 - k0);
      return new Dim(n == 0 ? start : start + k0 * step, step, n, dropped);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Dim d
          && start == d.start
          && step == d.step
          && count == d.count
          && dropped == d.dropped
          && Arrays.equals(indices, d.indices);
    }

    @Override
    public int hashCode() {
      return Objects.hash(start, step, count, dropped, Arrays.hashCode(indices));
    }

    @Override
    public String toString() {
      return indices != null
          ? "Dim[indices=" + Arrays.toString(indices) + "]"
          : "Dim[start="
              + start
              + ", step="
              + step
              + ", count="
              + count
              + ", dropped="
              + dropped
              + "]";
    }
  }

  /** Copies the per-dimension list. */
  public Selection {
    dims = List.copyOf(dims);
  }

  /** Everything. */
  public static Selection all(long[] shape) {
    return parse("", shape);
  }

  /** Parses {@code text} against an array of {@code shape}. */
  public static Selection parse(String text, long[] shape) {
    String trimmed = text == null ? "" : text.trim();
    List<String> entries = new ArrayList<>();
    if (!trimmed.isEmpty()) {
      for (String e : entries(text, trimmed)) {
        entries.add(e.trim());
      }
    }
    int ellipses = (int) entries.stream().filter("..."::equals).count();
    if (ellipses > 1) {
      throw new SelectionException("selection '" + text + "' has more than one '...'");
    }
    if (ellipses == 1) {
      int at = entries.indexOf("...");
      int fill = shape.length - (entries.size() - 1);
      if (fill < 0) {
        throw tooMany(text, entries.size() - 1, shape);
      }
      entries.remove(at);
      for (int i = 0; i < fill; i++) {
        entries.add(at, ":");
      }
    }
    if (entries.size() > shape.length) {
      throw tooMany(text, entries.size(), shape);
    }
    List<Dim> dims = new ArrayList<>();
    for (int d = 0; d < shape.length; d++) {
      dims.add(parseDim(text, d < entries.size() ? entries.get(d) : ":", d, shape[d]));
    }
    return new Selection(trimmed, dims);
  }

  /** The comma-separated entries of {@code trimmed}, commas inside brackets not separating. */
  private static List<String> entries(String text, String trimmed) {
    List<String> out = new ArrayList<>();
    int depth = 0;
    int from = 0;
    for (int i = 0; i < trimmed.length(); i++) {
      char c = trimmed.charAt(i);
      if (c == '[') {
        if (++depth > 1) {
          throw new SelectionException("selection '" + text + "': nested '[' in an index list");
        }
      } else if (c == ']') {
        if (--depth < 0) {
          throw new SelectionException("selection '" + text + "': ']' without its '['");
        }
      } else if (c == ',' && depth == 0) {
        out.add(trimmed.substring(from, i));
        from = i + 1;
      }
    }
    if (depth != 0) {
      throw new SelectionException("selection '" + text + "': '[' without its ']'");
    }
    out.add(trimmed.substring(from));
    return out;
  }

  private static SelectionException tooMany(String text, int n, long[] shape) {
    return new SelectionException(
        "selection '"
            + text
            + "' has "
            + n
            + " entries but the array has "
            + shape.length
            + " dimension"
            + (shape.length == 1 ? "" : "s")
            + " (shape "
            + Arrays.toString(shape)
            + ")");
  }

  private static Dim parseDim(String text, String entry, int d, long size) {
    String where =
        "selection '" + text + "', dimension " + d + " ('" + entry + "', size " + size + ")";
    if (entry.isEmpty()) {
      throw new SelectionException(where + ": empty entry; use ':' for the whole dimension");
    }
    if (entry.startsWith("[")) {
      return parseList(entry, size, where);
    }
    if (entry.contains("[") || entry.contains("]")) {
      throw new SelectionException(where + ": an index list is a whole entry, '[i,j,...]'");
    }
    String[] parts = entry.split(":", -1);
    if (parts.length == 1) {
      long index = number(parts[0], where);
      long i = index < 0 ? index + size : index;
      if (i < 0 || i >= size) {
        throw new SelectionException(where + ": index " + index + " is out of range");
      }
      return new Dim(i, 1, 1, true);
    }
    if (parts.length > 3) {
      throw new SelectionException(where + ": expected start:stop or start:stop:step");
    }
    long step = parts.length == 3 && !parts[2].isBlank() ? number(parts[2], where) : 1;
    if (step <= 0) {
      throw new SelectionException(where + ": step must be positive, not " + step);
    }
    long start = parts[0].isBlank() ? 0 : bound(number(parts[0], where), size, where, "start");
    long stop = parts[1].isBlank() ? size : bound(number(parts[1], where), size, where, "stop");
    long count = stop > start ? (stop - start + step - 1) / step : 0;
    return new Dim(start, step, count, false);
  }

  /** {@code [i,j,...]}: each index in range (negative ones from the end), in the list's order. */
  private static Dim parseList(String entry, long size, String where) {
    if (!entry.endsWith("]")) {
      throw new SelectionException(where + ": an index list is a whole entry, '[i,j,...]'");
    }
    String inner = entry.substring(1, entry.length() - 1).trim();
    if (inner.isEmpty()) {
      return Dim.list(new long[0]);
    }
    String[] items = inner.split(",", -1);
    long[] indices = new long[items.length];
    for (int k = 0; k < items.length; k++) {
      if (items[k].isBlank()) {
        throw new SelectionException(where + ": empty item " + k + " in the index list");
      }
      long index = number(items[k], where);
      long i = index < 0 ? index + size : index;
      if (i < 0 || i >= size) {
        throw new SelectionException(
            where + ": index " + index + " (item " + k + " of the list) is out of range");
      }
      indices[k] = i;
    }
    return Dim.list(indices);
  }

  private static long bound(long value, long size, String where, String what) {
    long v = value < 0 ? value + size : value;
    if (v < 0 || v > size) {
      throw new SelectionException(where + ": " + what + " " + value + " is out of range");
    }
    return v;
  }

  private static long number(String s, String where) {
    try {
      return Long.parseLong(s.trim());
    } catch (NumberFormatException e) {
      throw new SelectionException(where + ": '" + s.trim() + "' is not an integer");
    }
  }

  /** Number of selected indices per dimension, dropped dimensions included (as 1). */
  public long[] counts() {
    return dims.stream().mapToLong(Dim::count).toArray();
  }

  /** The shape of the result: counts of the dimensions that are not dropped. */
  public long[] resultShape() {
    return dims.stream().filter(d -> !d.dropped()).mapToLong(Dim::count).toArray();
  }

  /** Number of selected elements. */
  public long size() {
    long n = 1;
    for (Dim d : dims) {
      n = Math.multiplyExact(n, d.count());
    }
    return n;
  }

  /**
   * This selection in canonical text ({@code start:stop:step}, an index or an index list {@code
   * [i,j,k]} per dimension), which parses back to the same dimensions.
   */
  public String canonical() {
    StringBuilder sb = new StringBuilder();
    for (int d = 0; d < dims.size(); d++) {
      Dim dim = dims.get(d);
      if (d > 0) {
        sb.append(", ");
      }
      if (dim.isList()) {
        sb.append('[');
        for (long k = 0; k < dim.count(); k++) {
          sb.append(k > 0 ? "," : "").append(dim.index(k));
        }
        sb.append(']');
      } else if (dim.dropped()) {
        sb.append(dim.start());
      } else {
        sb.append(dim.start())
            .append(':')
            .append(
                dim.start() + dim.count() * dim.step() - (dim.count() == 0 ? 0 : dim.step() - 1))
            .append(':')
            .append(dim.step());
      }
    }
    return sb.toString();
  }

  /**
   * The same selection restricted to selected indices {@code [from, from + count)} of dimension 0.
   */
  public Selection restrictFirst(long from, long count) {
    return restrict(0, from, count);
  }

  /**
   * The same selection restricted to selected indices {@code [from, from + count)} of dimension
   * {@code d}, which must not be dropped (positions in the list, for an index list).
   */
  public Selection restrict(int d, long from, long count) {
    Dim dim = dims.get(d);
    if (dim.dropped() || from < 0 || count < 0 || from + count > dim.count()) {
      throw new IllegalArgumentException("cannot restrict " + dim + " to " + from + "+" + count);
    }
    List<Dim> out = new ArrayList<>(dims);
    out.set(d, dim.positions(from, count));
    return new Selection(canonicalOf(out), out);
  }

  private static String canonicalOf(List<Dim> dims) {
    return new Selection("", dims).canonical();
  }

  /** A selection of these dimensions, its text the canonical form. */
  public static Selection of(List<Dim> dims) {
    return new Selection(canonicalOf(dims), dims);
  }

  /** True when some dimension is an index list. */
  public boolean hasLists() {
    for (Dim d : dims) {
      if (d.isList()) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return text.isEmpty() ? ":" : text;
  }
}
