package dev.zaro.flight;

import dev.zaro.arrow.Zaro;
import java.io.IOException;
import java.util.function.BiFunction;
import org.apache.arrow.flight.FlightProducer;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/** A running Flight server over one hierarchy. Closing it stops the server and frees memory. */
public final class ZaroFlightServer implements AutoCloseable {
  private final BufferAllocator allocator;
  private final FlightServer server;
  private final Zaro zaro;
  private final FlightProducer producer;

  private ZaroFlightServer(Zaro zaro, BufferAllocator allocator, FlightServer server, FlightProducer producer) {
    this.zaro = zaro;
    this.allocator = allocator;
    this.server = server;
    this.producer = producer;
  }

  /**
   * Starts serving {@code zaro} (which the server then owns and closes) on host:port (port 0
   * picks a free one).
   */
  public static ZaroFlightServer start(Zaro zaro, String host, int port,
      ZaroFlightProducer.FlightOptions options) throws IOException {
    return start(zaro, host, port, options, (producer, allocator) -> producer);
  }

  /**
   * As {@link #start(Zaro, String, int, ZaroFlightProducer.FlightOptions)}, serving what
   * {@code services} makes of zaro's producer and the server's allocator (e.g. zaro's producer
   * beside a Flight SQL one); a returned producer that is AutoCloseable is closed with the server.
   */
  public static ZaroFlightServer start(Zaro zaro, String host, int port, ZaroFlightProducer.FlightOptions options,
      BiFunction<FlightProducer, BufferAllocator, FlightProducer> services) throws IOException {
    BufferAllocator allocator = new RootAllocator();
    FlightProducer producer = null;
    try {
      producer = services.apply(new ZaroFlightProducer(zaro, allocator, options), allocator);
      FlightServer server = FlightServer.builder(allocator, Location.forGrpcInsecure(host, port), producer).build();
      server.start();
      return new ZaroFlightServer(zaro, allocator, server, producer);
    } catch (IOException | RuntimeException e) {
      closeProducer(producer);
      allocator.close();
      throw e;
    }
  }

  private static void closeProducer(FlightProducer producer) {
    if (producer instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (Exception e) {
        throw new dev.zaro.arrow.error.ZaroException("closing the Flight service: " + e.getMessage(), e);
      }
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
      try {
        closeProducer(producer);
      } finally {
        zaro.close();
        allocator.close();
      }
    }
  }
}
