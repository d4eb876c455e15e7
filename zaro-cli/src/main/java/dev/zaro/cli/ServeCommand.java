package dev.zaro.cli;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.flight.BearerTokens;
import dev.zaro.flight.ServerOptions;
import dev.zaro.flight.Sizes;
import dev.zaro.flight.ZaroFlightProducer;
import dev.zaro.flight.ZaroFlightServer;
import dev.zaro.sql.FlightSqlRouter;
import dev.zaro.sql.ParquetDownloads;
import dev.zaro.sql.SqlConsole;
import dev.zaro.sql.SqlEngine;
import dev.zaro.sql.ZaroFlightSqlProducer;
import java.io.IOException;
import java.lang.invoke.MethodHandleProxies;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Serves every array of a hierarchy over Arrow Flight (the bundled sample when STORE is omitted).",
      "SIGTERM or Ctrl-C stops accepting calls, lets running streams finish (--shutdown-grace), then cancels"
          + " them and exits 0."
    })
final class ServeCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", arity = "0..1", paramLabel = "STORE", description = Main.STORE_HELP)
  String store;

  @Option(
      names = "--host",
      defaultValue = "127.0.0.1",
      description =
          "Address to bind (default: 127.0.0.1)."
              + " Any address but loopback needs --auth-token-file (or --insecure).")
  String host;

  @Option(
      names = "--port",
      defaultValue = "8815",
      description = "Port (default: 8815; 0 picks a free one).")
  int port;

  @Option(
      names = "--sql",
      description =
          "Also serve Flight SQL (DuckDB over the same arrays, read-only), e.g. for the"
              + " Arrow Flight SQL JDBC driver: jdbc:arrow-flight-sql://HOST:PORT/?useEncryption=false (TLS: useEncryption=true;"
              + " tokens: token=...)")
  boolean sql;

  @Mixin OpenOptions open = new OpenOptions();

  @Option(
      names = "--tls-cert",
      paramLabel = "FILE",
      description = "PEM certificate chain: serve over TLS (with --tls-key).")
  Path tlsCert;

  @Option(names = "--tls-key", paramLabel = "FILE", description = "PEM private key of --tls-cert.")
  Path tlsKey;

  @Option(
      names = "--tls-client-ca",
      paramLabel = "FILE",
      description =
          "PEM CA certificate(s): clients must present a certificate it signed (mutual TLS).")
  Path tlsClientCa;

  @Option(
      names = "--auth-token-file",
      paramLabel = "FILE",
      description =
          "Tokens, one a line: every call must send"
              + " the header 'authorization: Bearer <token>' with one of them.")
  Path tokenFile;

  @Option(
      names = "--insecure",
      description =
          "Allow binding an address other than loopback without tokens, or with tokens but"
              + " without TLS (tokens then cross the network in clear text); the banner warns.")
  boolean insecure;

  @Option(
      names = "--max-memory",
      paramLabel = "SIZE",
      defaultValue = "2g",
      description =
          "One Arrow memory budget"
              + " for all requests together (k/m/g suffixes; default: 2g). Requests that do not fit wait (--queue-timeout).")
  String maxMemory;

  @Option(
      names = "--max-streams",
      paramLabel = "N",
      defaultValue = "64",
      description =
          "do_get streams served at once (default: 64); further ones wait (--queue-timeout).")
  int maxStreams;

  @Option(
      names = "--max-request-bytes",
      paramLabel = "SIZE",
      defaultValue = "1g",
      description = "Memory one request may hold at once (k/m/g suffixes; default: 1g).")
  String maxRequestBytes;

  @Option(
      names = "--queue-timeout",
      paramLabel = "SECONDS",
      defaultValue = "60",
      description =
          "How long a request"
              + " waits for memory or a stream slot before it fails RESOURCE_EXHAUSTED (default: 60).")
  long queueTimeout;

  @Option(
      names = "--cache-memory",
      paramLabel = "SIZE",
      defaultValue = "0",
      description =
          "Decoded chunks kept for every later request (k/m/g suffixes; default: 0, none), LRU by"
              + " bytes, taken out of --max-memory; the stats action reports hits and misses.")
  String cacheMemory;

  @Option(
      names = "--http-port",
      paramLabel = "P",
      description =
          "Also serve Arrow IPC streams over HTTP on port P of the same host (0 picks one):"
              + " GET /arrays/{path}?slice=S&layout=tensor|table&compression=zstd|lz4,"
              + " with the same TLS, tokens and budget.")
  Integer httpPort;

  @Option(
      names = "--shutdown-grace",
      paramLabel = "SECONDS",
      defaultValue = "30",
      description =
          "On SIGTERM, how long running streams may take to finish before they are cancelled (default: 30).")
  long shutdownGrace;

  static Path sample() {
    String home = System.getProperty("zaro.home", ".");
    return Path.of(home, "testdata", "sample", "climate.zarr");
  }

  private CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }

  private long size(String option, String text) {
    try {
      return Sizes.parse(text);
    } catch (IllegalArgumentException e) {
      throw usage(option + ": " + e.getMessage());
    }
  }

  private long cacheBytes() {
    long bytes = size("--cache-memory", cacheMemory);
    if (bytes < 0) {
      throw usage("--cache-memory must not be negative");
    }
    return bytes;
  }

  /** The server's options from the command line; refuses unsafe or incomplete combinations. */
  ServerOptions serverOptions() throws IOException {
    if ((tlsCert == null) != (tlsKey == null)) {
      throw usage("--tls-cert and --tls-key go together");
    }
    if (tlsClientCa != null && tlsCert == null) {
      throw usage("--tls-client-ca needs --tls-cert and --tls-key");
    }
    for (Path f : new Path[] {tlsCert, tlsKey, tlsClientCa, tokenFile}) {
      if (f != null && !Files.isReadable(f)) {
        throw usage("cannot read " + f);
      }
    }
    if (tokenFile == null && !insecure && !isLoopback(host)) {
      throw usage(
          "refusing to serve on "
              + host
              + " (not loopback) without authentication: give"
              + " --auth-token-file FILE (and --tls-cert FILE --tls-key FILE so tokens do not travel in plaintext),"
              + " or --insecure to serve anyone who can reach the port");
    }
    if (tokenFile != null && tlsCert == null && !insecure && !isLoopback(host)) {
      throw usage(
          "refusing to serve on "
              + host
              + " (not loopback) with bearer tokens but without TLS: every token would cross the"
              + " network in clear text; give --tls-cert FILE --tls-key FILE, or --insecure to"
              + " send them in clear text anyway");
    }
    if (maxStreams < 1) {
      throw usage("--max-streams must be at least 1");
    }
    long budget = size("--max-memory", maxMemory) - cacheBytes();
    if (budget < 1) {
      throw usage(
          "--max-memory must be positive"
              + (cacheBytes() > 0 ? " and larger than --cache-memory, which it includes" : ""));
    }
    ZaroFlightProducer.FlightOptions limits =
        new ZaroFlightProducer.FlightOptions(
            ZaroFlightProducer.FlightOptions.DEFAULT.endpointBytes(),
            ZaroFlightProducer.FlightOptions.DEFAULT.batchBytes(),
            size("--max-request-bytes", maxRequestBytes));
    BearerTokens tokens;
    try {
      tokens = tokenFile == null ? null : BearerTokens.fromFile(tokenFile);
    } catch (IllegalArgumentException e) {
      throw usage("--auth-token-file: " + e.getMessage());
    }
    return ServerOptions.defaults()
        .withAddress(host, port)
        .withTls(tlsCert == null ? null : new ServerOptions.Tls(tlsCert, tlsKey, tlsClientCa))
        .withTokens(tokens)
        .withMaxMemory(budget)
        .withMaxStreams(maxStreams)
        .withLimits(limits)
        .withAdmissionWait(Duration.ofSeconds(queueTimeout))
        .withShutdownGrace(Duration.ofSeconds(shutdownGrace));
  }

  static boolean isLoopback(String host) {
    try {
      for (InetAddress a : InetAddress.getAllByName(host)) {
        if (!a.isLoopbackAddress()) {
          return false;
        }
      }
      return true;
    } catch (UnknownHostException e) {
      return false;
    }
  }

  @Override
  public Integer call() throws Exception {
    // everything a server keeps must be within --max-memory, and the output pool's idle blocks
    // would sit outside it (cached streams reuse block buffers of their own): off unless asked for
    if (System.getProperty("zaro.blockpool") == null) {
      System.setProperty("zaro.blockpool", "0");
    }
    ZaroFlightServer server = start();
    CountDownLatch stopped = new CountDownLatch(1);
    Runnable stop =
        () -> {
          try {
            server.shutdown(serverOptions.shutdownGrace());
            server.close();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } finally {
            stopped.countDown();
          }
        };
    onSignals(stop);
    printBanner(server);
    if (onReady != null) {
      onReady.accept(http);
    }
    stopped.await();
    return 0;
  }

  /** Told the HTTP port once the banner is out ({@code zaro ui}), or null. */
  IntConsumer onReady;

  /** The options and store {@link #start} used. */
  private ServerOptions serverOptions;

  private String location;

  private Zaro zaro;

  /** The HTTP port {@link #start} bound, or -1. */
  private int http = -1;

  /**
   * Opens the store and starts the server (and its HTTP port, with {@code --http-port}); the caller
   * stops and closes the server, then {@link #zaro()}.
   */
  ZaroFlightServer start() throws IOException, InterruptedException {
    location = store != null ? store : sample().toString();
    serverOptions = serverOptions();
    ZaroOptions options = open.toOptions().withCacheMemory(cacheBytes());
    zaro = Zaro.open(location, options);
    Zaro opened = zaro;
    ZaroFlightServer server;
    try {
      server = startFlight(opened);
    } catch (IOException e) {
      throw BindFailure.of(e, host, port, "--port").orElseThrow(() -> e);
    }
    if (httpPort != null) {
      try {
        http =
            server.startHttp(
                httpPort,
                sql
                    ? new SqlConsole(
                        () -> new SqlEngine(opened, SqlEngine.Options.DEFAULT.withReadOnly(true)),
                        server.allocator())
                    : null,
                new ParquetDownloads());
      } catch (IOException | RuntimeException e) {
        server.close();
        if (e instanceof IOException io) {
          throw BindFailure.of(io, host, httpPort, "--http-port").orElseThrow(() -> io);
        }
        throw e;
      }
    }
    return server;
  }

  private ZaroFlightServer startFlight(Zaro opened) throws IOException {
    return !sql
        ? ZaroFlightServer.start(zaro, serverOptions)
        : ZaroFlightServer.start(
            zaro,
            serverOptions,
            (producer, allocator) ->
                new FlightSqlRouter(
                    producer,
                    // DuckDB starts on the first Flight SQL request, not before the banner
                    new ZaroFlightSqlProducer(
                        () -> new SqlEngine(opened, SqlEngine.Options.DEFAULT.withReadOnly(true)),
                        allocator)));
  }

  /** The hierarchy {@link #start} opened (the server does not own it). */
  Zaro zaro() {
    return zaro;
  }

  /** The HTTP port {@link #start} bound, or -1. */
  int httpPort() {
    return http;
  }

  /** Prints what the server listens on and how to read from it. */
  void printBanner(ZaroFlightServer server) {
    new ServeBanner(host, serverOptions, insecure, sql)
        .print(System.out, location, zaro, server.port(), http);
  }

  /**
   * SIGTERM and SIGINT start {@code stop} (on a thread of its own; the JVM stays up until it ends);
   * a second signal stops at once, with exit code 1.
   *
   * <p>The handlers are {@code sun.misc.Signal}'s (JDK 17 has no public API for them, and a
   * shutdown hook could not take the second signal), reached by reflection: javac's warning on
   * internal API is mandatory, no {@code @SuppressWarnings} silences it, and warnings fail the
   * build.
   */
  private static void onSignals(Runnable stop) {
    AtomicBoolean started = new AtomicBoolean();
    Consumer<Object> handler =
        signal -> {
          if (started.compareAndSet(false, true)) {
            System.err.println(
                "zaro: "
                    + signal
                    + ": finishing running streams, then stopping"
                    + " (signal again to stop now)");
            new Thread(stop, "zaro-shutdown").start();
          } else {
            System.err.println("zaro: " + signal + " again: stopping now");
            Runtime.getRuntime().halt(1);
          }
        };
    try {
      Class<?> signalType = Class.forName("sun.misc.Signal");
      Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
      Object signalHandler =
          MethodHandleProxies.asInterfaceInstance(
              handlerType,
              MethodHandles.publicLookup()
                  .findVirtual(
                      Consumer.class, "accept", MethodType.methodType(void.class, Object.class))
                  .bindTo(handler));
      Method handle = signalType.getMethod("handle", signalType, handlerType);
      for (String name : new String[] {"TERM", "INT"}) {
        handle.invoke(
            null, signalType.getConstructor(String.class).newInstance(name), signalHandler);
      }
    } catch (InvocationTargetException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot handle signals: " + e, e);
    }
  }
}
