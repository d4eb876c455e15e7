package dev.zaro.flight;

import java.io.IOException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * Writes the explorer's Parquet downloads ({@code GET /arrays/{path}/values.parquet?slice=S}),
 * given by whoever serves the page: zaro-flight writes no Parquet of its own ({@code zaro serve}
 * gives zaro-sql's, which has DuckDB write it). The HTTP server owns it: one that is {@link
 * AutoCloseable} is closed with the server.
 */
@FunctionalInterface
public interface ExplorerParquet {
  /**
   * The batches of {@code reader} (a selection's table layout, read to its end here; the caller
   * closes it) as the bytes of one Parquet file, rows in the reader's order.
   *
   * @param allocator where the reader's batches live (for handing them to the writer)
   */
  byte[] write(ArrowReader reader, BufferAllocator allocator) throws IOException;
}
