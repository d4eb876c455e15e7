package dev.zaro.flight;

import dev.zaro.arrow.Zaro;
import java.io.IOException;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/** A running Flight server over one hierarchy. Closing it stops the server and frees memory. */
public final class ZaroFlightServer implements AutoCloseable {
  private final BufferAllocator allocator;
  private final FlightServer server;
  private final Zaro zaro;

  private ZaroFlightServer(Zaro zaro, BufferAllocator allocator, FlightServer server) {
    this.zaro = zaro;
    this.allocator = allocator;
    this.server = server;
  }

  /**
   * Starts serving {@code zaro} (which the server then owns and closes) on host:port (port 0
   * picks a free one).
   */
  public static ZaroFlightServer start(Zaro zaro, String host, int port,
      ZaroFlightProducer.FlightOptions options) throws IOException {
    BufferAllocator allocator = new RootAllocator();
    try {
      FlightServer server = FlightServer.builder(allocator, Location.forGrpcInsecure(host, port),
          new ZaroFlightProducer(zaro, allocator, options)).build();
      server.start();
      return new ZaroFlightServer(zaro, allocator, server);
    } catch (IOException | RuntimeException e) {
      allocator.close();
      throw e;
    }
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

  @Override
  public void close() throws InterruptedException {
    try {
      server.shutdown();
      server.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
      server.close();
    } finally {
      zaro.close();
      allocator.close();
    }
  }
}
