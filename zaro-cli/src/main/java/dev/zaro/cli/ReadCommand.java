package dev.zaro.cli;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.arrow.ArrowFiles;
import dev.zaro.arrow.arrow.SlabVectors;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.Slab;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "read", mixinStandardHelpOptions = true,
    description = "Reads a selection of an array into an Arrow IPC file.")
final class ReadCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "STORE", description = "A local path or file:// URL.")
  String store;

  @Parameters(index = "1", paramLabel = "PATH", description = "The array's path ('/' for a root array).")
  String path;

  @Option(names = "--slice", paramLabel = "S", defaultValue = "",
      description = "numpy-style selection per dimension: start:stop, :, start:stop:step or an index"
          + " (e.g. '0:24, 100:200, ::2'). Default: everything.")
  String slice;

  @Option(names = "--layout", paramLabel = "tensor|table", defaultValue = "tensor",
      description = "tensor (default): one row per index of the first dimension,"
          + " arrow.fixed_shape_tensor for 2+ dimensions.")
  String layout;

  @Option(names = "--out", paramLabel = "FILE.arrow", required = true,
      description = "Arrow IPC file to write; written whole or not at all.")
  Path out;

  @Option(names = "--threads", paramLabel = "T", description = "Chunks decoded in parallel (default: cores).")
  Integer threads;

  @Override
  public Integer call() throws Exception {
    if (!layout.equals("tensor")) {
      throw new ZaroException("--layout " + layout + ": only the tensor layout is available in this build"
          + (layout.equals("table") ? " (the table layout is not built yet)" : ""));
    }
    ZaroOptions options = ZaroOptions.defaults();
    if (threads != null) {
      options = options.withThreads(threads);
    }
    long started = System.nanoTime();
    try (Zaro zaro = Zaro.open(store, options);
         BufferAllocator allocator = new RootAllocator()) {
      Progress progress = Progress.forTerminal("reading " + path);
      try (Slab slab = zaro.read(path, slice, allocator, new ReadOptions(progress))) {
        progress.finish();
        try (VectorSchemaRoot root = SlabVectors.tensorRoot(slab)) {
          long rows = SlabVectors.rows(slab);
          long rowBytes = rows == 0 ? 1 : Math.max(1, slab.byteSize() / rows);
          ArrowFiles.write(root, rowBytes, out, ArrowFiles.DEFAULT_BATCH_BYTES);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        System.err.printf("wrote %s: %s %s %s, %d rows, %.1f MB in %.2f s%n", out, slab.name(),
            slab.dataType(), Arrays.toString(slab.shape()), SlabVectors.rows(slab), slab.byteSize() / 1e6, seconds);
      }
    }
    return 0;
  }
}
