package dev.zaro.flight;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.ChunkCache;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.ZarrArray;
import dev.zaro.arrow.store.Stores;
import dev.zaro.arrow.vector.FixedShapeTensorType;
import dev.zaro.arrow.vector.FixedShapeTensorVector;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Blocks that are cached chunks' contiguous regions (chunks [6, 16, 8] of a [24, 16, 8] float32
 * array written by tensorstore) go over Flight and HTTP by reference (ChunkCacheTest shows that a
 * by-reference slab is the cache entry's memory, with nothing allocated for it), values equal.
 */
class ByReferenceTest extends AllocatorTest {
  private static Path store(Path dir) throws IOException {
    return store(dir, "contiguous.zarr");
  }

  private static Path store(Path dir, String name) throws IOException {
    Path store =
        Fixtures.copyTree(
            Fixtures.testdata().resolve("contiguous").resolve("stores").resolve(name),
            dir.resolve(name));
    Fixtures.age(store, 3600); // past the racy window: the chunks have versions
    return store;
  }

  private static ZaroFlightServer serve(Path store, ChunkCache cache) throws IOException {
    // batches of 2 rows (1 KiB), blocks of up to 4 KiB: several chunks a block
    return serve(store, cache, 1024);
  }

  private static ZaroFlightServer serve(Path store, ChunkCache cache, long batchBytes)
      throws IOException {
    Zaro zaro =
        Zaro.open(Stores.open(store.toString()), ZaroOptions.defaults().withThreads(2), cache);
    return ZaroFlightServer.start(
        zaro, "127.0.0.1", 0, new ZaroFlightProducer.FlightOptions(1 << 20, batchBytes, 1 << 20));
  }

  @SuppressWarnings("try") // FlightStream.close() declares Exception (Arrow's signature)
  private byte[] flightValues(ZaroFlightServer server) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (FlightClient client =
        FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port()))
            .build()) {
      for (FlightEndpoint e : client.getInfo(FlightDescriptor.path("/")).getEndpoints()) {
        try (FlightStream stream = client.getStream(e.getTicket())) {
          while (stream.next()) {
            out.write(values(stream.getRoot()));
          }
        }
      }
    }
    return out.toByteArray();
  }

  private byte[] httpValues(int port) throws Exception {
    HttpResponse<InputStream> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/arrays/")).build(),
                HttpResponse.BodyHandlers.ofInputStream());
    assertEquals(200, response.statusCode());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (InputStream body = response.body();
        ArrowStreamReader reader = new ArrowStreamReader(body, allocator)) {
      while (reader.loadNextBatch()) {
        out.write(values(reader.getVectorSchemaRoot()));
      }
    }
    return out.toByteArray();
  }

  private static byte[] values(VectorSchemaRoot root) {
    FieldVector data =
        ((FixedShapeTensorVector) root.getVector(0)).getUnderlyingVector().getDataVector();
    byte[] b = new byte[data.getValueCount() * 4];
    data.getDataBuffer().getBytes(0, b);
    return b;
  }

  private static void closeAfterWrites(ZaroFlightServer server) throws Exception {
    // gRPC and Netty release the last batch they wrote asynchronously, after the client read it
    for (int i = 0; i < 200 && server.allocator().getAllocatedMemory() != 0; i++) {
      Thread.sleep(10);
    }
    long left = server.allocator().getAllocatedMemory();
    server.close();
    assertEquals(0, left, "server memory after all streams ended");
  }

  @Test
  void cachedContiguousBlocksAreSentByReferenceOverFlightAndHttp(@TempDir Path dir)
      throws Exception {
    FixedShapeTensorType.register();
    byte[] expected =
        Files.readAllBytes(Fixtures.testdata().resolve("contiguous/expected/contiguous.bin"));
    Path store = store(dir);
    try (ChunkCache cache = new ChunkCache(1 << 20)) {
      ZaroFlightServer cold = serve(store, cache);
      assertArrayEquals(expected, flightValues(cold), "decoded and cached");
      closeAfterWrites(cold);
      assertEquals(0, cache.stats().byReference(), "nothing cached before");
      assertEquals(4, cache.stats().misses(), "each chunk missed (and decoded) once");

      ZaroFlightServer warm = serve(store, cache);
      int http = warm.startHttp(0);
      assertArrayEquals(expected, flightValues(warm), "Flight, by reference");
      assertEquals(4, cache.stats().byReference(), "every chunk of every block by reference");
      assertArrayEquals(expected, httpValues(http), "HTTP, by reference");
      assertEquals(8, cache.stats().byReference(), "HTTP too");
      long misses = cache.stats().misses();
      closeAfterWrites(warm); // the server's memory back to 0 (asserted there)
      assertEquals(misses, cache.stats().misses());
    }
  }

  /**
   * A block of all four chunks (blocks of up to 16 KiB) with only the first two cached is read, not
   * sent by reference: each of its chunks counts once, two hits and two misses, none by reference
   * (the two cached ones were counted twice, and by reference, before). Once all four are cached,
   * the block goes by reference: four hits, each by reference.
   */
  @Test
  void aPartlyCachedBlockCountsEachChunkOnce(@TempDir Path dir) throws Exception {
    FixedShapeTensorType.register();
    byte[] expected =
        Files.readAllBytes(Fixtures.testdata().resolve("contiguous/expected/contiguous.bin"));
    Path store = store(dir);
    try (ChunkCache cache = new ChunkCache(1 << 20)) {
      try (Zaro zaro = Zaro.open(Stores.open(store.toString()), ZaroOptions.defaults(), cache);
          BufferAllocator reader = cache.newAllocator("reader")) {
        ZarrArray array = zaro.array("/");
        Selection firstTwo = Selection.parse("0:12", array.metadata().shape());
        array.read(firstTwo, reader, ReadOptions.DEFAULT).close();
      }
      assertEquals(0, cache.stats().hits());
      assertEquals(2, cache.stats().misses(), "chunks 0 and 1 cached");
      // blocks of up to 16 KiB: the whole array (four 3 KiB chunks) is one block
      ZaroFlightServer server = serve(store, cache, 4096);
      assertArrayEquals(expected, flightValues(server), "read, two chunks from the cache");
      ChunkCache.Stats read = cache.stats();
      assertEquals(2, read.hits(), "chunks 0 and 1, each once");
      assertEquals(0, read.byReference(), "the block was read, not sent by reference");
      assertEquals(4, read.misses(), "chunks 0 and 1 before, 2 and 3 now");
      assertArrayEquals(expected, flightValues(server), "by reference");
      assertEquals(6, cache.stats().hits(), "four more hits");
      assertEquals(4, cache.stats().byReference(), "each of the four by reference");
      assertEquals(4, cache.stats().misses());
      closeAfterWrites(server);
    }
  }

  /**
   * Chunks [6, 8, 4] (tiled.zarr, the same values) do not span the trailing dimensions, so cached
   * chunks are copied into blocks; with a cache the blocks hold two batches (4 rows) and cut the
   * 6-row chunks, yet each chunk is decoded once (the next block finds it cached), the values are
   * tensorstore's over Flight and HTTP, and the reused block buffers go back to 0.
   */
  @Test
  void cachedTiledChunksAreCopiedIntoBlocksThatCutChunksDecodingEachOnce(@TempDir Path dir)
      throws Exception {
    FixedShapeTensorType.register();
    byte[] expected =
        Files.readAllBytes(Fixtures.testdata().resolve("contiguous/expected/contiguous.bin"));
    Path store = store(dir, "tiled.zarr");
    try (ChunkCache cache = new ChunkCache(1 << 20)) {
      ZaroFlightServer cold = serve(store, cache);
      int http = cold.startHttp(0);
      assertArrayEquals(expected, flightValues(cold), "decoded, cached, copied");
      assertEquals(16, cache.stats().misses(), "each of the 16 chunks decoded once");
      assertArrayEquals(expected, flightValues(cold), "copied from the cache");
      assertArrayEquals(expected, httpValues(http), "HTTP, copied from the cache");
      assertEquals(16, cache.stats().misses(), "no chunk decoded again");
      assertEquals(0, cache.stats().byReference(), "tiled chunks are not contiguous in a block");
      closeAfterWrites(cold);
    }
  }
}
