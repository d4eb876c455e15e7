package dev.zaro.spark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownFilters;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.LessThanOrEqual;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Column pruning and filter pushdown. Filters on dimension columns ({@code =, <, <=, >, >=, IN},
 * BETWEEN, and ANDs of those) become index ranges at planning, through monotone coordinates ({@code
 * dev.zaro.arrow.plan.DimensionFilter}); partitions outside them are never created. Every filter
 * also stays with Spark, which checks each row: a range is a superset of the rows a filter keeps
 * (IN keeps the hull of its values, chunk-aligned pieces), never a subset.
 */
final class ZarrScanBuilder
    implements ScanBuilder, SupportsPushDownRequiredColumns, SupportsPushDownFilters {
  private final ZarrOptions options;
  private final StructType schema;
  private final Set<String> dimensions;
  private StructType required;
  private Filter[] pushed = new Filter[0];

  ZarrScanBuilder(ZarrOptions options, StructType schema) {
    this.options = options;
    this.schema = schema;
    this.required = schema;
    // the dimension columns: coordinate columns over some dimensions do not narrow index ranges
    this.dimensions =
        Arrays.stream(schema.fields())
            .filter(
                f ->
                    f.metadata().contains(ZarrDataSource.DIMENSION)
                        && f.metadata().getBoolean(ZarrDataSource.DIMENSION))
            .map(StructField::name)
            .collect(Collectors.toSet());
  }

  @Override
  public void pruneColumns(StructType requiredSchema) {
    this.required = requiredSchema;
  }

  @Override
  public Filter[] pushFilters(Filter[] filters) {
    List<Filter> usable = new ArrayList<>();
    for (Filter f : filters) {
      if (usable(f)) {
        usable.add(f);
      }
    }
    pushed = usable.toArray(Filter[]::new);
    return filters; // Spark still checks every row
  }

  @Override
  public Filter[] pushedFilters() {
    return pushed.clone();
  }

  /** Whether {@code f} is a comparison on dimension columns that can narrow the index ranges. */
  private boolean usable(Filter f) {
    if (f instanceof And and) {
      return usable(and.left()) || usable(and.right());
    }
    String column =
        f instanceof EqualTo e
            ? e.attribute()
            : f instanceof LessThan l
                ? l.attribute()
                : f instanceof LessThanOrEqual l
                    ? l.attribute()
                    : f instanceof GreaterThan g
                        ? g.attribute()
                        : f instanceof GreaterThanOrEqual g
                            ? g.attribute()
                            : f instanceof In in ? in.attribute() : null;
    return column != null && dimensions.contains(column);
  }

  @Override
  public Scan build() {
    return new ZarrScan(options, schema, required, pushed);
  }
}
