package dev.zaro.trino.server;

import io.trino.testing.DistributedQueryRunner;
import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code ./zaro trino STORE [--port P] [--workers N]}: a local Trino (coordinator + N workers,
 * default 2) with catalog {@code zarr} over STORE. Prints {@code jdbc:trino://127.0.0.1:P}, then
 * {@code ready} once the cluster accepts queries, and serves until SIGINT or SIGTERM, which stop
 * every node. Trino's own log goes to standard error.
 */
public final class ZaroTrino {
  private ZaroTrino() {}

  static final String USAGE = "usage: zaro trino STORE [--port P] [--workers N]";

  public static void main(String[] args) throws Exception {
    PrintStream out = System.out;
    // Trino's logging writes to the process's standard streams: keep standard output for the
    // two lines the contract promises
    System.setOut(System.err);
    String store = null;
    int port = 8080;
    int workers = 2;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--port" -> port = number(args, ++i, "--port");
        case "--workers" -> workers = number(args, ++i, "--workers");
        case "-h", "--help" -> {
          out.println(USAGE);
          return;
        }
        default -> {
          if (args[i].startsWith("--") || store != null) {
            fail("unexpected argument '" + args[i] + "'");
          }
          store = args[i];
        }
      }
    }
    if (store == null) {
      fail("no STORE given");
    }
    if (workers < 1) {
      fail("--workers must be 1 or more, not " + workers);
    }
    DistributedQueryRunner runner;
    try {
      runner = LocalCluster.start(Map.of("zarr.store", store), workers, port);
    } catch (Exception e) {
      System.err.println("zaro trino: cannot start the cluster: " + e.getMessage());
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  runner.close();
                  stopped.countDown();
                },
                "zaro-trino-stop"));
    int actual = runner.getCoordinator().getBaseUrl().getPort();
    // a query through the coordinator: the catalog answers on the workers before 'ready'
    runner.execute("SELECT count(*) FROM system.runtime.nodes");
    out.println("jdbc:trino://127.0.0.1:" + actual);
    out.println("ready");
    out.flush();
    stopped.await();
  }

  private static int number(String[] args, int i, String option) {
    if (i >= args.length) {
      fail(option + " needs a value");
    }
    try {
      return Integer.parseInt(args[i]);
    } catch (NumberFormatException e) {
      fail(option + " is '" + args[i] + "'; expected a whole number");
      return 0;
    }
  }

  private static void fail(String message) {
    System.err.println("zaro trino: " + message);
    System.err.println(USAGE);
    System.exit(2);
  }
}
