package dev.zaro.arrow.vector;

import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * Hands zaro's streams (a {@link TensorReader} for the tensor layout, a {@link
 * dev.zaro.arrow.vector.TableReader} for the table layout) to in-process consumers through the
 * Arrow C Data Interface, e.g. DuckDB's {@code registerArrowStream}.
 */
public final class CData {
  private CData() {}

  /**
   * Exports {@code reader} as a C {@code ArrowArrayStream}. Ownership: the returned stream owns the
   * reader; the consumer releases the stream (which closes the reader) and the caller closes the
   * returned Java {@link ArrowArrayStream} wrapper after that.
   */
  public static ArrowArrayStream export(ArrowReader reader, BufferAllocator allocator) {
    ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator);
    try {
      Data.exportArrayStream(allocator, reader, stream);
      return stream;
    } catch (RuntimeException e) {
      stream.close();
      throw e;
    }
  }
}
