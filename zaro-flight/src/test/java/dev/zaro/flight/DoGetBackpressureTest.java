package dev.zaro.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightProducer;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * How much a do_get of zaro's server may leave queued in gRPC before it stops being ready: Flight's
 * backpressure threshold (arrow-java 18 sets every call's gRPC on-ready threshold to it, 10 MiB by
 * default, not gRPC's 32 KiB) plus one batch. The tensor stream's pool of block buffers is sized by
 * it (ZaroFlightProducer.streamTensor): a stream may not assume that gRPC lets go of a batch before
 * the next is put. Against a real server and a client that reads nothing, so what gRPC queues
 * cannot drain past the client's flow-control window.
 */
class DoGetBackpressureTest extends AllocatorTest {
  private static final int BATCH = 6 << 20; // one message, beyond a client's window (1 MiB)

  /** How many batches the stream put before gRPC said it was not ready, and its first answer. */
  private record Puts(boolean readyAfterFirst, int puts) {}

  @Test
  @SuppressWarnings("try") // FlightStream.close() declares Exception (Arrow's signature)
  void aDoGetStaysReadyUntilFlightsTenMibAreQueued() throws Exception {
    CompletableFuture<Puts> seen = new CompletableFuture<>();
    Zaro zaro =
        Zaro.open(
            Fixtures.testdata().resolve("sharding/stores/end_zstd.zarr").toString(),
            ZaroOptions.defaults().withThreads(1));
    try (ZaroFlightServer server =
            ZaroFlightServer.start(
                zaro,
                ServerOptions.defaults().withAddress("127.0.0.1", 0),
                (producer, serverAllocator) -> probe(serverAllocator, seen));
        FlightClient client =
            FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port()))
                .build()) {
      try (FlightStream stream = client.getStream(new Ticket(new byte[] {1}))) {
        Puts puts = seen.get(60, TimeUnit.SECONDS);
        // gRPC's own default (32 KiB) would say "not ready" with 6 MiB queued
        assertTrue(puts.readyAfterFirst(), "ready with one 6 MiB batch queued, under 10 MiB");
        // the second batch (12 MiB queued) stops it: backpressure holds at threshold + one batch
        assertEquals(2, puts.puts());
        stream.cancel("done", null);
      }
      for (int i = 0; i < 500 && server.allocator().getAllocatedMemory() != 0; i++) {
        Thread.sleep(10); // gRPC frees the cancelled stream's queued batches asynchronously
      }
      assertEquals(0, server.allocator().getAllocatedMemory());
    }
  }

  /** A producer whose do_get puts one 6 MiB batch after another while gRPC says it is ready. */
  private static FlightProducer probe(
      BufferAllocator serverAllocator, CompletableFuture<Puts> seen) {
    Schema schema =
        new Schema(
            List.of(new Field("v", FieldType.notNullable(new ArrowType.Int(32, true)), null)));
    return new NoOpFlightProducer() {
      @Override
      public void getStream(CallContext context, Ticket ticket, ServerStreamListener listener) {
        listener.setUseZeroCopy(true); // every batch shares the root's one buffer
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, serverAllocator)) {
          IntVector v = (IntVector) root.getVector(0);
          v.allocateNew(BATCH / 4);
          root.setRowCount(BATCH / 4);
          listener.start(root);
          listener.putNext();
          boolean first = listener.isReady();
          int puts = 1;
          while (listener.isReady() && puts < 100) {
            listener.putNext();
            puts++;
          }
          seen.complete(new Puts(first, puts));
          listener.completed();
        } catch (RuntimeException e) {
          seen.completeExceptionally(e);
        }
      }
    };
  }
}
