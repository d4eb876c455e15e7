package dev.zaro.arrow.vector.internal;

import dev.zaro.arrow.error.NodeNotFoundException;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.Hierarchy;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.read.ZarrArray;
import dev.zaro.arrow.store.StoreKeys;
import dev.zaro.arrow.vector.CoordinateColumns;
import dev.zaro.arrow.vector.DimensionColumn;
import dev.zaro.arrow.vector.TableReader;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The table layout's columns of the arrays of one hierarchy, found in their groups: dimension
 * columns from the 1-D coordinate arrays named like the dimensions, non-dimension coordinate
 * columns from the CF {@code coordinates} attribute, and the schema of both with the values, from
 * metadata alone. What {@code Zaro}'s {@code dimensionColumns}, {@code coordinateColumns} and
 * {@code tableSchema} do; {@code Zaro} opens and reads the arrays.
 */
public final class TableColumns {
  private final Hierarchy hierarchy;
  private final Function<String, ZarrArray> arrays;
  private final BiFunction<String, BufferAllocator, Slab> readWhole;
  private final boolean fallbackTypes;

  /**
   * @param hierarchy where coordinate arrays are looked up (metadata only)
   * @param arrays opens the array at a path, as {@code Zaro.array}
   * @param readWhole reads the whole array at a path into the allocator it is given, as {@code
   *     Zaro.read}; the caller closes the slab
   * @param fallbackTypes whether ML float types stay bit patterns ({@code
   *     ZaroOptions.fallbackTypes}) rather than widened coordinates
   */
  public TableColumns(
      Hierarchy hierarchy,
      Function<String, ZarrArray> arrays,
      BiFunction<String, BufferAllocator, Slab> readWhole,
      boolean fallbackTypes) {
    this.hierarchy = hierarchy;
    this.arrays = arrays;
    this.readWhole = readWhole;
    this.fallbackTypes = fallbackTypes;
  }

  /**
   * The table layout's non-dimension coordinate columns of the array at {@code path} (see {@link
   * CoordinateColumns}). Nothing is read but metadata.
   */
  public CoordinateColumns coordinateColumns(String path) {
    ZarrArray array = arrays.apply(path);
    String parent =
        array.path().contains("/") ? array.path().substring(0, array.path().lastIndexOf('/')) : "";
    return CoordinateColumns.of(
        array,
        name -> {
          String p = StoreKeys.join(parent, name);
          try {
            return hierarchy.node(p) instanceof ArrayMetadata ? arrays.apply(p) : null;
          } catch (NodeNotFoundException e) {
            return null;
          }
        });
  }

  /**
   * The table layout's dimension columns of the array at {@code path}, one per dimension, each
   * coordinate array read whole now.
   *
   * @param allocator reads the coordinate arrays; nothing of it is held once this returns
   */
  public List<DimensionColumn> dimensionColumns(
      String path, TableOptions options, BufferAllocator allocator) {
    List<DimensionColumn> columns = new ArrayList<>();
    forEachDimension(
        path,
        (d, name, coordPath, coord) -> {
          if (coord == null) {
            columns.add(DimensionColumn.index(d, name));
          } else {
            try (Slab values = readWhole.apply(coordPath, allocator)) {
              columns.add(DimensionColumn.of(d, name, values, coord, options.cf()));
            }
          }
        });
    return columns;
  }

  /**
   * The dimension columns of {@link #dimensionColumns(String, TableOptions, BufferAllocator)}, each
   * coordinate array read only when its column's values are first needed, into a root allocator of
   * its own; nothing is read here but metadata.
   */
  public List<DimensionColumn> dimensionColumns(String path, TableOptions options) {
    List<DimensionColumn> columns = new ArrayList<>();
    forEachDimension(
        path,
        (d, name, coordPath, coord) ->
            columns.add(
                coord == null
                    ? DimensionColumn.index(d, name)
                    : DimensionColumn.lazy(
                        d,
                        name,
                        coord,
                        options.cf(),
                        allocator -> readWhole.apply(coordPath, allocator))));
    return columns;
  }

  /**
   * The table layout's schema of {@code selection} of the array at {@code path}, from metadata
   * alone: the same fields a {@link TableReader} of it produces.
   */
  public Schema tableSchema(String path, Selection selection, TableOptions options) {
    List<Field> fields = new ArrayList<>();
    forEachDimension(
        path,
        (d, name, coordPath, coord) -> {
          if (selection.dims().get(d).dropped()) {
            return;
          }
          Field f = coord == null ? null : DimensionColumn.field(name, coord, options.cf());
          fields.add(f != null ? f : DimensionColumn.index(d, name).field());
        });
    fields.addAll(coordinateColumns(path).fields(options));
    fields.addAll(TableReader.valueFields(arrays.apply(path), options));
    return new Schema(fields);
  }

  /** What each dimension column of an array is made from. */
  private interface DimensionSource {
    void accept(int dim, String name, String coordPath, ArrayMetadata coord);
  }

  /**
   * Walks the dimensions of the array at {@code path}: each column's name (from the dimension
   * names, {@code dim_0}... where unnamed; a name equal to the array's own gets a {@code _dim}
   * suffix) and its coordinate array, a 1-D array named like the dimension in the array's group
   * (null when there is none).
   */
  private void forEachDimension(String path, DimensionSource source) {
    ZarrArray array = arrays.apply(path);
    ArrayMetadata meta = array.metadata();
    String parent =
        array.path().contains("/") ? array.path().substring(0, array.path().lastIndexOf('/')) : "";
    Set<String> names = new HashSet<>();
    names.add(array.name());
    for (int d = 0; d < meta.rank(); d++) {
      String name = meta.dimensionName(d);
      if (!names.add(name)) {
        name = name + "_dim";
        names.add(name);
      }
      String dimension = meta.dimensionNames().get(d);
      String coordPath = dimension == null ? null : StoreKeys.join(parent, dimension);
      ArrayMetadata coord =
          coordPath == null || coordPath.equals(array.path())
              ? null
              : coordinate(coordPath, meta.shape()[d]);
      source.accept(d, name, coordPath, coord);
    }
  }

  /** The 1-D array of {@code length} at {@code path}, or null. */
  private ArrayMetadata coordinate(String path, long length) {
    try {
      return hierarchy.node(path) instanceof ArrayMetadata a
              && a.rank() == 1
              && a.shape()[0] == length
          ? (fallbackTypes ? a : a.withMlFloatsWidened())
          : null;
    } catch (NodeNotFoundException e) {
      return null;
    }
  }
}
