package dev.zaro.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.impl.FlightServiceGrpc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Error kinds map to the Flight status codes the design names, message kept. */
class FlightStatusTest extends AllocatorTest {
  @TempDir Path dir;

  @ParameterizedTest
  @CsvSource({
    "NOT_FOUND, NOT_FOUND",
    "INVALID_ARGUMENT, INVALID_ARGUMENT",
    "UNSUPPORTED, UNIMPLEMENTED",
    "CORRUPT, INTERNAL", // in Flight's vocabulary; on the wire DATA_LOSS (below)
    "MISSING_CHUNK, INTERNAL",
    "IO, UNAVAILABLE",
    "INTERNAL, INTERNAL",
  })
  void mapsEveryKind(ErrorKind kind, FlightStatusCode code) {
    FlightRuntimeException e =
        FlightErrors.status(new ZaroException(kind, "chunk key 'a/c/0' broke"));
    assertEquals(code, e.status().code());
    assertEquals("chunk key 'a/c/0' broke", e.status().description());
  }

  /**
   * A corrupt chunk reaches a gRPC client as DATA_LOSS naming the chunk key (docs/contracts.md,
   * "Flight contract"), and Arrow's Flight client, which has no such code, as INTERNAL with the
   * same message.
   */
  @Test
  @SuppressWarnings("try") // Arrow's and the server's close() declare InterruptedException
  void corruptChunkIsDataLossOnTheWire() throws Exception {
    // a Zarr v2 array of 4 int32 in one zlib chunk whose bytes are not zlib
    Path store = dir.resolve("bad.zarr");
    Files.createDirectories(store);
    Files.writeString(
        store.resolve(".zarray"),
        """
        {"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "<i4",
         "compressor": {"id": "zlib", "level": 1}, "fill_value": 0, "order": "C",
         "filters": null}""");
    Files.write(store.resolve("0"), "this is not zlib at all".getBytes(StandardCharsets.UTF_8));
    try (Zaro zaro = Zaro.open(store.toString(), ZaroOptions.defaults().withThreads(1));
        ZaroFlightServer server =
            ZaroFlightServer.start(zaro, "127.0.0.1", 0, ZaroFlightProducer.FlightOptions.DEFAULT);
        FlightClient client =
            FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port()))
                .build()) {
      FlightInfo info = client.getInfo(FlightDescriptor.path("/"));
      byte[] ticket = info.getEndpoints().get(0).getTicket().getBytes();

      FlightRuntimeException flight =
          assertThrows(
              FlightRuntimeException.class,
              () -> {
                try (FlightStream stream =
                    client.getStream(info.getEndpoints().get(0).getTicket())) {
                  while (stream.next()) {
                    // drain
                  }
                }
              });
      assertEquals(FlightStatusCode.INTERNAL, flight.status().code());
      assertTrue(flight.status().description().contains("'0'"), flight.status().description());

      ManagedChannel channel =
          NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
      try {
        StatusRuntimeException grpc =
            assertThrows(
                StatusRuntimeException.class,
                () ->
                    FlightServiceGrpc.newBlockingStub(channel)
                        .doGet(
                            Flight.Ticket.newBuilder()
                                .setTicket(ByteString.copyFrom(ticket))
                                .build())
                        .forEachRemaining(data -> {}));
        assertEquals(Status.Code.DATA_LOSS, grpc.getStatus().getCode());
        assertTrue(
            grpc.getStatus().getDescription().contains("'0'"), grpc.getStatus().getDescription());
      } finally {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }
}
