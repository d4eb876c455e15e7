package dev.zaro.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.management.OperatingSystemMXBean;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.ReadStats;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.vector.TableReader;
import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description =
        "Reads a selection repeatedly in-process and prints one JSON object: per-read seconds,"
            + " median, decoded bytes per read, gigabytes per second at the median (gbytes_per_s; gbps is the"
            + " same number under its older name), peak allocator bytes. With several"
            + " selections, each repetition reads them all and p50/p99 per-read latencies are added."
            + " Process CPU seconds of each timed read (cpu_seconds) and the seconds of each untimed"
            + " one (warmup_seconds; the first is the process's cold read), and the JIT's compile"
            + " seconds during each (jit_seconds, warmup_jit_seconds)."
            + " Also chunks decoded and bytes fetched by one more, untimed pass after the timed ones"
            + " (--layout table: chunks decoded twice, against a tensor read of the same"
            + " selection).")
final class BenchCommand implements Callable<Integer> {
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
      description =
          "Selection (default: everything); repeat to time a sequence of reads per repetition.")
  List<String> slices;

  @Option(
      names = "--slices-file",
      paramLabel = "FILE",
      description =
          "Selections, one per line, read in order on every repetition (e.g. chunk by chunk).")
  Path slicesFile;

  @Option(
      names = "--repeat",
      paramLabel = "N",
      defaultValue = "5",
      description = "Timed reads (default: 5).")
  int repeat;

  @Option(
      names = "--warmup",
      paramLabel = "N",
      defaultValue = "1",
      description = "Untimed reads first (default: 1).")
  int warmup;

  @Option(
      names = "--layout",
      paramLabel = "tensor|table",
      defaultValue = "tensor",
      description = "Time the tensor layout (default) or the table layout's record batches.")
  String layout;

  @Option(names = "--raw", description = "Table layout: stored values, no CF decoding.")
  boolean raw;

  @Mixin OpenOptions open = new OpenOptions();

  @Override
  public Integer call() {
    ZaroOptions options = open.toOptions();
    List<String> reads = new ArrayList<>();
    if (slices != null) {
      reads.addAll(slices);
    }
    if (slicesFile != null) {
      try {
        Files.readAllLines(slicesFile).stream().filter(l -> !l.isBlank()).forEach(reads::add);
      } catch (IOException e) {
        throw new ZaroException("cannot read --slices-file " + slicesFile + ": " + e);
      }
    }
    if (reads.isEmpty()) {
      reads.add("");
    }
    if (!layout.equals("tensor") && !layout.equals("table")) {
      throw new ParameterException(
          new CommandLine(this), "--layout: expected tensor or table, not '" + layout + "'");
    }
    boolean table = layout.equals("table");
    double[] seconds = new double[Math.max(1, repeat)];
    double[] cpuSeconds = new double[seconds.length];
    double[] warmupSeconds = new double[Math.max(0, warmup)];
    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
    boolean jit = compiler != null && compiler.isCompilationTimeMonitoringSupported();
    double[] jitSeconds = new double[seconds.length];
    double[] warmupJit = new double[warmupSeconds.length];
    ReadStats stats = new ReadStats();
    double[] each = new double[reads.size() * seconds.length];
    long bytes = 0;
    try (Zaro zaro = Zaro.open(store, options);
        BufferAllocator allocator = new RootAllocator()) {
      for (int i = 0; i < warmup + seconds.length; i++) {
        long t0 = System.nanoTime();
        long cpu0 = os.getProcessCpuTime();
        long jit0 = jit ? compiler.getTotalCompilationTime() : 0;
        bytes = 0;
        for (int r = 0; r < reads.size(); r++) {
          long r0 = System.nanoTime();
          bytes += read(zaro, reads.get(r), table, allocator, ReadOptions.DEFAULT);
          if (i >= warmup) {
            each[(i - warmup) * reads.size() + r] = (System.nanoTime() - r0) / 1e9;
          }
        }
        if (i >= warmup) {
          seconds[i - warmup] = (System.nanoTime() - t0) / 1e9;
          cpuSeconds[i - warmup] = (os.getProcessCpuTime() - cpu0) / 1e9;
          jitSeconds[i - warmup] = (jit ? compiler.getTotalCompilationTime() - jit0 : 0) / 1e3;
        } else {
          warmupSeconds[i] = (System.nanoTime() - t0) / 1e9;
          warmupJit[i] = (jit ? compiler.getTotalCompilationTime() - jit0 : 0) / 1e3;
        }
      }
      // counted in a pass of its own: a timed pass that counted would run other code than the
      // warm-ups did (the statistics' branches), and the JIT would recompile the read path
      // inside it (benchmarks/README, "Random boxes over 32^3 inner chunks")
      for (String read : reads) {
        read(zaro, read, table, allocator, ReadOptions.DEFAULT.withStats(stats));
      }
      double[] sorted = seconds.clone();
      Arrays.sort(sorted);
      double median =
          sorted.length % 2 == 1
              ? sorted[sorted.length / 2]
              : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
      ObjectNode json = Json.createObjectNode();
      putArray(json, "seconds", seconds);
      json.put("median_seconds", median);
      // the whole process's CPU (every thread: decoding, I/O, the JIT, GC) over each timed pass
      putArray(json, "cpu_seconds", cpuSeconds);
      if (jit) {
        // the JIT's compile seconds during each pass (all compiler threads, as the JVM counts
        // them): a timed pass beside C2 compiles is not yet steady state (benchmarks/README,
        // "Steady state")
        putArray(json, "jit_seconds", jitSeconds);
        putArray(json, "warmup_jit_seconds", warmupJit);
      }
      putArray(json, "warmup_seconds", warmupSeconds);
      json.put("bytes", bytes);
      double gbytesPerSecond = median > 0 ? bytes / median / 1e9 : 0;
      json.put("gbytes_per_s", gbytesPerSecond);
      // the older name, kept for scripts that read it: also gigabytes (not gigabits) per second
      json.put("gbps", gbytesPerSecond);
      // decode scratch comes from children of this allocator: its peak covers everything
      json.put("peak_allocator_bytes", allocator.getPeakMemoryAllocation());
      json.put("threads", options.threads());
      json.put("layout", layout);
      json.put("chunks_decoded", stats.chunksDecoded());
      json.put("bytes_fetched", stats.bytesFetched());
      if (table) {
        // the tensor layout decodes every chunk a selection needs exactly once: the baseline
        ReadStats once = new ReadStats();
        for (String read : reads) {
          read(zaro, read, false, allocator, ReadOptions.DEFAULT.withStats(once));
        }
        json.put("chunks_decoded_twice", stats.chunksDecoded() - once.chunksDecoded());
      }
      if (reads.size() > 1) {
        double[] sortedEach = each.clone();
        Arrays.sort(sortedEach);
        json.put("reads_per_repeat", reads.size());
        json.put("read_p50_seconds", sortedEach[(int) Math.floor(0.5 * (sortedEach.length - 1))]);
        json.put("read_p99_seconds", sortedEach[(int) Math.floor(0.99 * (sortedEach.length - 1))]);
      }
      System.out.println(json);
    }
    return 0;
  }

  /** Reads one selection in the tensor or the table layout; returns the bytes read. */
  private long read(
      Zaro zaro, String slice, boolean table, BufferAllocator allocator, ReadOptions readOptions) {
    if (table) {
      return readTable(zaro, slice, allocator, readOptions);
    }
    try (Slab slab = zaro.read(path, slice, allocator, readOptions)) {
      return slab.byteSize();
    }
  }

  /** Streams one selection in the table layout; returns the bytes of its record batches. */
  private long readTable(
      Zaro zaro, String slice, BufferAllocator allocator, ReadOptions readOptions) {
    long bytes = 0;
    try (TableReader reader =
        zaro.readTable(path, slice, allocator, TableOptions.DEFAULT.withCf(!raw), readOptions)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      while (reader.loadNextBatch()) {
        for (FieldVector v : root.getFieldVectors()) {
          bytes += v.getBufferSize();
        }
      }
    } catch (IOException e) {
      throw new ZaroException("reading the table layout failed: " + e, e);
    }
    return bytes;
  }

  private static void putArray(ObjectNode json, String name, double[] values) {
    ArrayNode a = json.putArray(name);
    for (double x : values) {
      a.add(x);
    }
  }
}
