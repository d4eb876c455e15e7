package dev.zaro.spark;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.plan.DimensionFilter;
import dev.zaro.arrow.plan.ReadPlan;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.read.ZarrArray;
import java.sql.Date;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.LessThanOrEqual;
import org.apache.spark.sql.types.StructType;
import scala.Option;

/**
 * A planned read: the selection narrowed by the pushed filters, cut into partitions by zaro's read
 * plan (about {@code partitionBytes} decoded bytes each, on chunk or shard boundaries, computed
 * arithmetically: no chunk is listed). Without the option, partitions hold at most 128 MiB and are
 * made smaller (not below 4 MiB) so that every core gets one, as Spark sizes its file splits.
 * Planned once, on the driver, which then holds no open store; partitions carry only their
 * selection's text.
 */
final class ZarrScan implements Scan, Batch, SupportsReportStatistics {
  private final ZarrOptions options;
  private final StructType required;
  private final Filter[] filters;

  /** The arrays whose value columns are read (the first array alone when none is). */
  private final List<String> readArrays = new ArrayList<>();

  /** Per required column: -1 - dimension column, or the index in readArrays. */
  private final int[] columns;

  private Planned planned;

  /**
   * Without a partitionBytes option, partitions are not cut smaller than this to fill the cores.
   */
  static final long MIN_AUTO_PARTITION_BYTES = 4L << 20;

  /** The narrowed selection, its partitions and its size. */
  private record Planned(Selection selection, List<Selection> pieces, long rows, long bytes) {}

  ZarrScan(ZarrOptions options, StructType schema, StructType required, Filter[] filters) {
    this.options = options;
    this.required = required;
    this.filters = filters.clone();
    int dims = schema.size() - options.arrays().size();
    List<String> names = Arrays.asList(schema.fieldNames());
    for (String name : required.fieldNames()) {
      int at = names.indexOf(name);
      if (at >= dims && !readArrays.contains(options.arrays().get(at - dims))) {
        readArrays.add(options.arrays().get(at - dims));
      }
    }
    if (readArrays.isEmpty()) {
      readArrays.add(options.arrays().get(0));
    }
    columns = new int[required.size()];
    for (int c = 0; c < columns.length; c++) {
      int at = names.indexOf(required.fieldNames()[c]);
      columns[c] = at < dims ? -1 - at : readArrays.indexOf(options.arrays().get(at - dims));
    }
  }

  @Override
  public StructType readSchema() {
    return required;
  }

  @Override
  public String description() {
    Planned p = plan();
    return "zarr "
        + options.location()
        + " "
        + String.join(",", readArrays)
        + " ["
        + p.selection().canonical()
        + "] "
        + p.pieces().size()
        + " partitions";
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  @Override
  public InputPartition[] planInputPartitions() {
    List<Selection> pieces = plan().pieces();
    InputPartition[] out = new InputPartition[pieces.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = new ZarrPartition(i, pieces.get(i).canonical());
    }
    return out;
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new ZarrReaderFactory(options, List.copyOf(readArrays), columns.clone());
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return ZarrMetrics.all();
  }

  @Override
  public Statistics estimateStatistics() {
    Planned p = plan();
    return new Statistics() {
      @Override
      public OptionalLong sizeInBytes() {
        return OptionalLong.of(p.bytes());
      }

      @Override
      public OptionalLong numRows() {
        return OptionalLong.of(p.rows());
      }
    };
  }

  private synchronized Planned plan() {
    if (planned == null) {
      try (Zaro zaro = options.open()) {
        ZarrArray first = zaro.array(readArrays.get(0));
        Selection base = Selection.parse(options.slice(), first.metadata().shape());
        DimensionFilter filter =
            zaro.dimensionFilter(readArrays.get(0), TableOptions.DEFAULT.withCf(!options.raw()));
        for (Filter f : filters) {
          filter = restrict(filter, f);
        }
        Selection selection = filter.apply(base);
        long rows = selection.size();
        if (rows == 0) {
          planned = new Planned(selection, List.of(), 0, 0);
          return planned;
        }
        // decoded bytes per element: all arrays read; the plan is cut on the first one's chunks
        long firstBytes = Math.max(1, itemBytes(first.metadata().dataType()));
        long allBytes = 0;
        for (String array : readArrays) {
          allBytes += Math.max(1, itemBytes(zaro.meta(array).dataType()));
        }
        ReadPlan plan = ReadPlan.of(first.metadata(), selection);
        long bytes = Math.multiplyExact(rows, allBytes);
        long perPartition =
            options.partitionBytes() > 0
                ? options.partitionBytes()
                : Math.min(
                    ZarrOptions.DEFAULT_PARTITION_BYTES,
                    Math.max(
                        MIN_AUTO_PARTITION_BYTES, -Math.floorDiv(-bytes, defaultParallelism())));
        long target = Math.max(1, perPartition / allBytes * firstBytes);
        planned = new Planned(selection, plan.split(target), rows, bytes);
      }
    }
    return planned;
  }

  /** Spark's default parallelism (its cores), or 1 outside a Spark application. */
  private static int defaultParallelism() {
    Option<SparkSession> session = SparkSession.getActiveSession();
    return session.isDefined() ? Math.max(1, session.get().sparkContext().defaultParallelism()) : 1;
  }

  /** Bytes per element as decoded (variable-length values count their 16-byte references). */
  private static long itemBytes(DataType type) {
    return type.isVariableLength() ? 16 : type.byteSize();
  }

  /** Narrows {@code filter} by one Spark filter; filters it cannot use leave it as it is. */
  private static DimensionFilter restrict(DimensionFilter filter, Filter f) {
    if (f instanceof And and) {
      return restrict(restrict(filter, and.left()), and.right());
    }
    if (f instanceof EqualTo e && e.value() != null) {
      return filter.restrict(e.attribute(), DimensionFilter.Op.EQ, literal(e.value()));
    }
    if (f instanceof LessThan l && l.value() != null) {
      return filter.restrict(l.attribute(), DimensionFilter.Op.LT, literal(l.value()));
    }
    if (f instanceof LessThanOrEqual l && l.value() != null) {
      return filter.restrict(l.attribute(), DimensionFilter.Op.LE, literal(l.value()));
    }
    if (f instanceof GreaterThan g && g.value() != null) {
      return filter.restrict(g.attribute(), DimensionFilter.Op.GT, literal(g.value()));
    }
    if (f instanceof GreaterThanOrEqual g && g.value() != null) {
      return filter.restrict(g.attribute(), DimensionFilter.Op.GE, literal(g.value()));
    }
    if (f instanceof In in) {
      return filter.restrictIn(
          in.attribute(),
          Arrays.stream(in.values()).filter(v -> v != null).map(ZarrScan::literal).toList());
    }
    return filter;
  }

  /** Spark's external values as DimensionFilter takes them (java.sql times as java.time). */
  private static Object literal(Object value) {
    if (value instanceof Timestamp t) {
      return t.toInstant();
    }
    if (value instanceof Date d) {
      return d.toLocalDate();
    }
    return value;
  }
}
