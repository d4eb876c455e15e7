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
