package dev.zaro.flight;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.error.ZaroException;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.apache.arrow.flight.FlightProducer;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * A running Flight server over one hierarchy: plaintext or TLS (optionally requiring client
 * certificates), bearer tokens checked on every call, one memory budget for all requests. Closing
 * it shuts down gracefully (see {@link #close()}) and frees memory.
 */
// close() waits out the graceful shutdown, so it is interruptible by design
@SuppressWarnings("try")
public final class ZaroFlightServer implements AutoCloseable {
  private final BufferAllocator allocator;
  private final FlightServer server;
  private final ZaroFlightProducer producer;

  /** What the server serves: zaro's producer, or a wrapper around it (Flight SQL beside it). */
  private final FlightProducer served;

  private final Zaro zaro;
  private final ServerOptions options;
  private final ExecutorService calls;

  /** The Netty event loops of the server's connections (ours: see {@link #start}). */
  private final EventLoopGroup boss;

  private final EventLoopGroup workers;

  private ZaroHttpServer http;
  private boolean closed;
  private volatile boolean shuttingDown;

  private ZaroFlightServer(
      Zaro zaro,
      BufferAllocator allocator,
      ZaroFlightProducer producer,
      FlightProducer served,
      FlightServer server,
      ServerOptions options,
      ExecutorService calls,
      EventLoopGroup boss,
      EventLoopGroup workers) {
    this.calls = calls;
    this.boss = boss;
    this.workers = workers;
    this.served = served;
    this.zaro = zaro;
    this.allocator = allocator;
    this.producer = producer;
    this.server = server;
    this.options = options;
  }

  /**
   * Starts serving {@code zaro} (which the server then owns and closes) on host:port (port 0 picks
   * a free one), plaintext, without tokens, with the default budget.
   */
  public static ZaroFlightServer start(
      Zaro zaro, String host, int port, ZaroFlightProducer.FlightOptions options)
      throws IOException {
    return start(zaro, ServerOptions.defaults().withAddress(host, port).withLimits(options));
  }

  /** Starts serving {@code zaro}, which the server then owns and closes (also on failure). */
  public static ZaroFlightServer start(Zaro zaro, ServerOptions options) throws IOException {
    return start(zaro, options, (producer, allocator) -> producer);
  }

  /**
   * As {@link #start(Zaro, ServerOptions)}, serving what {@code services} makes of zaro's producer
   * and the server's allocator (e.g. zaro's producer beside a Flight SQL one, as {@code zaro serve
   * --sql} does); a returned producer that is AutoCloseable is closed with the server. TLS, tokens
   * and the budget apply to every service.
   */
  public static ZaroFlightServer start(
      Zaro zaro,
      ServerOptions options,
      BiFunction<FlightProducer, BufferAllocator, FlightProducer> services)
      throws IOException {
    TransportLogs.install(); // clients leaving and garbage connections: one line each, bounded
    // with a chunk cache, under its memory's root, so a block that is a cached chunk's contiguous
    // region is sent by reference (Arrow moves buffers only between allocators of one root)
    BufferAllocator allocator =
        zaro.cache() != null ? zaro.cache().newAllocator("zaro server") : new RootAllocator();
    // gRPC's callbacks (a stream's ready and cancel events among them) run here; it is ours, not
    // FlightServer's, because FlightServer stops its own executor at shutdown, while running
    // streams still need those callbacks to finish
    ExecutorService calls = Executors.newCachedThreadPool();
    // gRPC's transport as by default (NIO, one acceptor thread, Netty's default count of I/O
    // threads), but on a server channel whose connections close lingering (LingeringClose), so a
    // graceful shutdown cannot reset a connection whose last stream has just ended; a custom
    // channel type means gRPC wants the event loops from us too, and we shut them down
    EventLoopGroup boss =
        new NioEventLoopGroup(1, new DefaultThreadFactory("zaro-grpc-boss", true));
    EventLoopGroup workers =
        new NioEventLoopGroup(0, new DefaultThreadFactory("zaro-grpc-worker", true));
    ZaroFlightProducer producer = null;
    FlightProducer served = null;
    try {
      producer = new ZaroFlightProducer(zaro, allocator, options);
      served = services.apply(producer, allocator);
      ServerOptions.Tls tls = options.tls();
      Location location =
          tls == null
              ? Location.forGrpcInsecure(options.host(), options.port())
              : Location.forGrpcTls(options.host(), options.port());
      Consumer<NettyServerBuilder> transport =
          netty ->
              netty
                  .channelFactory(LingeringClose.ServerChannel.FACTORY)
                  .bossEventLoopGroup(boss)
                  .workerEventLoopGroup(workers);
      FlightServer.Builder builder =
          FlightServer.builder(allocator, location, served)
              .executor(calls)
              .transportHint("grpc.builderConsumer", transport);
      if (tls != null) {
        builder.useTls(tls.certChain().toFile(), tls.privateKey().toFile());
        if (tls.clientCa() != null) {
          builder.useMTlsClientVerification(tls.clientCa().toFile());
        }
      }
      if (options.tokens() != null) {
        builder.headerAuthenticator(options.tokens());
      }
      FlightServer server = builder.build();
      server.start();
      return new ZaroFlightServer(
          zaro, allocator, producer, served, server, options, calls, boss, workers);
    } catch (IOException | RuntimeException e) {
      if (served != producer) {
        closeService(served);
      }
      if (producer != null) {
        producer.close();
      }
      calls.shutdown();
      boss.shutdownGracefully(0, 0, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
      workers.shutdownGracefully(0, 0, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
      allocator.close(); // before zaro, which may close the cache whose root it is under
      zaro.close();
      throw e;
    }
  }

  /**
   * Also serves Arrow IPC over HTTP on {@code port} (0 picks a free one) of the same host, with the
   * same TLS, tokens, budget and limits ({@link ZaroHttpServer}); closed with this server. Returns
   * the bound port.
   */
  public synchronized int startHttp(int port) throws IOException {
    return startHttp(port, null);
  }

  /**
   * As {@link #startHttp(int)}, with {@code sql} (or null: none) answering the explorer page's SQL
   * console (docs/explorer.md).
   */
  public synchronized int startHttp(int port, ExplorerSql sql) throws IOException {
    return startHttp(port, sql, null);
  }

  /**
   * As {@link #startHttp(int, ExplorerSql)}, with {@code parquet} (or null: none) writing the
   * explorer's Parquet downloads; both are closed with this server when closeable.
   */
  public synchronized int startHttp(int port, ExplorerSql sql, ExplorerParquet parquet)
      throws IOException {
    if (http != null) {
      throw new IllegalStateException("HTTP is served already, on port " + http.port());
    }
    http = ZaroHttpServer.start(producer, options, port, sql, parquet);
    return http.port();
  }

  public int port() {
    return server.getPort();
  }

  public Location location() {
    return server.getLocation();
  }

  public BufferAllocator allocator() {
    return allocator;
  }

  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  /**
   * Stops accepting calls (requests still waiting for memory fail UNAVAILABLE), lets running
   * streams finish for up to {@code grace}, then cancels those still running. Returns whether every
   * stream finished within the grace period. Call {@link #close()} afterwards: it cancels the calls
   * that still hold data the client has not read.
   */
  public boolean shutdown(Duration grace) throws InterruptedException {
    shuttingDown = true;
    producer.stopAdmitting();
    server.shutdown();
    boolean finished = producer.awaitStreams(grace);
    if (!finished) {
      producer.cancelStreams();
    }
    return finished;
  }

  /**
   * Shuts down with the grace period of the options (unless {@link #shutdown} ran already), then
   * closes the server, the hierarchy and the memory.
   */
  @Override
  public void close() throws InterruptedException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (!shuttingDown) {
        shutdown(options.shutdownGrace());
      }
      server.close(); // after 3 s, cancels the calls still open (gRPC then frees what they held)
      // its connections are closed now, the lingering ones too (a forceful shutdown ends those)
      boss.shutdownGracefully(0, 0, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
      workers.shutdownGracefully(0, 0, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
      if (http != null) {
        http.close(); // closes its connections: writes still pending fail and free their batches
      }
      if (served != producer) {
        closeService(served);
      }
      producer.close();
      calls.shutdown();
      calls.awaitTermination(10, TimeUnit.SECONDS);
    } finally {
      try {
        allocator.close(); // before zaro, which may close the cache whose root it is under
      } finally {
        zaro.close();
      }
    }
  }

  private static void closeService(FlightProducer service) {
    if (service instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (Exception e) {
        throw new ZaroException("closing the Flight service: " + e.getMessage(), e);
      }
    }
  }
}
