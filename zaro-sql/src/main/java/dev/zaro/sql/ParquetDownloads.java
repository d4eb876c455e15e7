package dev.zaro.sql;

import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.vector.CData;
import dev.zaro.flight.ExplorerParquet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.duckdb.DuckDBConnection;

/**
 * The explorer page's Parquet downloads ({@code GET /arrays/{path}/values.parquet};
 * docs/explorer.md), written by DuckDB, zaro's one Parquet writer: the selection's batches go to
 * DuckDB through the Arrow C Data Interface, {@code COPY ... TO} writes them (zstd) into a
 * directory of this object's own, and the file's bytes are answered and the file deleted. The
 * DuckDB database (its own, opened on the first download) may touch files in that directory only,
 * and its configuration is locked. Thread-safe: one download at a time. {@link #close()} closes the
 * database and deletes the directory.
 */
public final class ParquetDownloads implements ExplorerParquet, AutoCloseable {
  private DuckDBConnection duck;
  private Path dir;
  private long files;

  @Override
  public synchronized byte[] write(ArrowReader reader, BufferAllocator allocator)
      throws IOException {
    open();
    Path file = dir.resolve("selection-" + files++ + ".parquet");
    try (ArrowArrayStream stream = CData.export(reader, allocator)) {
      duck.registerArrowStream("__zaro_selection", stream);
      try (Statement s = duck.createStatement()) {
        s.execute(
            "COPY (SELECT * FROM __zaro_selection) TO "
                + literal(file.toString())
                + " (FORMAT parquet, COMPRESSION zstd)");
      }
      return Files.readAllBytes(file);
    } catch (SQLException e) {
      throw new ZaroException("parquet: DuckDB cannot write the selection: " + e.getMessage(), e);
    } finally {
      Files.deleteIfExists(file);
    }
  }

  private void open() throws IOException {
    if (duck != null) {
      return;
    }
    dir = Files.createTempDirectory("zaro-parquet-");
    DuckDBConnection opened;
    try {
      opened = DuckDbDatabase.openDatabase();
    } catch (SQLException e) {
      throw new ZaroException("parquet: cannot start DuckDB: " + e.getMessage(), e);
    }
    try (Statement s = opened.createStatement()) {
      s.execute("SET preserve_insertion_order = true");
      s.execute("SET allowed_directories = [" + literal(dir + "/") + "]");
      s.execute("SET enable_external_access = false");
      s.execute("SET lock_configuration = true");
    } catch (SQLException e) {
      closeQuietly(opened);
      throw new ZaroException("parquet: cannot configure DuckDB: " + e.getMessage(), e);
    }
    duck = opened;
  }

  private static String literal(String s) {
    return "'" + s.replace("'", "''") + "'";
  }

  private static void closeQuietly(DuckDBConnection c) {
    try {
      c.close();
    } catch (SQLException e) {
      // closing after a failure to configure: the configuration's error is the one reported
    }
  }

  @Override
  public synchronized void close() {
    if (duck != null) {
      closeQuietly(duck);
      duck = null;
    }
    if (dir != null) {
      try (Stream<Path> paths = Files.walk(dir)) {
        for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      dir = null;
    }
  }
}
