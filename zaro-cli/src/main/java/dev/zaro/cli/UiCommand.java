package dev.zaro.cli;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code zaro ui STORE}: {@code zaro serve STORE --sql --http-port P} on loopback, then the
 * explorer page's URL on stdout, and a browser opened on it where the machine has one
 * (docs/explorer.md).
 */
@Command(
    name = "ui",
    mixinStandardHelpOptions = true,
    description = {
      "Serves a store on loopback and prints the URL of its explorer page: the hierarchy, pictures"
          + " of slices, a SQL console (zaro serve --sql --http-port on 127.0.0.1).",
      "Opens a browser on the page where one exists (not with --no-browser). Ctrl-C stops."
    })
final class UiCommand implements Callable<Integer> {
  @Parameters(index = "0", arity = "0..1", paramLabel = "STORE", description = Main.STORE_HELP)
  String store;

  @Option(
      names = "--http-port",
      paramLabel = "P",
      defaultValue = "0",
      description = "The page's port on 127.0.0.1 (default: 0, a free one).")
  int httpPort;

  @Option(names = "--no-browser", description = "Print the URL only; open no browser.")
  boolean noBrowser;

  @Option(
      names = "--max-memory",
      paramLabel = "SIZE",
      defaultValue = "2g",
      description = "The server's memory budget for all requests (default: 2g).")
  String maxMemory;

  @Override
  public Integer call() throws Exception {
    List<String> args = new ArrayList<>();
    if (store != null) {
      args.add(store);
    }
    args.addAll(
        List.of(
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--sql",
            "--http-port",
            String.valueOf(httpPort),
            "--max-memory",
            maxMemory));
    ServeCommand serve = new ServeCommand();
    new CommandLine(serve).parseArgs(args.toArray(new String[0]));
    serve.onReady =
        port -> {
          String url = "http://127.0.0.1:" + port + "/";
          System.out.println("zaro explorer: " + url);
          System.out.flush();
          if (!noBrowser) {
            open(url);
          }
        };
    return serve.call();
  }

  /** Opens {@code url} in the desktop's browser, if there is a desktop; says so otherwise. */
  private static void open(String url) {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    List<String> command;
    if (os.contains("mac")) {
      command = List.of("open", url);
    } else if (os.contains("win")) {
      command = List.of("rundll32", "url.dll,FileProtocolHandler", url);
    } else if (System.getenv("DISPLAY") != null || System.getenv("WAYLAND_DISPLAY") != null) {
      command = List.of("xdg-open", url);
    } else {
      System.out.println("(no desktop here: open the URL in a browser)");
      return;
    }
    try {
      new ProcessBuilder(command)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .redirectError(ProcessBuilder.Redirect.DISCARD)
          .start();
    } catch (IOException e) {
      System.out.println("(could not start a browser: " + e.getMessage() + "; open the URL)");
    }
  }
}
