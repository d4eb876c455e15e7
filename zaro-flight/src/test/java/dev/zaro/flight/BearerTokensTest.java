package dev.zaro.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightCallHeaders;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.HeaderCallOption;
import org.apache.arrow.flight.Location;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bearer tokens: the file, the check on every call (with Arrow Java's client), no leaks in text.
 */
class BearerTokensTest extends AllocatorTest {
  @TempDir Path dir;

  private static CallOption bearer(String token) {
    FlightCallHeaders headers = new FlightCallHeaders();
    headers.insert("authorization", "Bearer " + token);
    return new HeaderCallOption(headers);
  }

  @Test
  void theFileHoldsOneTokenALine() throws Exception {
    Path file = dir.resolve("tokens");
    Files.writeString(file, "first-token\n\n  second-token \n");
    BearerTokens tokens = BearerTokens.fromFile(file);
    assertTrue(tokens.accepts("first-token".getBytes(StandardCharsets.UTF_8)));
    assertTrue(tokens.accepts("second-token".getBytes(StandardCharsets.UTF_8)));
    assertFalse(tokens.accepts("second-toke".getBytes(StandardCharsets.UTF_8)));
    assertFalse(tokens.accepts(new byte[0]));
    assertEquals("BearerTokens[2 tokens]", tokens.toString());
    Files.writeString(file, "\n \n");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> BearerTokens.fromFile(file));
    assertTrue(e.getMessage().contains("no token"), e.getMessage());
    IllegalArgumentException spaced =
        assertThrows(
            IllegalArgumentException.class, () -> BearerTokens.of(List.of("ok", "has space")));
    assertFalse(spaced.getMessage().contains("has space"), "the message does not repeat the token");
  }

  @Test
  // the server's close() waits out its graceful shutdown; Arrow's FlightClient and FlightStream
  // declare close() throws Exception
  @SuppressWarnings("try")
  void everyCallNeedsAnAcceptedToken() throws Exception {
    Zaro zaro =
        Zaro.open(
            Fixtures.testdata().resolve("sharding/stores/end_zstd.zarr").toString(),
            ZaroOptions.defaults().withThreads(2));
    try (ZaroFlightServer server =
            ZaroFlightServer.start(
                zaro,
                ServerOptions.defaults()
                    .withAddress("127.0.0.1", 0)
                    .withTokens(BearerTokens.of(List.of("t0ken"))));
        FlightClient client =
            FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port()))
                .build()) {
      for (CallOption[] options :
          List.of(
              new CallOption[0],
              new CallOption[] {bearer("wrong")},
              new CallOption[] {bearer("t0ke")},
              new CallOption[] {bearer("t0ken0")})) {
        FlightRuntimeException e =
            assertThrows(
                FlightRuntimeException.class,
                () -> client.getInfo(FlightDescriptor.path("/"), options));
        assertEquals(CallStatus.UNAUTHENTICATED.code(), e.status().code());
        assertFalse(e.getMessage().contains("t0ken"), e.getMessage());
        assertThrows(
            FlightRuntimeException.class,
            () -> client.listFlights(Criteria.ALL, options).forEach(i -> {}));
        assertThrows(
            FlightRuntimeException.class,
            () -> client.doAction(new Action("stats"), options).next());
      }
      FlightInfo info = client.getInfo(FlightDescriptor.path("/"), bearer("t0ken"));
      List<Long> rows = new ArrayList<>();
      for (var endpoint : info.getEndpoints()) {
        FlightRuntimeException e =
            assertThrows(
                FlightRuntimeException.class,
                () -> {
                  try (FlightStream stream = client.getStream(endpoint.getTicket())) {
                    stream.next();
                  }
                });
        assertEquals(CallStatus.UNAUTHENTICATED.code(), e.status().code());
        try (FlightStream stream = client.getStream(endpoint.getTicket(), bearer("t0ken"))) {
          while (stream.next()) {
            rows.add((long) stream.getRoot().getRowCount());
          }
        }
      }
      assertEquals(30, rows.stream().mapToLong(Long::longValue).sum());
    }
  }
}
