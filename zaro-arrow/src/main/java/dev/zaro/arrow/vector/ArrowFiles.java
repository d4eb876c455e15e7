package dev.zaro.arrow.vector;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;

/** Writes Arrow IPC files all-or-nothing: to a temporary file, then moved into place. */
public final class ArrowFiles {
  private ArrowFiles() {}

  /**
   * A new empty file beside {@code target}, created with the user's default permissions (unlike
   * {@code Files.createTempFile}, which makes it private), to be moved onto {@code target}.
   */
  private static Path temporarySibling(Path dir, Path target) throws IOException {
    java.util.concurrent.ThreadLocalRandom random =
        java.util.concurrent.ThreadLocalRandom.current();
    for (int attempt = 0; ; attempt++) {
      Path tmp =
          dir.resolve(
              "."
                  + target.getFileName()
                  + "."
                  + Long.toUnsignedString(random.nextLong(), 36)
                  + ".tmp");
      try {
        return Files.createFile(tmp);
      } catch (java.nio.file.FileAlreadyExistsException e) {
        if (attempt > 100) {
          throw e;
        }
      }
    }
  }

  /** Default upper bound of one record batch's size. */
  public static final long DEFAULT_BATCH_BYTES = 64L << 20;

  /**
   * Writes every batch of {@code reader} to {@code target} in the IPC file format; the file appears
   * only when the stream has been written whole. Does not close the reader.
   *
   * @return rows written
   */
  public static long write(org.apache.arrow.vector.ipc.ArrowReader reader, Path target)
      throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Path tmp = temporarySibling(dir, target);
    boolean done = false;
    long rows = 0;
    try {
      try (FileChannel channel =
              FileChannel.open(
                  tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
          ArrowFileWriter writer =
              new ArrowFileWriter(reader.getVectorSchemaRoot(), null, channel)) {
        writer.start();
        while (reader.loadNextBatch()) {
          writer.writeBatch();
          rows += reader.getVectorSchemaRoot().getRowCount();
        }
        writer.end();
      }
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      done = true;
      return rows;
    } finally {
      if (!done) {
        Files.deleteIfExists(tmp);
      }
    }
  }

  /**
   * Writes {@code root} to {@code target} in the IPC file format, as record batches of at most
   * about {@code batchBytes} each. {@code target} appears only when the whole file is written.
   */
  public static void write(VectorSchemaRoot root, long rowBytes, Path target, long batchBytes)
      throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Path tmp = temporarySibling(dir, target);
    boolean done = false;
    try {
      try (FileChannel channel =
              FileChannel.open(
                  tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
          VectorSchemaRoot batchRoot =
              VectorSchemaRoot.create(
                  root.getSchema(),
                  root.getFieldVectors().isEmpty()
                      ? null
                      : root.getFieldVectors().get(0).getAllocator());
          ArrowFileWriter writer = new ArrowFileWriter(batchRoot, null, channel)) {
        writer.start();
        int rows = root.getRowCount();
        int perBatch =
            (int) Math.max(1, Math.min(Integer.MAX_VALUE, batchBytes / Math.max(1, rowBytes)));
        VectorLoader loader = new VectorLoader(batchRoot);
        if (rows == 0) {
          batchRoot.setRowCount(0);
          writer.writeBatch();
        }
        for (int start = 0; start < rows; start += perBatch) {
          int n = Math.min(perBatch, rows - start);
          try (VectorSchemaRoot slice = root.slice(start, n);
              ArrowRecordBatch batch = new VectorUnloader(slice).getRecordBatch()) {
            loader.load(batch);
            writer.writeBatch();
          }
        }
        writer.end();
      }
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      done = true;
    } finally {
      if (!done) {
        Files.deleteIfExists(tmp);
      }
    }
  }
}
