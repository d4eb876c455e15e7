package dev.zaro.cli;

import dev.zaro.arrow.error.ZaroException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code zaro} command line. */
@Command(
    name = "zaro",
    mixinStandardHelpOptions = true,
    version = "zaro 0.1.0",
    description = "Reads Zarr arrays into Apache Arrow.",
    subcommands = {
      LsCommand.class,
      InfoCommand.class,
      ReadCommand.class,
      ServeCommand.class,
      SqlCommand.class,
      BenchCommand.class,
      CommandLine.HelpCommand.class
    })
public final class Main implements Runnable {
  static {
    // On 1-2 cores the common pool has parallelism 1, and CompletableFuture's default executor is
    // then a new thread per task; the JDK HttpClient hands every sendAsync reply to that executor,
    // so a remote read started (and tore down) one thread per request. Set before anything loads
    // ForkJoinPool; an explicit -D setting wins.
    String parallelism = "java.util.concurrent.ForkJoinPool.common.parallelism";
    if (System.getProperty(parallelism) == null
        && Runtime.getRuntime().availableProcessors() <= 2) {
      System.setProperty(parallelism, "2");
    }
    // The JDK HttpClient reads replies in 16 KiB buffers, each passed through its flow machinery:
    // 64 KiB took a shard-sized (5.6 MiB) read-all over loopback HTTP from 0.22 to 0.18 s and left
    // one of many 90 KiB chunks unchanged (benchmarks/README.md, object-store latency). Larger
    // buffers cost more for small replies (each read allocates one). An explicit -D setting wins.
    if (System.getProperty("jdk.httpclient.bufsize") == null) {
      System.setProperty("jdk.httpclient.bufsize", "65536");
    }
  }

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the CLI and returns the exit code (for tests). */
  public static int run(String... args) {
    CommandLine cli = new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true);
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          PrintWriter err = commandLine.getErr();
          if (e instanceof ZaroException) {
            err.println("zaro: error: " + e.getMessage());
          } else if (e instanceof java.io.IOException) {
            err.println("zaro: error: " + e);
          } else {
            err.println("zaro: internal error: " + e);
            e.printStackTrace(err);
          }
          if (System.getenv("ZARO_DEBUG") != null) {
            e.printStackTrace(err);
          }
          err.flush();
          return 1;
        });
    return cli.execute(args);
  }

  @Override
  public void run() {
    CommandLine.usage(this, System.out);
  }
}
