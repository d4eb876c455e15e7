package dev.zaro.cli;

import dev.zaro.arrow.error.ZaroException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.UnmatchedArgumentException;

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
  /** What every command's STORE may be (README, "Commands"). */
  static final String STORE_HELP =
      "Where the hierarchy is: a local path or file:// URL, http(s)://host/path, s3://bucket/prefix"
          + " (?endpoint=http://host:port&path_style=true&region=R for S3-compatible servers),"
          + " gs://bucket/prefix, kerchunk references reference+json://PATH-or-URL or"
          + " reference+parquet://PATH-or-URL, or an Icechunk repository icechunk://PATH,"
          + " icechunk+s3://..., icechunk+gs://..., icechunk+https://... (?branch=, ?tag=,"
          + " ?snapshot=).";

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
            err.println("zaro: error: " + withCauses(e));
          } else if (e instanceof IOException) {
            err.println("zaro: error: " + withCauses(e));
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
    cli.setParameterExceptionHandler(
        (e, arguments) -> {
          CommandLine command = e.getCommandLine();
          PrintWriter err = command.getErr();
          String name = command.getCommandSpec().qualifiedName();
          err.println("zaro: error: " + e.getMessage());
          if (e instanceof UnmatchedArgumentException u && !u.getSuggestions().isEmpty()) {
            err.println("  did you mean: " + String.join(", ", u.getSuggestions()) + "?");
          }
          err.println(
              "  usage: "
                  + command.getHelp().synopsis(0).strip().replaceAll("\\s+", " ")
                  + "  ('"
                  + name
                  + " --help' explains each option)");
          err.flush();
          return command.getCommandSpec().exitCodeOnInvalidInput();
        });
    return cli.execute(args);
  }

  /**
   * The message of {@code e} followed by each cause's that it does not already contain (an
   * unreachable endpoint's "connection refused", say), so no debug flag is needed to see why.
   */
  static String withCauses(Throwable e) {
    StringBuilder out =
        new StringBuilder(e instanceof ZaroException ? e.getMessage() : e.toString());
    Throwable cause = e.getCause();
    for (int depth = 0; cause != null && cause != e && depth < 5; depth++) {
      String m = cause.getMessage();
      String text = m == null || m.isBlank() ? cause.getClass().getSimpleName() : m;
      if (!out.toString().contains(text)) {
        out.append(": ").append(text);
      }
      e = cause;
      cause = cause.getCause();
    }
    return out.toString();
  }

  /**
   * Fails before any reading when {@code --out}'s directory does not exist (instead of an I/O error
   * naming the temporary file the result is first written to).
   */
  static void checkOut(Path out) {
    if (out == null) {
      return;
    }
    Path parent = out.toAbsolutePath().getParent();
    if (parent != null && !Files.isDirectory(parent)) {
      throw new ZaroException(
          "--out "
              + out
              + ": the directory "
              + parent
              + " does not exist (create it first, or choose another)");
    }
  }

  @Override
  public void run() {
    CommandLine.usage(this, System.out);
  }
}
