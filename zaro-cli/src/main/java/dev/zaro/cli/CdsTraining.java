package dev.zaro.cli;

import dev.zaro.flight.ZaroFlightServer;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import picocli.CommandLine;

/**
 * The training runs behind the {@code ./zaro} launcher's class-data-sharing archives: runs {@code
 * ls}, {@code info}, {@code read} (both layouts), {@code sql} and {@code bench}, or {@code serve},
 * on the bundled sample in one JVM, output discarded, so that the JVM started with {@code
 * -XX:DumpLoadedClassList} lists the classes these commands load, which {@code -Xshare:dump} then
 * archives. Not a user command.
 */
final class CdsTraining {
  private CdsTraining() {}

  /**
   * Runs the commands; {@code args[0]} is the sample store, {@code args[1]} {@code serve} for the
   * archive of {@code serve} alone (its own: serving loads about 1,100 classes no other command
   * needs), anything else or nothing for the other commands.
   *
   * @param args the sample store's path, and the mode
   * @throws Exception when the temporary directory cannot be made
   */
  public static void main(String[] args) throws Exception {
    String store = args[0];
    boolean serving = args.length > 1 && args[1].equals("serve");
    Path dir = Files.createTempDirectory("zaro-cds");
    PrintStream out = System.out;
    PrintStream err = System.err;
    int failed = 0;
    try (PrintStream discard = new PrintStream(OutputStream.nullOutputStream())) {
      System.setOut(discard);
      System.setErr(discard);
      String[][] runs = {
        {"--version"},
        {"ls", store},
        {"info", store, "t2m"},
        {"read", store, "t2m", "--slice", "0:2", "--out", dir.resolve("a.arrow").toString()},
        {
          "read",
          store,
          "t2m",
          "--slice",
          "0:1",
          "--layout",
          "table",
          "--out",
          dir.resolve("b.arrow").toString()
        },
        {"sql", store, "select 1"},
        {"sql", store, "select avg(t2m), count(*) from t2m where lat between 30 and 60", "--stats"},
        {"sql", "--help"},
        // bench's process CPU counters (java.lang.management, about 60 classes) for a cold bench
        {"bench", store, "t2m", "--slice", "0:1", "--warmup", "0", "--repeat", "1"}
      };
      if (serving) {
        failed += Main.run("--version") == 0 ? 0 : 1;
        failed += serve(store) ? 0 : 1;
      } else {
        for (String[] run : runs) {
          failed += Main.run(run) == 0 ? 0 : 1;
        }
      }
    } finally {
      System.setOut(out);
      System.setErr(err);
      try (var files = Files.list(dir)) {
        for (Path p : (Iterable<Path>) files::iterator) {
          Files.deleteIfExists(p);
        }
      }
      Files.deleteIfExists(dir);
    }
    if (failed > 0) {
      System.err.println("zaro: class-data-sharing training: " + failed + " command(s) failed");
    }
  }

  /**
   * {@code serve --sql --http-port 0} on a free loopback port up to its banner, then one listing
   * and one read through a Flight client, then stops: the classes the server loads before its
   * banner (gRPC, Netty, protobuf, DuckDB) and those of a first request.
   */
  private static boolean serve(String store) {
    CommandLine cli = new CommandLine(new ServeCommand());
    cli.parseArgs(store, "--port", "0", "--sql", "--http-port", "0");
    ServeCommand serve = cli.getCommand();
    try (BufferAllocator allocator = new RootAllocator()) {
      ZaroFlightServer server = serve.start();
      // closed by hand: their close() may throw InterruptedException, which try-with-resources
      // should not hide (javac's lint)
      FlightClient client =
          FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port()))
              .build();
      try {
        serve.printBanner(server);
        client.listFlights(Criteria.ALL).forEach(info -> {});
        FlightInfo info =
            client.getInfo(
                FlightDescriptor.command(
                    "{\"array\": \"t2m\", \"slice\": \"0:1\"}".getBytes(StandardCharsets.UTF_8)));
        for (FlightEndpoint endpoint : info.getEndpoints()) {
          FlightStream stream = client.getStream(endpoint.getTicket());
          try {
            while (stream.next()) {
              stream.getRoot().getRowCount();
            }
          } finally {
            stream.close();
          }
        }
      } finally {
        client.close();
        server.close();
        serve.zaro().close();
      }
      return true;
    } catch (Exception e) {
      return false;
    }
  }
}
