package dev.zaro.flight;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.vector.FixedShapeTensorType;
import dev.zaro.arrow.vector.FixedShapeTensorVector;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Result;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Flight contract against a real server on loopback, with Arrow Java's FlightClient. */
class ZaroFlightTest extends AllocatorTest {
  private ZaroFlightServer server;
  private FlightClient client;

  @BeforeEach
  void start() throws Exception {
    FixedShapeTensorType.register();
    Zaro zaro =
        Zaro.open(
            Fixtures.testdata().resolve("sharding/stores/end_zstd.zarr").toString(),
            ZaroOptions.defaults().withThreads(2));
    // tiny limits: batches of 2 rows of 41 int32, endpoints of 300 bytes (at least one chunk)
    server =
        ZaroFlightServer.start(
            zaro, "127.0.0.1", 0, new ZaroFlightProducer.FlightOptions(300, 2 * 41 * 4, 1 << 20));
    client =
        FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port()))
            .build();
  }

  @AfterEach
  void stop() throws Exception {
    client.close();
    // gRPC releases the last batch it wrote asynchronously, after the client has read it
    for (int i = 0; i < 200 && server.allocator().getAllocatedMemory() != 0; i++) {
      Thread.sleep(10);
    }
    long leaked = server.allocator().getAllocatedMemory();
    server.close();
    assertEquals(0, leaked, "server memory after all streams ended");
  }

  private static FlightDescriptor command(String json) {
    return FlightDescriptor.command(json.getBytes(StandardCharsets.UTF_8));
  }

  @SuppressWarnings("try") // FlightStream.close() declares Exception (Arrow's signature)
  private byte[] values(FlightInfo info) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (FlightEndpoint e : info.getEndpoints()) {
      try (FlightStream stream = client.getStream(e.getTicket())) {
        VectorSchemaRoot root = stream.getRoot();
        while (stream.next()) {
          var vector = (FixedShapeTensorVector) root.getVector(0);
          IntVector ints = (IntVector) vector.getUnderlyingVector().getDataVector();
          byte[] b = new byte[ints.getValueCount() * 4];
          ints.getDataBuffer().getBytes(0, b);
          out.write(b);
        }
      }
    }
    return out.toByteArray();
  }

  @Test
  void listsArraysWithSchemaAndRecords() {
    List<FlightInfo> infos = new ArrayList<>();
    client.listFlights(Criteria.ALL).forEach(infos::add);
    assertEquals(1, infos.size());
    assertEquals(List.of("/"), infos.get(0).getDescriptor().getPath());
    assertEquals(30, infos.get(0).getRecords());
    assertTrue(
        infos.get(0).getSchemaOptional().orElseThrow().getFields().get(0).getType()
            instanceof FixedShapeTensorType);
  }

  @Test
  void largeReadsComeBackAsChunkAlignedEndpointsThatReassemble() throws Exception {
    FlightInfo info = client.getInfo(command("{\"array\": \"/\", \"slice\": \"3:27:4, 5:40\"}"));
    // rows 3, 7 | 11, 15, 19 | 23 : chunk boundaries at 10 and 20
    assertEquals(3, info.getEndpoints().size());
    assertArrayEquals(
        Files.readAllBytes(Fixtures.testdata().resolve("sharding/expected/end_zstd.1.bin")),
        values(info));
    FlightInfo whole = client.getInfo(FlightDescriptor.path("/"));
    assertArrayEquals(
        Files.readAllBytes(Fixtures.testdata().resolve("sharding/expected/end_zstd.0.bin")),
        values(whole));
  }

  @Test
  @SuppressWarnings("try") // FlightStream.close() declares Exception (Arrow's signature)
  void tableLayoutStreamsIndexColumnsAndValues() throws Exception {
    FlightInfo info =
        client.getInfo(
            command("{\"array\": \"/\", \"slice\": \"28:30, 39:41\", \"layout\": \"table\"}"));
    assertEquals(4, info.getRecords());
    List<Long> dim0 = new ArrayList<>();
    List<Long> dim1 = new ArrayList<>();
    for (FlightEndpoint e : info.getEndpoints()) {
      try (FlightStream stream = client.getStream(e.getTicket())) {
        while (stream.next()) {
          BigIntVector d0 = (BigIntVector) stream.getRoot().getVector("dim_0");
          BigIntVector d1 = (BigIntVector) stream.getRoot().getVector("dim_1");
          for (int i = 0; i < stream.getRoot().getRowCount(); i++) {
            dim0.add(d0.get(i));
            dim1.add(d1.get(i));
          }
        }
      }
    }
    assertEquals(List.of(28L, 28L, 29L, 29L), dim0);
    assertEquals(List.of(39L, 40L, 39L, 40L), dim1);
  }

  private long stat(String name) {
    String json =
        new String(client.doAction(new Action("stats")).next().getBody(), StandardCharsets.UTF_8);
    Matcher m = Pattern.compile("\"" + name + "\":(\\d+)").matcher(json);
    assertTrue(m.find(), json);
    return Long.parseLong(m.group(1));
  }

  /**
   * An index list along the first dimension (numpy's outer meaning): endpoints cut by positions of
   * the list where its index moves to another shard, values equal to numpy's {@code a[np.ix_]}
   * (testdata/outer), and only the inner chunks (5 x 4) holding the listed rows decoded: rows 12,
   * 11, 10 (inner chunk 2), 19 (3) and 0 (0) by the 9 stored inner chunks of a row (those of
   * columns 36-40 are absent: fill), 27, against the 36 of the bounding box 0:20; the bytes sent
   * are those of the 5 rows, not of 20.
   */
  @Test
  void indexListsReadOnlyTheChunksHoldingThemAndSendOnlyTheirValues() throws Exception {
    String slice = "[12,11,10,19,0], :";
    FlightInfo info = client.getInfo(command("{\"array\": \"/\", \"slice\": \"" + slice + "\"}"));
    assertEquals(5, info.getRecords());
    // positions 0-3 in shard row 1 (656 bytes > 300: a piece alone), position 4 in shard row 0
    assertEquals(2, info.getEndpoints().size());
    long decoded = stat("chunks_decoded");
    long sent = stat("stream_body_bytes");
    assertArrayEquals(
        Files.readAllBytes(Fixtures.testdata().resolve("outer/expected/sharding_end_zstd.4.bin")),
        values(info));
    assertEquals(27, stat("chunks_decoded") - decoded);
    long listBytes = stat("stream_body_bytes") - sent;
    assertTrue(listBytes >= 5 * 41 * 4 && listBytes < 5 * 41 * 4 + 1024, "sent " + listBytes);
    FlightInfo box = client.getInfo(command("{\"array\": \"/\", \"slice\": \"0:20, :\"}"));
    decoded = stat("chunks_decoded");
    sent = stat("stream_body_bytes");
    values(box);
    assertEquals(36, stat("chunks_decoded") - decoded);
    assertTrue(stat("stream_body_bytes") - sent >= 20 * 41 * 4);
  }

  @Test
  @SuppressWarnings("try") // FlightStream.close() declares Exception (Arrow's signature)
  void indexListsInTheTableLayoutGiveTheListedIndices() throws Exception {
    FlightInfo info =
        client.getInfo(
            command(
                "{\"array\": \"/\", \"slice\": \"[29,-30,29], [40,3]\", \"layout\": \"table\"}"));
    assertEquals(6, info.getRecords());
    List<Long> dim0 = new ArrayList<>();
    List<Long> dim1 = new ArrayList<>();
    for (FlightEndpoint e : info.getEndpoints()) {
      try (FlightStream stream = client.getStream(e.getTicket())) {
        while (stream.next()) {
          BigIntVector d0 = (BigIntVector) stream.getRoot().getVector("dim_0");
          BigIntVector d1 = (BigIntVector) stream.getRoot().getVector("dim_1");
          for (int i = 0; i < stream.getRoot().getRowCount(); i++) {
            dim0.add(d0.get(i));
            dim1.add(d1.get(i));
          }
        }
      }
    }
    assertEquals(List.of(29L, 29L, 0L, 0L, 29L, 29L), dim0);
    assertEquals(List.of(40L, 3L, 40L, 3L, 40L, 3L), dim1);
  }

  @Test
  void metadataAction() {
    var results = client.doAction(new Action("metadata", "/".getBytes(StandardCharsets.UTF_8)));
    Result r = results.next();
    String json = new String(r.getBody(), StandardCharsets.UTF_8);
    assertTrue(
        json.contains("\"data_type\":\"int32\"") && json.contains("\"shape\":[30,41]"), json);
  }

  @Test
  void errorsMapToStatusCodes() {
    FlightRuntimeException missing =
        assertThrows(
            FlightRuntimeException.class, () -> client.getInfo(FlightDescriptor.path("nope")));
    assertEquals(CallStatus.NOT_FOUND.code(), missing.status().code());
    assertTrue(missing.getMessage().contains("'/nope'"), missing.getMessage());
    FlightRuntimeException slice =
        assertThrows(
            FlightRuntimeException.class,
            () -> client.getInfo(command("{\"array\": \"/\", \"slice\": \"0:99\"}")));
    assertEquals(CallStatus.INVALID_ARGUMENT.code(), slice.status().code());
    assertTrue(slice.getMessage().contains("0:99"), slice.getMessage());
    FlightRuntimeException json =
        assertThrows(FlightRuntimeException.class, () -> client.getInfo(command("{")));
    assertEquals(CallStatus.INVALID_ARGUMENT.code(), json.status().code());
    FlightRuntimeException layout =
        assertThrows(
            FlightRuntimeException.class,
            () -> client.getInfo(command("{\"array\": \"/\", \"layout\": \"cube\"}")));
    assertEquals(CallStatus.INVALID_ARGUMENT.code(), layout.status().code());
    FlightRuntimeException codec =
        assertThrows(
            FlightRuntimeException.class,
            () -> client.getInfo(command("{\"array\": \"/\", \"compression\": \"gzip\"}")));
    assertEquals(CallStatus.INVALID_ARGUMENT.code(), codec.status().code());
    for (String escape : new String[] {"../../etc/passwd", "a/../../x", "/../x"}) {
      FlightRuntimeException e =
          assertThrows(
              FlightRuntimeException.class,
              () -> client.getInfo(command("{\"array\": \"" + escape + "\"}")));
      assertEquals(CallStatus.INVALID_ARGUMENT.code(), e.status().code(), escape);
      assertTrue(e.getMessage().contains("outside the store"), e.getMessage());
    }
  }

  @Test
  @SuppressWarnings("try") // FlightStream.close() declares Exception (Arrow's signature)
  void aClientThatLeavesMidStreamFreesEverything() throws Exception {
    FlightInfo info = client.getInfo(FlightDescriptor.path("/"));
    try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket())) {
      assertTrue(stream.next());
      stream.cancel("leaving early", null);
    }
    for (int i = 0; i < 200 && server.allocator().getAllocatedMemory() != 0; i++) {
      Thread.sleep(10);
    }
    assertEquals(0, server.allocator().getAllocatedMemory());
  }
}
