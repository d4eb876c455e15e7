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
