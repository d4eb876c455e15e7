package dev.zaro.flight;

import static dev.zaro.arrow.store.LoopbackHttpServer.head;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.store.LoopbackHttpServer;
import dev.zaro.arrow.store.RemoteLimits;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.vector.IntVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A Flight server over an HTTP store whose server answers some requests as a hostile one would: one
 * reply announcing a terabyte, one that never comes. Each bad upstream reply fails the one client
 * request that asked for it, naming the chunk's key; the server's other clients, at the same time
 * and after, read the right values. The class {@link Timeout} only turns a hang into a failure;
 * nothing here measures speed.
 */
@Timeout(120)
class HostileUpstreamTest extends AllocatorTest {
  private static final int N = 12;
  private static final int CHUNK = 4;

  /** A v2 array of 12 int32 in 3 uncompressed chunks: 0, 1, ..., 11. */
  private static final Map<String, byte[]> KEYS = keys();

  private static Map<String, byte[]> keys() {
    Map<String, byte[]> keys = new ConcurrentHashMap<>();
    keys.put(
        "/data/.zarray",
        ("{\"zarr_format\": 2, \"shape\": ["
                + N
                + "], \"chunks\": ["
                + CHUNK
                + "],"
                + " \"dtype\": \"<i4\", \"compressor\": null, \"fill_value\": 0,"
                + " \"order\": \"C\", \"filters\": null}")
            .getBytes(StandardCharsets.UTF_8));
    for (int c = 0; c < N / CHUNK; c++) {
      ByteBuffer b = ByteBuffer.allocate(4 * CHUNK).order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < CHUNK; i++) {
        b.putInt(c * CHUNK + i);
      }
      keys.put("/data/" + c, b.array());
    }
    return keys;
  }

  @Test
  @SuppressWarnings("try") // Arrow's and the server's close() declare InterruptedException
  void oneBadUpstreamReplyFailsOneClientRequestAndTheOthersGoOn() throws Exception {
    AtomicBoolean closing = new AtomicBoolean();
    AtomicInteger hugeSent = new AtomicInteger();
    AtomicInteger stallSent = new AtomicInteger();
    try (LoopbackHttpServer upstream =
        new LoopbackHttpServer("upstream") {
          @Override
          protected boolean answer(List<String> head, OutputStream out) throws Exception {
            String path = path(head);
            if (path.equals("/data/1") && hugeSent.getAndIncrement() == 0) {
              out.write(head("200 OK", "Content-Length: 1099511627776"));
              out.write(new byte[16]);
              return false;
            }
            if (path.equals("/data/2") && stallSent.getAndIncrement() == 0) {
              while (!closing.get()) {
                Thread.sleep(20); // never answers
              }
              return false;
            }
            byte[] body = KEYS.get(path);
            if (body == null) {
              out.write(head("404 Not Found", "Content-Length: 0"));
              return true;
            }
            out.write(head("200 OK", "Content-Length: " + body.length));
            out.write(body);
            return true;
          }
        }) {
      RemoteLimits limits =
          RemoteLimits.DEFAULT
              .withRetries(0)
              .withRequestTimeout(Duration.ofSeconds(1))
              .withTimeout(Duration.ofSeconds(30));
      try (Zaro zaro =
              Zaro.open(
                  upstream.url("data").toString(),
                  ZaroOptions.defaults().withThreads(1).withRemote(limits));
          ZaroFlightServer server =
              ZaroFlightServer.start(
                  zaro, "127.0.0.1", 0, ZaroFlightProducer.FlightOptions.DEFAULT)) {
        Location location = Location.forGrpcInsecure("127.0.0.1", server.port());
        int clients = 4;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        List<Future<int[]>> reads = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
          reads.add(pool.submit(() -> readAll(location)));
        }
        List<String> failures = new ArrayList<>();
        int good = 0;
        for (Future<int[]> read : reads) {
          try {
            assertArrayEquals(expected(), read.get());
            good++;
          } catch (ExecutionException e) {
            assertTrue(e.getCause() instanceof FlightRuntimeException, String.valueOf(e));
            failures.add(e.getCause().getMessage());
          }
        }
        pool.shutdown();
        // the two bad replies fail one or two requests (one client may meet both), no more
        assertTrue(failures.size() == 1 || failures.size() == 2, failures.toString());
        assertEquals(clients - failures.size(), good);
        String all = String.join("\n", failures);
        assertTrue(all.contains("key '1'") || all.contains("key '2'"), "no key named in: " + all);
        for (String f : failures) {
          assertTrue(f.contains("announces 1099511627776 bytes") || f.contains("no bytes from"), f);
        }
        assertTrue(hugeSent.get() > 1 && stallSent.get() > 1, "bad replies were served once");
        // and the server goes on serving whoever comes next
        assertArrayEquals(expected(), readAll(location));
      } finally {
        closing.set(true);
      }
    }
  }

  private static int[] expected() {
    int[] v = new int[N];
    for (int i = 0; i < N; i++) {
      v[i] = i;
    }
    return v;
  }

  /** One client's read of the whole array over Flight. */
  @SuppressWarnings("try") // Arrow's close() declares InterruptedException
  private int[] readAll(Location location) throws Exception {
    try (FlightClient client = FlightClient.builder(allocator, location).build()) {
      FlightInfo info = client.getInfo(FlightDescriptor.path("/"));
      List<Integer> values = new ArrayList<>();
      for (var endpoint : info.getEndpoints()) {
        Ticket ticket = endpoint.getTicket();
        try (FlightStream stream = client.getStream(ticket)) {
          while (stream.next()) {
            IntVector v = (IntVector) stream.getRoot().getVector(0);
            for (int i = 0; i < v.getValueCount(); i++) {
              values.add(v.get(i));
            }
          }
        }
      }
      return values.stream().mapToInt(Integer::intValue).toArray();
    }
  }
}
