package dev.zaro.flight;

import static dev.zaro.arrow.store.LoopbackHttpServer.head;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.store.LoopbackHttpServer;
import dev.zaro.arrow.store.RemoteLimits;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.vector.IntVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A read request's own {@code "timeout"} (Flight command and ticket, HTTP {@code ?timeout=}): a
 * read whose store stalls fails TIMED_OUT naming the store's URL (its host) while the server's own
 * store limits would still wait minutes. The class {@link Timeout} only turns a hang into a
 * failure.
 */
@Timeout(120)
class ReadTimeoutTest extends AllocatorTest {

  @Test
  void timeoutIsParsedCarriedInTicketsAndChecked() {
    ReadRequest r =
        ReadRequest.parse("{\"array\": \"t\", \"timeout\": 2.5}".getBytes(StandardCharsets.UTF_8));
    assertEquals(Duration.ofMillis(2500), r.timeout());
    assertEquals(r, ReadRequest.parse(r.toJson()), "a ticket keeps the timeout");
    assertEquals(r.timeout(), ReadRequest.parse(r.withSlice("0:1").toJson()).timeout());
    assertNull(ReadRequest.parse("{\"array\": \"t\"}".getBytes(StandardCharsets.UTF_8)).timeout());
    for (String bad : List.of("0", "-1", "\"soon\"", "true")) {
      FlightRuntimeException e =
          assertThrows(
              FlightRuntimeException.class,
              () ->
                  ReadRequest.parse(
                      ("{\"array\": \"t\", \"timeout\": " + bad + "}")
                          .getBytes(StandardCharsets.UTF_8)));
      assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code());
      assertTrue(e.getMessage().contains("\"timeout\" must be a positive number"), e.getMessage());
    }
    for (String serverSide : List.of("retries", "request_timeout", "requestTimeout")) {
      FlightRuntimeException e =
          assertThrows(
              FlightRuntimeException.class,
              () ->
                  ReadRequest.parse(
                      ("{\"array\": \"t\", \"" + serverSide + "\": 1}")
                          .getBytes(StandardCharsets.UTF_8)));
      assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code());
      assertTrue(e.getMessage().contains("the server's setting"), e.getMessage());
    }
  }

  @Test
  @SuppressWarnings("try") // Arrow's and the server's close() declare InterruptedException
  void aReadWhoseStoreStallsFailsTimedOutNamingTheStore() throws Exception {
    AtomicBoolean stalling = new AtomicBoolean(true);
    byte[] zarray =
        ("{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [4], \"dtype\": \"<i4\","
                + " \"compressor\": null, \"fill_value\": 0, \"order\": \"C\", \"filters\": null}")
            .getBytes(StandardCharsets.UTF_8);
    byte[] chunk = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putInt(3).array();
    try (LoopbackHttpServer upstream =
        new LoopbackHttpServer("upstream") {
          @Override
          protected boolean answer(List<String> head, OutputStream out) throws Exception {
            String path = path(head);
            byte[] body =
                path.equals("/data/.zarray") ? zarray : path.equals("/data/0") ? chunk : null;
            while (body == chunk && stalling.get()) {
              Thread.sleep(20); // the chunk's reply does not come while stalling
            }
            if (body == null) {
              out.write(head("404 Not Found", "Content-Length: 0"));
              return true;
            }
            out.write(head("200 OK", "Content-Length: " + body.length));
            out.write(body);
            return true;
          }
        }) {
      // the server's own limits would wait minutes for the chunk
      RemoteLimits patient =
          RemoteLimits.DEFAULT
              .withTimeout(Duration.ofMinutes(10))
              .withRequestTimeout(Duration.ofMinutes(5));
      try (Zaro zaro =
              Zaro.open(
                  upstream.url("data").toString(), ZaroOptions.defaults().withRemote(patient));
          ZaroFlightServer server =
              ZaroFlightServer.start(zaro, ServerOptions.defaults().withAddress("127.0.0.1", 0));
          FlightClient client =
              FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port()))
                  .build()) {
        int http = server.startHttp(0);
        FlightInfo info =
            client.getInfo(
                FlightDescriptor.command(
                    "{\"array\": \"/\", \"timeout\": 0.5}".getBytes(StandardCharsets.UTF_8)));
        FlightEndpoint endpoint = info.getEndpoints().get(0);
        FlightRuntimeException e =
            assertThrows(FlightRuntimeException.class, () -> values(client, endpoint));
        assertEquals(FlightStatusCode.TIMED_OUT, e.status().code(), e.getMessage());
        String host = "127.0.0.1:" + upstream.url("").getPort();
        assertTrue(e.getMessage().contains(host), e.getMessage());
        assertTrue(e.getMessage().contains("timeout of 0.5 s"), e.getMessage());

        // over HTTP the stream has begun when the deadline passes: it is cut short
        HttpClient h = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        URI uri = URI.create("http://127.0.0.1:" + http + "/arrays/?timeout=0.5");
        assertThrows(
            IOException.class,
            () ->
                h.send(
                    HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.discarding()));
        HttpResponse<String> bad =
            h.send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + http + "/arrays/?timeout=x"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(400, bad.statusCode(), bad.body());

        // once the store answers, the same read without a timeout gets the values
        stalling.set(false);
        FlightInfo plain = client.getInfo(FlightDescriptor.path("/"));
        assertArrayEquals(new int[] {3, 0, 0, 0}, values(client, plain.getEndpoints().get(0)));
      } finally {
        stalling.set(false);
      }
    }
  }

  @SuppressWarnings("try") // Arrow's close() declares InterruptedException
  private static int[] values(FlightClient client, FlightEndpoint endpoint) throws Exception {
    List<Integer> values = new ArrayList<>();
    try (FlightStream stream = client.getStream(endpoint.getTicket())) {
      while (stream.next()) {
        IntVector v = (IntVector) stream.getRoot().getVector(0);
        for (int i = 0; i < v.getValueCount(); i++) {
          values.add(v.get(i));
        }
      }
    }
    return values.stream().mapToInt(Integer::intValue).toArray();
  }
}
