package dev.zaro.arrow.read;

/**
 * How the table layout is built.
 *
 * @param cf apply CF conventions (scale_factor/add_offset unpacking, _FillValue and
 *     missing_value as nulls, CF time coordinates as timestamps); false gives the stored values
 * @param batchRows upper bound of rows per record batch (and of elements read at once)
 */
public record TableOptions(boolean cf, long batchRows) {
  public static final TableOptions DEFAULT = new TableOptions(true, 1 << 20);

  public TableOptions {
    if (batchRows < 1) {
      throw new IllegalArgumentException("batchRows must be positive, not " + batchRows);
    }
  }

  public TableOptions withCf(boolean on) {
    return new TableOptions(on, batchRows);
  }

  public TableOptions withBatchRows(long rows) {
    return new TableOptions(cf, rows);
  }
}
