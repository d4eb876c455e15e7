package dev.zaro.spark;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.error.NodeNotFoundException;
import dev.zaro.arrow.error.SelectionException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.DataType.Kind;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.TableOptions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The {@code zarr} data source: {@code spark.read.format("zarr").option("array",
 * "t2m").load(STORE)} reads arrays in zaro's table layout (docs/contracts.md, "Spark contract").
 * Options are checked and the schema worked out here, at analysis: a bad option fails {@code load}
 * with a message that names it.
 */
public final class ZarrDataSource implements TableProvider, DataSourceRegister {

  @Override
  public String shortName() {
    return "zarr";
  }

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    return schema(ZarrOptions.parse(options.asCaseSensitiveMap()));
  }

  @Override
  public Table getTable(
      StructType schema, Transform[] partitioning, Map<String, String> properties) {
    return new ZarrTable(ZarrOptions.parse(properties), schema);
  }

  /** The Spark field metadata key that marks a dimension column (true), which filters can prune. */
  static final String DIMENSION = "zaro.dimension";

  /**
   * The table's schema: the dimension columns (marked {@link #DIMENSION} in their metadata), the
   * non-dimension coordinate columns, then one value column per array. Arrays of a multi-array
   * table must share shape, dimension and coordinate columns.
   *
   * @throws IllegalArgumentException naming the option at fault
   */
  static StructType schema(ZarrOptions options) {
    String option = options.arrays().size() == 1 ? "array" : "arrays";
    List<Field> dims = null;
    List<Field> values = new ArrayList<>();
    long[] shape = null;
    try (Zaro zaro = open(options)) {
      for (String array : options.arrays()) {
        long[] arrayShape;
        try {
          arrayShape = zaro.meta(array).shape();
        } catch (NodeNotFoundException e) {
          throw new IllegalArgumentException(
              "zarr: option '"
                  + option
                  + "': no array '"
                  + array
                  + "' in "
                  + options.location()
                  + " ("
                  + e.getMessage()
                  + ")",
              e);
        } catch (ZaroException e) {
          throw new IllegalArgumentException(
              "zarr: option '" + option + "' ('" + array + "'): " + e.getMessage(), e);
        }
        if (shape != null && !Arrays.equals(shape, arrayShape)) {
          throw new IllegalArgumentException(
              "zarr: option 'arrays': '"
                  + array
                  + "' has shape "
                  + Arrays.toString(arrayShape)
                  + " but '"
                  + options.arrays().get(0)
                  + "' has "
                  + Arrays.toString(shape)
                  + "; the arrays of one table share their shape");
        }
        shape = arrayShape;
        List<Field> fields = tableFields(zaro, options, array, option);
        List<Field> arrayDims = fields.subList(0, fields.size() - 1);
        if (dims != null && !dims.equals(arrayDims)) {
          throw new IllegalArgumentException(
              "zarr: option 'arrays': '"
                  + array
                  + "' has dimension and coordinate columns "
                  + arrayDims
                  + " but '"
                  + options.arrays().get(0)
                  + "' has "
                  + dims
                  + "; the arrays of one table share their dimensions and coordinates");
        }
        dims = arrayDims;
        values.add(fields.get(fields.size() - 1));
      }
    }
    List<Field> all = new ArrayList<>(dims);
    all.addAll(values);
    Set<String> names = new HashSet<>();
    List<StructField> fields = new ArrayList<>();
    for (Field f : all) {
      if (!names.add(f.getName().toLowerCase(Locale.ROOT))) {
        throw new IllegalArgumentException(
            "zarr: option '"
                + option
                + "' ("
                + options.arrays()
                + ") gives two columns named '"
                + f.getName()
                + "'");
      }
      try {
        StructField field = SparkColumns.field(f);
        if (fields.size() < shape.length) { // the dimension columns come first
          field =
              field.copy(
                  field.name(),
                  field.dataType(),
                  field.nullable(),
                  new MetadataBuilder()
                      .withMetadata(field.metadata())
                      .putBoolean(DIMENSION, true)
                      .build());
        }
        fields.add(field);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("zarr: option '" + option + "': " + e.getMessage(), e);
      }
    }
    return new StructType(fields.toArray(StructField[]::new));
  }

  /**
   * The Arrow fields of one array's table layout (dimension columns, then its value column), from
   * metadata alone: no chunk of the array or of its coordinate arrays is read.
   */
  private static List<Field> tableFields(
      Zaro zaro, ZarrOptions options, String array, String option) {
    try {
      ArrayMetadata meta = zaro.meta(array);
      if (meta.dataType().fallbackFormat().isPresent() && !options.fallbackTypes()) {
        // the read would refuse it: say which option allows it
        zaro.array(array);
      }
      Selection selection = Selection.parse(options.slice(), meta.shape());
      return zaro.tableSchema(array, selection, TableOptions.DEFAULT.withCf(!options.raw()))
          .getFields();
    } catch (SelectionException e) {
      throw new IllegalArgumentException("zarr: option 'slice': " + e.getMessage(), e);
    } catch (ZaroException e) {
      String hint = zaroFallback(zaro, array) ? "rawBits" : option;
      throw new IllegalArgumentException(
          "zarr: option '" + hint + "' ('" + array + "'): " + e.getMessage(), e);
    }
  }

  /**
   * Whether the array is one zaro reads only as bit patterns (a struct with ML float fields: the
   * rawBits option's arrays).
   */
  private static boolean zaroFallback(Zaro zaro, String array) {
    try {
      DataType type = zaro.meta(array).dataType();
      return type.kind() == Kind.STRUCT && type.fallbackFormat().isPresent();
    } catch (ZaroException e) {
      return false;
    }
  }

  private static Zaro open(ZarrOptions options) {
    try {
      return options.open();
    } catch (ZaroException e) {
      throw new IllegalArgumentException(
          "zarr: cannot open store '" + options.location() + "' (load path): " + e.getMessage(), e);
    }
  }
}
