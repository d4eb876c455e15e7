package dev.zaro.arrow.read;

import java.util.Collection;
import java.util.List;

/**
 * How the table layout is built.
 *
 * @param cf apply CF conventions (scale_factor/add_offset unpacking, _FillValue and missing_value
 *     as nulls, CF time coordinates as timestamps); false gives the stored values
 * @param batchRows upper bound of rows per record batch (and of elements read at once)
 * @param columns the columns to produce, by their table-layout names, kept in layout order; null
 *     for every column. Columns left out are never generated, and without the value column no chunk
 *     is read at all.
 */
public record TableOptions(boolean cf, long batchRows, List<String> columns) {
  /** CF decoding on, batches of up to 2^20 rows, every column. */
  public static final TableOptions DEFAULT = new TableOptions(true, 1 << 20);

  /** Checks the batch size is positive and copies the column list. */
  public TableOptions {
    if (batchRows < 1) {
      throw new IllegalArgumentException("batchRows must be positive, not " + batchRows);
    }
    columns = columns == null ? null : List.copyOf(columns);
  }

  /** Options reading every column. */
  public TableOptions(boolean cf, long batchRows) {
    this(cf, batchRows, null);
  }

  /** These options with CF decoding {@code on} or off. */
  public TableOptions withCf(boolean on) {
    return new TableOptions(on, batchRows, columns);
  }

  /** These options with batches of up to {@code rows} rows. */
  public TableOptions withBatchRows(long rows) {
    return new TableOptions(cf, rows, columns);
  }

  /** Only these columns (null: all); see {@link #columns()}. */
  public TableOptions withColumns(Collection<String> names) {
    return new TableOptions(cf, batchRows, names == null ? null : List.copyOf(names));
  }
}
