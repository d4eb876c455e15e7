package dev.zaro.cli;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.flight.ZaroFlightProducer;
import dev.zaro.flight.ZaroFlightServer;
import dev.zaro.sql.FlightSqlRouter;
import dev.zaro.sql.SqlEngine;
import dev.zaro.sql.ZaroFlightSqlProducer;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "serve", mixinStandardHelpOptions = true,
    description = "Serves every array of a hierarchy over Arrow Flight (the bundled sample when STORE is omitted).")
final class ServeCommand implements Callable<Integer> {
  @Parameters(index = "0", arity = "0..1", paramLabel = "STORE", description = "A local path or file:// URL.")
  String store;

  @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to bind (default: 127.0.0.1).")
  String host;

  @Option(names = "--port", defaultValue = "8815", description = "Port (default: 8815; 0 picks a free one).")
  int port;

  @Mixin
  OpenOptions open = new OpenOptions();

  @Option(names = "--max-request-bytes", paramLabel = "N", defaultValue = "1073741824",
      description = "Memory one request may hold at once (default: 1 GiB).")
  long maxRequestBytes;

  @Option(names = "--sql", description = "Also serve Flight SQL (DuckDB over the same arrays, read-only), e.g. for the"
      + " Arrow Flight SQL JDBC driver: jdbc:arrow-flight-sql://HOST:PORT/?useEncryption=false")
  boolean sql;

  static Path sample() {
    String home = System.getProperty("zaro.home", ".");
    return Path.of(home, "testdata", "sample", "climate.zarr");
  }

  @Override
  public Integer call() throws Exception {
    String location = store != null ? store : sample().toString();
    ZaroOptions options = open.toOptions();
    ZaroFlightProducer.FlightOptions limits = new ZaroFlightProducer.FlightOptions(
        ZaroFlightProducer.FlightOptions.DEFAULT.endpointBytes(), ZaroFlightProducer.FlightOptions.DEFAULT.batchBytes(),
        maxRequestBytes);
    Zaro zaro = Zaro.open(location, options);
    ZaroFlightServer server = !sql ? ZaroFlightServer.start(zaro, host, port, limits)
        : ZaroFlightServer.start(zaro, host, port, limits, (producer, allocator) -> new FlightSqlRouter(producer,
            new ZaroFlightSqlProducer(new SqlEngine(zaro, SqlEngine.Options.DEFAULT.withReadOnly(true)), allocator)));
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        server.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        stopped.countDown();
      }
    }));
    String uri = "grpc://" + (host.equals("0.0.0.0") ? "127.0.0.1" : host) + ":" + server.port();
    System.out.println("zaro: serving " + location + " at " + uri + " (Ctrl-C stops)");
    System.out.println();
    System.out.println("  import pyarrow.flight as fl");
    System.out.println("  client = fl.connect(\"" + uri + "\")");
    System.out.println("  for info in client.list_flights(): print(info.descriptor.path, info.total_records)");
    System.out.println("  info = client.get_flight_info(fl.FlightDescriptor.for_command(");
    System.out.println("      '{\"array\": \"t2m\", \"slice\": \"0:24\", \"layout\": \"tensor\"}'))");
    System.out.println("  table = client.do_get(info.endpoints[0].ticket).read_all()");
    if (sql) {
      System.out.println();
      System.out.println("  Flight SQL (JDBC): jdbc:arrow-flight-sql://" + (host.equals("0.0.0.0") ? "127.0.0.1" : host) + ":"
          + server.port() + "/?useEncryption=false");
    }
    System.out.flush();
    server.awaitTermination();
    stopped.await();
    return 0;
  }
}
