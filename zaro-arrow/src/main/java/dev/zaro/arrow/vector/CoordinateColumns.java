package dev.zaro.arrow.vector;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.read.ZarrArray;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The non-dimension coordinate columns of an array's table layout, as xarray's {@code
 * to_dataframe().reset_index()} gives them: one column per array named in the array's CF {@code
 * coordinates} attribute (space-separated) that is an array of the same group, whose dimension
 * names are a subset of the array's (each of the same length), and that is no dimension coordinate
 * (a 1-D array named like its dimension: that is a dimension column). Columns come after the
 * dimension columns and before the value column, in the group's order (by name, as {@code
 * xr.open_zarr} lists a group's arrays). A coordinate over some of the dimensions is repeated along
 * the others.
 *
 * <p>A column holds what the value column of the coordinate's own table layout holds: CF decoded
 * the same way (unless raw), by the same code. Each reader reads the selected part of each
 * coordinate it keeps once, at its first batch, and holds it until it is closed; a coordinate
 * column projected away is never read. A coordinate whose selected part would take more than {@link
 * #MAX_BYTES} is refused (a {@link ZaroException} naming it) rather than held: leave its column
 * out, or select less. Complex and struct coordinates have no column.
 *
 * <p>What this holds is metadata only, shared by any number of readers.
 */
public final class CoordinateColumns {
  /** No coordinate columns. */
  public static final CoordinateColumns NONE = new CoordinateColumns(List.of());

  /**
   * Upper bound of one coordinate's selected part, held by a reader for its whole life (counted at
   * 8 bytes per value at least, 64 for variable-length ones).
   */
  public static final long MAX_BYTES = 256L << 20;

  /** One coordinate: its array and, per dimension of it, the dimension of the variable. */
  private static final class Coordinate {
    private final String name;
    private final ZarrArray array;
    private final int[] varDims;

    Coordinate(String name, ZarrArray array, int[] varDims) {
      this.name = name;
      this.array = array;
      this.varDims = varDims;
    }

    String name() {
      return name;
    }

    ZarrArray array() {
      return array;
    }

    int[] varDims() {
      return varDims;
    }
  }

  private static final Pattern SPACES = Pattern.compile("\\s+");

  private final List<Coordinate> coordinates;

  private CoordinateColumns(List<Coordinate> coordinates) {
    this.coordinates = coordinates;
  }

  /**
   * The coordinate columns of {@code variable}: the arrays its {@code coordinates} attribute names
   * that {@code sibling} finds in its group and that qualify (see the class comment).
   *
   * @param sibling the array of that name in {@code variable}'s group, or null if there is none
   */
  public static CoordinateColumns of(ZarrArray variable, Function<String, ZarrArray> sibling) {
    ArrayMetadata meta = variable.metadata();
    JsonNode attr = meta.attributes() == null ? null : meta.attributes().get("coordinates");
    if (attr == null || !attr.isTextual()) {
      return NONE;
    }
    List<String> dims = meta.dimensionNames();
    List<Coordinate> out = new ArrayList<>();
    for (String name : SPACES.splitAsStream(attr.asText().trim()).toList()) {
      if (name.isEmpty()
          || name.contains("/")
          || name.equals(variable.name())
          || dims.contains(name)
          || out.stream().anyMatch(c -> c.name().equals(name))) {
        continue;
      }
      ZarrArray array = sibling.apply(name);
      int[] varDims = array == null ? null : varDims(array.metadata(), meta);
      DataType.Kind kind = array == null ? null : array.metadata().dataType().kind();
      if (varDims != null && kind != DataType.Kind.COMPLEX && kind != DataType.Kind.STRUCT) {
        out.add(new Coordinate(name, array, varDims));
      }
    }
    out.sort(Comparator.comparing(Coordinate::name));
    return out.isEmpty() ? NONE : new CoordinateColumns(List.copyOf(out));
  }

  /**
   * For each dimension of {@code coord}, the dimension of {@code var} of the same name and length;
   * null if one has no such dimension.
   */
  private static int[] varDims(ArrayMetadata coord, ArrayMetadata var) {
    int[] out = new int[coord.rank()];
    for (int j = 0; j < coord.rank(); j++) {
      String name = coord.dimensionNames().get(j);
      int d = name == null ? -1 : var.dimensionNames().indexOf(name);
      if (d < 0 || var.shape()[d] != coord.shape()[j]) {
        return null;
      }
      out[j] = d;
    }
    return out;
  }

  /** The coordinate column names, in column order. */
  public List<String> names() {
    return coordinates.stream().map(Coordinate::name).toList();
  }

  /**
   * The coordinate columns' fields, in column order, from metadata alone: each the value field of
   * the coordinate's own table layout.
   */
  public List<Field> fields(TableOptions options) {
    return coordinates.stream()
        .map(c -> TableReader.valueFields(c.array(), options).get(0))
        .toList();
  }

  /** The coordinate columns of one reader of {@code selection}; it closes them. */
  Columns open(
      Selection selection,
      TableOptions options,
      ReadOptions readOptions,
      BufferAllocator allocator) {
    return new Columns(selection, options, readOptions, allocator);
  }

  /**
   * One reader's coordinate columns: the ones its projection keeps, their selected values read once
   * (at the first batch) and held until {@link #close}.
   */
  final class Columns implements AutoCloseable {
    private final Selection selection;
    private final TableOptions options;
    private final ReadOptions readOptions;
    private final BufferAllocator allocator;
    private final List<Coordinate> kept = new ArrayList<>(coordinates);
    private final List<Field> fields;

    /** Per kept coordinate: its selected values, C order of its dimensions; null until read. */
    private FieldVector[] values;

    /** Per kept coordinate and variable dimension: the stride in {@link #values} (0: none). */
    private long[][] strides;

    private Columns(
        Selection selection,
        TableOptions options,
        ReadOptions readOptions,
        BufferAllocator allocator) {
      this.selection = selection;
      this.options = options;
      this.readOptions = readOptions;
      this.allocator = allocator;
      this.fields = new ArrayList<>(CoordinateColumns.this.fields(options));
    }

    /** Every coordinate column name, kept or not. */
    List<String> names() {
      return CoordinateColumns.this.names();
    }

    /** Keeps only the columns named in {@code columns} (null: all). */
    void project(List<String> columns) {
      for (int i = kept.size() - 1; columns != null && i >= 0; i--) {
        if (!columns.contains(kept.get(i).name())) {
          kept.remove(i);
          fields.remove(i);
        }
      }
    }

    /** The kept columns' fields. */
    List<Field> fields() {
      return fields;
    }

    /**
     * The kept columns of rows {@code [first, first + rows)} of {@code block} (a part of the
     * selection, the variable's dimensions in C order); the caller owns the vectors.
     */
    List<FieldVector> vectors(Selection block, long first, long rows) {
      if (values == null) {
        load();
      }
      List<FieldVector> out = new ArrayList<>();
      try {
        for (int i = 0; i < kept.size(); i++) {
          FieldVector v = fields.get(i).createVector(allocator);
          out.add(v);
          CoordinateFill.fill(v, values[i], strides[i], selection, block, first, rows);
        }
      } catch (RuntimeException e) {
        out.forEach(FieldVector::close);
        throw e;
      }
      return out;
    }

    /** Reads the selected part of every kept coordinate. */
    private void load() {
      FieldVector[] read = new FieldVector[kept.size()];
      long[][] s = new long[kept.size()][];
      try {
        for (int i = 0; i < kept.size(); i++) {
          Coordinate c = kept.get(i);
          List<Selection.Dim> dims = new ArrayList<>();
          List<DimensionColumn> none = new ArrayList<>();
          for (int j = 0; j < c.varDims().length; j++) {
            dims.add(selection.dims().get(c.varDims()[j]));
            none.add(DimensionColumn.index(j, c.array().metadata().dimensionName(j)));
          }
          Selection part = Selection.of(dims);
          checkSize(c, part);
          read[i] = read(c, part, none, fields.get(i));
          s[i] = new long[selection.dims().size()];
          long stride = 1;
          for (int j = dims.size() - 1; j >= 0; j--) {
            if (!dims.get(j).dropped()) {
              s[i][c.varDims()[j]] = stride;
              stride *= dims.get(j).count();
            }
          }
        }
      } catch (RuntimeException e) {
        for (FieldVector v : read) {
          if (v != null) {
            v.close();
          }
        }
        throw e;
      }
      values = read;
      strides = s;
    }

    private void checkSize(Coordinate c, Selection part) {
      DataType type = c.array().metadata().dataType();
      long width = type.isVariableLength() ? 64 : Math.max(8, type.byteSize());
      long n = part.size();
      if (n > MAX_BYTES / width) {
        throw new ZaroException(
            ErrorKind.INVALID_ARGUMENT,
            "coordinate '/"
                + c.array().path()
                + "': its part of the selection has "
                + n
                + " values, more than a table column of a non-dimension coordinate holds in memory ("
                + MAX_BYTES / width
                + " of "
                + type
                + "); leave the column '"
                + c.name()
                + "' out (columns) or select less");
      }
    }

    /** The coordinate's values of {@code part}, decoded as its own table's value column. */
    private FieldVector read(
        Coordinate c, Selection part, List<DimensionColumn> none, Field field) {
      long n = part.size();
      FieldVector out = field.createVector(allocator);
      try (TableReader reader =
          new TableReader(
              c.array(),
              part,
              none,
              CoordinateColumns.NONE,
              new TableOptions(options.cf(), Math.max(1, n), List.of(c.name())),
              readOptions,
              allocator)) {
        int at = 0;
        while (reader.loadNextBatch()) {
          FieldVector batch = reader.getVectorSchemaRoot().getVector(0);
          int count = batch.getValueCount();
          if (at == 0 && count == n) {
            batch.makeTransferPair(out).transfer();
          } else {
            for (int r = 0; r < count; r++) {
              out.copyFromSafe(r, at + r, batch);
            }
            out.setValueCount(at + count);
          }
          at += count;
        }
        if (at != n) {
          throw new ZaroException(
              ErrorKind.INTERNAL,
              "coordinate '/" + c.array().path() + "': read " + at + " values of " + n);
        }
        return out;
      } catch (IOException e) {
        out.close();
        throw new UncheckedIOException(e);
      } catch (RuntimeException e) {
        out.close();
        throw e;
      }
    }

    @Override
    public void close() {
      if (values != null) {
        for (FieldVector v : values) {
          v.close();
        }
        values = null;
      }
    }
  }

  /**
   * The position along {@code s} (a dimension of the selection) where {@code b} (that dimension of
   * a block cut from it) starts. A block of an index list holds a run of the list's positions;
   * where that run of indices occurs more than once, any occurrence serves: a coordinate's value
   * depends on the index alone.
   */
  static long offset(Selection.Dim s, Selection.Dim b) {
    if (!s.isList()) {
      return (b.start() - s.start()) / s.step();
    }
    long[] all = s.indices();
    long[] part = b.indices();
    search:
    for (int p = 0; p + part.length <= all.length; p++) {
      for (int k = 0; k < part.length; k++) {
        if (all[p + k] != part[k]) {
          continue search;
        }
      }
      return p;
    }
    throw new IllegalArgumentException(
        "block " + b + " is not a run of the selection's dimension " + s);
  }
}
