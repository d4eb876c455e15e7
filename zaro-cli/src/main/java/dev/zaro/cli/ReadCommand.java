package dev.zaro.cli;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.vector.ArrowFiles;
import dev.zaro.arrow.vector.SlabVectors;
import dev.zaro.arrow.vector.TableReader;
import dev.zaro.arrow.vector.TensorReader;
import dev.zaro.flight.Sizes;
import dev.zaro.flight.WireCompression;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.Callable;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.compression.CompressionCodec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "read",
    mixinStandardHelpOptions = true,
    description = "Reads a selection of an array into an Arrow IPC file.")
final class ReadCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "STORE", description = Main.STORE_HELP)
  String store;

  @Parameters(
      index = "1",
      paramLabel = "PATH",
      description = "The array's path ('/' for a root array).")
  String path;

  @Option(
      names = "--slice",
      paramLabel = "S",
      defaultValue = "",
      description =
          "numpy-style selection per dimension: start:stop, :, start:stop:step or an index"
              + " (e.g. '0:24, 100:200, ::2'). Default: everything.")
  String slice;

  @Option(
      names = "--layout",
      paramLabel = "tensor|table",
      defaultValue = "tensor",
      description =
          "tensor (default): one row per index of the first dimension,"
              + " arrow.fixed_shape_tensor for 2+ dimensions. table: one row per element, a column per"
              + " dimension (coordinate values when the group has them) and the value column.")
  String layout;

  @Option(
      names = "--raw",
      description =
          "Table layout: stored values, without CF conventions"
              + " (scale_factor/add_offset, _FillValue/missing_value as nulls, CF times as timestamps).")
  boolean raw;

  @Option(
      names = "--batch-rows",
      paramLabel = "N",
      defaultValue = "1048576",
      description = "Table layout: rows per record batch (default: 1048576).")
  long batchRows;

  @Option(
      names = "--batch-bytes",
      paramLabel = "SIZE",
      defaultValue = "64m",
      description =
          "Tensor layout: upper bound of one record batch (k/m/g suffixes; default 64m). Each batch"
              + " holds whole rows of the first dimension, at least one.")
  String batchBytes;

  @Option(
      names = "--out",
      paramLabel = "FILE.arrow",
      required = true,
      description = "Arrow IPC file to write; written whole or not at all.")
  Path out;

  @Option(
      names = "--compression",
      paramLabel = "zstd|lz4",
      description =
          "Compress the file's buffers (Arrow IPC buffer compression: zstd, or lz4 frames), which"
              + " pyarrow, R's arrow and Arrow JS read without being told. Default: none.")
  String compression;

  @Mixin OpenOptions open = new OpenOptions();

  @Override
  public Integer call() throws Exception {
    if (!layout.equals("tensor") && !layout.equals("table")) {
      throw new ZaroException(
          ErrorKind.INVALID_ARGUMENT, "--layout " + layout + ": use tensor or table");
    }
    long batchSize;
    try {
      batchSize = Sizes.parse(batchBytes);
    } catch (IllegalArgumentException e) {
      throw new ZaroException(ErrorKind.INVALID_ARGUMENT, "--batch-bytes: " + e.getMessage());
    }
    if (batchSize < 1) {
      throw new ZaroException(ErrorKind.INVALID_ARGUMENT, "--batch-bytes must be positive");
    }
    Main.checkOut(out);
    CompressionCodec codec;
    try {
      codec = WireCompression.parse(compression).codec();
    } catch (FlightRuntimeException e) {
      throw new ZaroException(ErrorKind.INVALID_ARGUMENT, "--compression: " + e.getMessage());
    }
    ZaroOptions options = open.toOptions();
    long started = System.nanoTime();
    try (Zaro zaro = Zaro.open(store, options);
        BufferAllocator allocator = new RootAllocator()) {
      Progress progress = Progress.forTerminal("reading " + path);
      ArrayMetadata meta = zaro.meta(path);
      Selection selection = Selection.parse(slice, meta.shape());
      ReadOptions readOptions = new ReadOptions(progress);
      if (layout.equals("table")) {
        TableOptions table = TableOptions.DEFAULT.withCf(!raw).withBatchRows(batchRows);
        try (TableReader reader = zaro.readTable(path, selection, allocator, table, readOptions)) {
          long rows = selection.size();
          long expected =
              ArrowFiles.sizeBound(
                  reader.getVectorSchemaRoot().getSchema(), rows, 2 * (rows / batchRows + 1));
          rows = ArrowFiles.write(reader, out, expected, ArrowFiles.FreeSpace.FILE_STORE, codec);
          progress.finish();
          System.err.printf(
              "wrote %s: %s, %d rows in %.2f s%n",
              out,
              reader.getVectorSchemaRoot().getSchema().getFields().stream()
                  .map(f -> f.getName())
                  .toList(),
              rows,
              (System.nanoTime() - started) / 1e9);
        }
        return 0;
      }
      // the tensor layout, streamed: blocks of first-dimension rows read as they are written
      try (TensorReader reader =
          zaro.readTensor(path, selection, allocator, batchSize, readOptions)) {
        long rows = SlabVectors.rows(selection.resultShape());
        long expected =
            ArrowFiles.sizeBound(
                reader.getVectorSchemaRoot().getSchema(),
                rows,
                2 * (rows / reader.rowsPerBatch() + 1));
        ArrowFiles.write(reader, out, expected, ArrowFiles.FreeSpace.FILE_STORE, codec);
        progress.finish();
        System.err.printf(
            "wrote %s: %s %s %s, %d rows, %.1f MB in %.2f s%n",
            out,
            zaro.array(path).name(),
            meta.dataType(),
            Arrays.toString(selection.resultShape()),
            rows,
            selection.size() * (double) meta.dataType().byteSize() / 1e6,
            (System.nanoTime() - started) / 1e9);
      }
    }
    return 0;
  }
}
