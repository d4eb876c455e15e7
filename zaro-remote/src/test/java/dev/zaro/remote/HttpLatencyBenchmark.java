package dev.zaro.remote;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.TestHttpServer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Not a test: reads 100 chunks through a loopback HTTP server that adds a fixed latency to every
 * request, with 1 to 32 chunks in flight, and prints the times. With N in flight it should take
 * about 100/N x latency, not 100 x latency.
 *
 * <pre>
 * mvn -q test-compile -pl zaro-arrow
 * mvn -q dependency:build-classpath -pl zaro-arrow -Dmdep.outputFile=/tmp/cp.txt
 * java --add-opens=java.base/java.nio=ALL-UNNAMED \
 *   -cp zaro-arrow/target/test-classes:zaro-arrow/target/classes:$(cat /tmp/cp.txt) \
 *   dev.zaro.arrow.store.HttpLatencyBenchmark [latency_ms=20] [chunks=100] [repeat=5]
 * </pre>
 */
public final class HttpLatencyBenchmark {
  private HttpLatencyBenchmark() {}

  public static void main(String[] args) throws Exception {
    int latency = args.length > 0 ? Integer.parseInt(args[0]) : 20;
    int chunks = args.length > 1 ? Integer.parseInt(args[1]) : 100;
    int repeat = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    int chunkElements = 16 * 1024; // 64 KiB of float32 per chunk
    Path dir = Files.createTempDirectory("zaro-http-bench");
    Path array = dir.resolve("a");
    Files.createDirectories(array.resolve("c"));
    Files.writeString(
        array.resolve("zarr.json"),
        "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":["
            + chunks
            + ","
            + chunkElements
            + "],\"data_type\":\"float32\",\"chunk_grid\":{\"name\":\"regular\",\"configuration\":"
            + "{\"chunk_shape\":[1,"
            + chunkElements
            + "]}},\"chunk_key_encoding\":{\"name\":\"default\"},"
            + "\"fill_value\":0,\"codecs\":[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}]}");
    for (int i = 0; i < chunks; i++) {
      ByteBuffer b = ByteBuffer.allocate(chunkElements * 4).order(ByteOrder.LITTLE_ENDIAN);
      for (int j = 0; j < chunkElements; j++) {
        b.putFloat(i + j * 1e-6f);
      }
      Files.createDirectories(array.resolve("c").resolve(Integer.toString(i)));
      Files.write(array.resolve("c").resolve(Integer.toString(i)).resolve("0"), b.array());
    }
    System.out.printf(
        "%d chunks of %d KiB, %d ms added latency per request, median of %d%n",
        chunks, chunkElements * 4 / 1024, latency, repeat);
    System.out.printf(
        "%-28s %8s %10s %12s %10s%n", "path", "inflight", "median_ms", "ideal_ms", "serial_ms");
    try (TestHttpServer server = new TestHttpServer(dir);
        BufferAllocator allocator = new RootAllocator()) {
      server.latencyMillis = latency;
      for (int inflight : new int[] {1, 4, 16, 32}) {
        double[] times = new double[repeat];
        try (Zaro zaro =
            Zaro.open(
                server.url("a").toString(),
                ZaroOptions.defaults().withThreads(2).withIoConcurrency(inflight))) {
          zaro.meta(""); // metadata fetched once, outside the timing
          for (int r = 0; r < repeat; r++) {
            long t0 = System.nanoTime();
            try (Slab slab = zaro.read("", ":, :", allocator)) {
              if (slab.data().getFloat(4L * chunkElements * (chunks - 1)) != chunks - 1) {
                throw new IllegalStateException("wrong value");
              }
            }
            times[r] = (System.nanoTime() - t0) / 1e6;
          }
        }
        report("Zaro.read (ioConcurrency)", inflight, times, chunks, latency);
      }
      try (HttpStore store = new HttpStore(server.url(""))) {
        for (int inflight : new int[] {1, 4, 16, 32, 100}) {
          double[] times = new double[repeat];
          for (int r = 0; r < repeat; r++) {
            long t0 = System.nanoTime();
            List<CompletableFuture<Optional<ArrowBuf>>> window = new ArrayList<>();
            for (int i = 0; i < chunks; i++) {
              window.add(
                  store.getAsync("a/c/" + i + "/0", ByteRange.ALL, allocator, Runnable::run));
              if (window.size() == inflight) {
                drain(window);
              }
            }
            drain(window);
            times[r] = (System.nanoTime() - t0) / 1e6;
          }
          report("HttpStore.getAsync (window)", inflight, times, chunks, latency);
        }
      }
    } finally {
      try (var walk = Files.walk(dir)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static void drain(List<CompletableFuture<Optional<ArrowBuf>>> window) {
    for (var f : window) {
      f.join().orElseThrow().close();
    }
    window.clear();
  }

  private static void report(String what, int inflight, double[] times, int chunks, int latency) {
    double[] sorted = times.clone();
    Arrays.sort(sorted);
    double median = sorted[sorted.length / 2];
    System.out.printf(
        "%-28s %8d %10.1f %12.1f %10d%n",
        what,
        inflight,
        median,
        Math.ceil((double) chunks / inflight) * latency,
        (long) chunks * latency);
  }
}
