package dev.zaro.arrow.plan;

import dev.zaro.arrow.error.SelectionException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A numpy-style selection over an array: per dimension {@code start:stop}, {@code :}, {@code
 * start:stop:step} or an integer index (which drops the dimension); {@code ...} stands for as many
 * {@code :} as needed, and missing trailing entries are {@code :}. Negative indices count from the
 * end. Unlike numpy, explicit bounds outside the dimension are an error rather than silently
 * clamped, and steps must be positive.
 *
 * @param text the selection as written
 * @param dims one entry per array dimension
 */
public record Selection(String text, List<Dim> dims) {

  /** The selected indices of one dimension: {@code start + i * step} for {@code i < count}. */
  public record Dim(long start, long step, long count, boolean dropped) {}

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
      for (String e : trimmed.split(",", -1)) {
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
   * This selection in canonical text ({@code start:stop:step} or an index per dimension), which
   * parses back to the same dimensions.
   */
  public String canonical() {
    StringBuilder sb = new StringBuilder();
    for (int d = 0; d < dims.size(); d++) {
      Dim dim = dims.get(d);
      if (d > 0) {
        sb.append(", ");
      }
      if (dim.dropped()) {
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
   * {@code d}, which must not be dropped.
   */
  public Selection restrict(int d, long from, long count) {
    Dim dim = dims.get(d);
    if (dim.dropped() || from < 0 || count < 0 || from + count > dim.count()) {
      throw new IllegalArgumentException("cannot restrict " + dim + " to " + from + "+" + count);
    }
    List<Dim> out = new ArrayList<>(dims);
    out.set(d, new Dim(dim.start() + from * dim.step(), dim.step(), count, false));
    return new Selection(canonicalOf(out), out);
  }

  private static String canonicalOf(List<Dim> dims) {
    return new Selection("", dims).canonical();
  }

  /** A selection of these dimensions, its text the canonical form. */
  public static Selection of(List<Dim> dims) {
    return new Selection(canonicalOf(dims), dims);
  }

  @Override
  public String toString() {
    return text.isEmpty() ? ":" : text;
  }
}
