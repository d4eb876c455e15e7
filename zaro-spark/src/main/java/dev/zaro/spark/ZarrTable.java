package dev.zaro.spark;

import java.util.Set;
import org.apache.spark.sql.connector.catalog.CatalogV2Util;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * One read's table: the dimension columns, then one value column per array (in the order of {@link
 * ZarrOptions#arrays()}); see {@link ZarrDataSource#schema}.
 */
final class ZarrTable implements SupportsRead {
  private final ZarrOptions options;
  private final StructType schema;

  ZarrTable(ZarrOptions options, StructType schema) {
    this.options = options;
    this.schema = schema;
  }

  @Override
  public String name() {
    return "zarr " + options.location() + " " + String.join(",", options.arrays());
  }

  /** The schema as columns: what Table's default columns() made of the deprecated schema(). */
  @Override
  public Column[] columns() {
    return CatalogV2Util.structTypeToV2Columns(schema);
  }

  @Override
  public Set<TableCapability> capabilities() {
    return Set.of(TableCapability.BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap ignored) {
    return new ZarrScanBuilder(options, schema);
  }
}
