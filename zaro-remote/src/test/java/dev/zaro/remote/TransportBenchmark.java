package dev.zaro.remote;

import dev.zaro.arrow.store.ByteRange;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Not a test: the HTTP transports side by side on the fetch alone (no decoding). Fetches every
 * object of a dataset directory whole, N requests in flight, each body into an ArrowBuf that is
 * then freed, and prints per transport the median wall seconds and process CPU seconds per pass.
 * The server is benchmarks/latency_server.py serving the directory's parent.
 *
 * <pre>
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -cp ... dev.zaro.remote.TransportBenchmark \
 *   http://127.0.0.1:PORT/zstd_64_512.zarr benchmarks/data/zstd_64_512.zarr [inFlight=256] [passes=20] \
 *   [transports=jdk,http1,netty]
 * </pre>
 *
 * Transports: {@code jdk} = {@link HttpStore#getAsync} on java.net.http (ArrowBody), {@code http1}
 * = {@link Http1Client}, {@code netty} = {@link NettyFetch} (Netty's HTTP codec, issue 46's
 * candidate to replace zaro's client). Passes alternate between them so load changes hit all. An
 * https URL goes over TLS (trusting what the JVM trusts: {@code -Djavax.net.ssl.trustStore}).
 */
public final class TransportBenchmark {
  private TransportBenchmark() {}

  @SuppressWarnings("FutureReturnValueIgnored") // the callback only releases the window
  public static void main(String[] args) throws Exception {
    // as the CLI sets them (Main): the JDK client's buffers, the common pool on small machines
    System.setProperty("jdk.httpclient.bufsize", "65536");
    System.setProperty("zaro.http.client", "jdk"); // the HttpStore side stays on java.net.http
    URI base = URI.create(args[0].endsWith("/") ? args[0] : args[0] + "/");
    Path dir = Path.of(args[1]);
    int inFlight = args.length > 2 ? Integer.parseInt(args[2]) : 256;
    int passes = args.length > 3 ? Integer.parseInt(args[3]) : 20;
    List<String> keys = new ArrayList<>();
    try (Stream<Path> files = Files.walk(dir)) {
      files
          .filter(Files::isRegularFile)
          .filter(p -> !p.getFileName().toString().equals("zarr.json"))
          .sorted()
          .forEach(p -> keys.add(dir.relativize(p).toString().replace('\\', '/')));
    }
    String[] names = (args.length > 4 ? args[4] : "jdk,http1,netty").split(",", -1);
    HttpStore jdk = new HttpStore(base, HttpOptions.DEFAULT.withHedging(false));
    Http1Client http1 = Http1Client.shared();
    double[][] wall = new double[names.length][passes];
    double[][] cpu = new double[names.length][passes];
    try (BufferAllocator allocator = new RootAllocator();
        NettyFetch netty = new NettyFetch(base)) {
      for (int pass = -3; pass < passes; pass++) {
        for (int t = 0; t < names.length; t++) {
          long t0 = System.nanoTime();
          long c0 = processCpuNanos();
          Semaphore window = new Semaphore(inFlight);
          List<CompletableFuture<Long>> all = new ArrayList<>(keys.size());
          for (String key : keys) {
            window.acquire();
            CompletableFuture<Long> f;
            if (names[t].equals("netty")) {
              f =
                  netty
                      .get(base.resolve(key), allocator)
                      .thenApply(
                          b -> {
                            try (ArrowBuf buf = b) {
                              return buf.writerIndex();
                            }
                          });
            } else if (names[t].equals("jdk")) {
              f =
                  jdk.getAsync(key, ByteRange.ALL, allocator, Runnable::run)
                      .thenApply(
                          b -> {
                            try (ArrowBuf buf = b.orElseThrow()) {
                              return buf.writerIndex();
                            }
                          });
            } else {
              f =
                  http1
                      .send("GET", base.resolve(key), Map.of(), allocator, key)
                      .thenApply(
                          r -> {
                            try (ArrowBuf buf = r.body()) {
                              return buf.writerIndex();
                            }
                          });
            }
            f.whenComplete((n, e) -> window.release());
            all.add(f);
          }
          long bytes = 0;
          for (CompletableFuture<Long> f : all) {
            bytes += f.join();
          }
          if (pass >= 0) {
            wall[t][pass] = (System.nanoTime() - t0) / 1e9;
            cpu[t][pass] = (processCpuNanos() - c0) / 1e9;
          }
          if (pass == 0 && t == 0) {
            System.out.println(keys.size() + " objects, " + bytes + " bytes per pass");
          }
        }
      }
    }
    for (int t = 0; t < names.length; t++) {
      System.out.printf(
          "%-6s wall median %.3f s, CPU median %.3f s per pass (%d passes, %d in flight)%n",
          names[t], median(wall[t]), median(cpu[t]), passes, inFlight);
    }
  }

  /** user + system CPU of this process from /proc/self/stat (Linux; clock ticks of 10 ms). */
  private static long processCpuNanos() throws IOException {
    String stat = Files.readString(Path.of("/proc/self/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ", -1);
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
  }

  private static double median(double[] xs) {
    double[] s = xs.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }
}
