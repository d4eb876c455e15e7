package dev.zaro.arrow.vector;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.arrow.vector.BufferLayout;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** Writes Arrow IPC files all-or-nothing: to a temporary file, then moved into place. */
public final class ArrowFiles {
  private ArrowFiles() {}

  /**
   * A new empty file beside {@code target}, created with the user's default permissions (unlike
   * {@code Files.createTempFile}, which makes it private), to be moved onto {@code target}.
   */
  private static Path temporarySibling(Path dir, Path target) throws IOException {
    ThreadLocalRandom random = ThreadLocalRandom.current();
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
      } catch (FileAlreadyExistsException e) {
        if (attempt > 100) {
          throw e;
        }
      }
    }
  }

  /** Default upper bound of one record batch's size: 64 MiB. */
  public static final long DEFAULT_BATCH_BYTES = TensorReader.DEFAULT_BATCH_BYTES;

  /** The bytes a file system still lets this process write in a directory. */
  @FunctionalInterface
  public interface FreeSpace {
    /** The file system's usable space, from {@link java.nio.file.FileStore#getUsableSpace()}. */
    FreeSpace FILE_STORE = dir -> Files.getFileStore(dir).getUsableSpace();

    /** Bytes that may still be written in {@code dir}'s file system. */
    long usableBytes(Path dir) throws IOException;
  }

  /**
   * Writes every batch of {@code reader} to {@code target} in the IPC file format; the file appears
   * only when the stream has been written whole. Does not close the reader.
   *
   * @return rows written
   */
  public static long write(ArrowReader reader, Path target) throws IOException {
    return write(reader, target, 0, FreeSpace.FILE_STORE);
  }

  /**
   * As {@link #write(ArrowReader, Path)}, after checking that the target's file system has room for
   * {@code expectedBytes} (e.g. {@link #sizeBound}); refuses before creating any file if not.
   *
   * @throws ZaroException (IO) naming both sizes when the file system has less room
   */
  public static long write(ArrowReader reader, Path target, long expectedBytes, FreeSpace freeSpace)
      throws IOException {
    return write(reader, target, expectedBytes, freeSpace, null);
  }

  /**
   * As {@link #write(ArrowReader, Path, long, FreeSpace)}, compressing every buffer with {@code
   * codec} (Arrow IPC buffer compression, which pyarrow, R's arrow and Arrow JS read without being
   * told; null or {@link CompressionUtil.CodecType#NO_COMPRESSION}: none). {@code expectedBytes}
   * stays the uncompressed bound.
   */
  public static long write(
      ArrowReader reader,
      Path target,
      long expectedBytes,
      FreeSpace freeSpace,
      CompressionCodec codec)
      throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    if (expectedBytes > 0) {
      long free = freeSpace.usableBytes(dir);
      if (free < expectedBytes) {
        throw new ZaroException(
            ErrorKind.IO,
            "writing "
                + target
                + " needs about "
                + expectedBytes
                + " bytes ("
                + gb(expectedBytes)
                + "), but the file system of "
                + dir
                + " has "
                + free
                + " bytes free ("
                + gb(free)
                + "); nothing was written");
      }
    }
    Path tmp = temporarySibling(dir, target);
    boolean done = false;
    long rows = 0;
    try {
      try (FileChannel channel =
              FileChannel.open(
                  tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
          ArrowFileWriter writer =
              codec == null || codec.getCodecType() == CompressionUtil.CodecType.NO_COMPRESSION
                  ? new ArrowFileWriter(reader.getVectorSchemaRoot(), null, channel)
                  : new ArrowFileWriter(
                      reader.getVectorSchemaRoot(),
                      null,
                      channel,
                      Map.of(),
                      IpcOption.DEFAULT,
                      only(codec),
                      codec.getCodecType())) {
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

  /** A factory that makes {@code codec} (the writer asks for it by its own type). */
  private static CompressionCodec.Factory only(CompressionCodec codec) {
    return new CompressionCodec.Factory() {
      @Override
      public CompressionCodec createCodec(CompressionUtil.CodecType type) {
        return codec;
      }

      @Override
      public CompressionCodec createCodec(CompressionUtil.CodecType type, int level) {
        return codec;
      }
    };
  }

  private static String gb(long bytes) {
    return String.format(Locale.ROOT, "%.1f GB", bytes / 1e9);
  }

  /** IPC bytes of one batch besides its buffers: message, padding of each buffer, footer entry. */
  private static final long BATCH_OVERHEAD = 4096;

  /** IPC bytes of a file besides its batches: magic, schema, footer. */
  private static final long FILE_OVERHEAD = 64 << 10;

  /**
   * About the size of an IPC file of {@code rows} rows of {@code schema} in {@code batches} record
   * batches, uncompressed: an upper bound for fixed-width columns (validity bits counted for
   * nullable ones), a lower bound where values have variable length (only their offsets count).
   */
  public static long sizeBound(Schema schema, long rows, long batches) {
    long bits = 0;
    for (Field f : schema.getFields()) {
      bits = saturatingAdd(bits, rowBits(f, true));
    }
    long body = saturatingMultiply(rows, bits) / 8 + (saturatingMultiply(rows, bits) % 8 + 7) / 8;
    return saturatingAdd(
        saturatingAdd(body, saturatingMultiply(Math.max(1, batches), BATCH_OVERHEAD)),
        FILE_OVERHEAD);
  }

  /**
   * Bits one row of {@code field} takes in IPC buffers: its values and offsets, children included
   * (variable-length data counts one byte a value), and a validity bit where the field is nullable
   * or a top-level column (a writer may send an all-ones buffer for a column without nulls).
   */
  private static long rowBits(Field field, boolean topLevel) {
    ArrowType type = field.getType();
    if (type instanceof ArrowType.ExtensionType ext) {
      type = ext.storageType();
    }
    long bits = 0;
    for (BufferLayout buffer : TypeLayout.getTypeLayout(type).getBufferLayouts()) {
      if (buffer.getType() != BufferLayout.BufferType.VALIDITY || field.isNullable() || topLevel) {
        bits += buffer.getTypeBitWidth();
      }
    }
    long children = 0;
    for (Field child : field.getChildren()) {
      children = saturatingAdd(children, rowBits(child, false));
    }
    return saturatingAdd(
        bits,
        type instanceof ArrowType.FixedSizeList list
            ? saturatingMultiply(list.getListSize(), children)
            : children);
  }

  private static long saturatingAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }

  private static long saturatingMultiply(long a, long b) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    return hi != 0 || lo < 0 ? Long.MAX_VALUE : lo;
  }
}
