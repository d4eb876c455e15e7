package dev.zaro.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.ReadStats;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.TestHttpServer;
import dev.zaro.arrow.store.TestHttpServer.Fault;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Sharded arrays read through S3Store with whole shards streamed into the decoders (the store tells
 * the read of each body piece as the SDK writes it): over moto_server the values equal
 * tensorstore's (testdata/sharding); against the loopback fault server, which sends half a body and
 * then holds the rest back, an inner chunk is decoded before the last byte, the held-back shard
 * fails the read naming its key and is not sent again, and cancelling mid-body frees the buffer.
 * Each test's allocator is closed after it, so a buffer left behind fails the test.
 */
class S3ShardStreamTest extends AllocatorTest {
  static final String BUCKET = "shards";
  static final List<String> FIXTURES = List.of("end_zstd", "start_gzip_uint16");
  static MotoServer moto;
  static S3Client admin;

  @TempDir Path dir;

  @BeforeAll
  static void startMoto() throws Exception {
    moto = MotoServer.start();
    admin = moto.admin();
    admin.createBucket(b -> b.bucket(BUCKET));
    for (String fixture : FIXTURES) {
      Path root = fixture(fixture);
      try (Stream<Path> files = Files.walk(root)) {
        for (Path f : files.filter(Files::isRegularFile).toList()) {
          String key = fixture + "/" + root.relativize(f).toString().replace('\\', '/');
          admin.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromFile(f));
        }
      }
    }
  }

  @AfterAll
  static void stopMoto() throws Exception {
    if (admin != null) {
      admin.close();
    }
    if (moto != null) {
      moto.close();
    }
  }

  private static Path fixture(String name) {
    return Fixtures.testdata().resolve("sharding/stores/" + name + ".zarr");
  }

  private static byte[] expected(String fixture) throws Exception {
    return Files.readAllBytes(
        Fixtures.testdata().resolve("sharding/expected/" + fixture + ".0.bin"));
  }

  private static byte[] bytes(Slab slab) {
    byte[] got = new byte[(int) slab.byteSize()];
    slab.data().getBytes(0, got);
    return got;
  }

  /** Whether object GETs go through the SDK's client (else zaro's own HTTP/1.1 client). */
  boolean sdkGets() {
    return false;
  }

  /** Moto with the tests' credentials, the fault server anonymous. */
  private S3Options options(URI endpoint) {
    return S3Options.DEFAULT
        .withEndpoint(endpoint, true)
        .withRegion("us-east-1")
        .withAnonymous(!endpoint.equals(moto.endpoint()))
        .withRetries(3, Duration.ofMillis(1), Duration.ofMillis(20))
        .withSdkGets(sdkGets());
  }

  /**
   * Read twice (an index at the end is the shard's last bytes, so such a shard streams once its
   * index is cached, on the second read): equal to tensorstore's values.
   */
  @ParameterizedTest
  @ValueSource(strings = {"end_zstd", "start_gzip_uint16"})
  void shardsStreamedFromMotoEqualTensorstore(String fixture) throws Exception {
    byte[] want = expected(fixture);
    try (Zaro zaro =
        Zaro.open(
            new S3Store(BUCKET, fixture, options(moto.endpoint())),
            ZaroOptions.defaults().withThreads(2).withIoConcurrency(4))) {
      for (int read = 0; read < 2; read++) {
        try (Slab slab = zaro.read("", "", allocator)) {
          assertArrayEquals(want, bytes(slab), "read " + read);
        }
      }
    }
    assertEquals(0, allocator.getAllocatedMemory());
  }

  /**
   * Starts a whole-object GET of shard {@code c/0/0/0}, counting the bytes told of in {@code told}
   * (checking that the pieces come in order, without gaps) and counting {@code some} down at each.
   */
  private CompletableFuture<Optional<ArrowBuf>> streamShard(
      S3Store s, AtomicLong told, CountDownLatch some) {
    return s.getAsync(
        "c/0/0/0",
        ByteRange.ALL,
        allocator,
        Runnable::run,
        (body, offset, length) -> {
          assertEquals(told.get(), offset, "pieces in order, without gaps");
          told.addAndGet(length);
          some.countDown();
        });
  }

  /** A whole object from moto is told of in pieces that cover it once, in order, unhedged. */
  @Test
  void aWholeObjectIsToldOfInPiecesThatCoverIt() throws Exception {
    Path shard = fixture("start_gzip_uint16").resolve("c/0/0/0");
    byte[] want = Files.readAllBytes(shard);
    AtomicLong told = new AtomicLong();
    try (S3Store s = new S3Store(BUCKET, "start_gzip_uint16", options(moto.endpoint()))) {
      CompletableFuture<Optional<ArrowBuf>> f = streamShard(s, told, new CountDownLatch(1));
      try (ArrowBuf buf = f.get(30, TimeUnit.SECONDS).orElseThrow()) {
        byte[] got = new byte[(int) buf.writerIndex()];
        buf.getBytes(0, got);
        assertArrayEquals(want, got);
      }
      assertEquals(want.length, told.get());
      assertEquals(0, s.hedges());
    }
  }

  /** The fixture under the fault server's {@code bucket/pre}. */
  private Path served(String fixture) throws Exception {
    return Fixtures.copyTree(fixture(fixture), dir.resolve("bucket/pre"));
  }

  /**
   * The fault server sends the first shard's headers and half its body, then nothing ({@code
   * HANG_BODY}) or closes the connection ({@code TRUNCATE}). Held back, an inner chunk is decoded
   * while that shard is the only request sent (one at a time: without streaming no chunk could be
   * decoded before its last byte), and when the request times out the read fails naming the key.
   * Once bytes were handed on the request is not sent again, and every buffer is freed.
   */
  @ParameterizedTest
  @ValueSource(strings = {"HANG_BODY", "TRUNCATE"})
  void aShardHeldBackHalfWayIsDecodedAsItArrivesThenFailsNamingItsKey(String faultName)
      throws Exception {
    Fault fault = Fault.valueOf(faultName);
    served("start_gzip_uint16"); // the index first: the first read streams
    try (TestHttpServer server = new TestHttpServer(dir);
        Zaro zaro =
            Zaro.open(
                new S3Store(
                    "bucket",
                    "pre",
                    options(URI.create(server.endpoint()))
                        .withRequestTimeout(Duration.ofSeconds(2))),
                ZaroOptions.defaults().withThreads(2).withIoConcurrency(1))) {
      zaro.array(""); // metadata read before the fault is queued
      int before = server.paths.size();
      server.fault(fault);
      ReadStats stats = new ReadStats();
      CompletableFuture<Void> read =
          CompletableFuture.runAsync(
              () -> zaro.read("", "", allocator, ReadOptions.DEFAULT.withStats(stats)).close());
      if (fault == Fault.HANG_BODY) {
        // one request at a time: while the held-back shard is the only one sent, a chunk decodes
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (stats.chunksDecoded() == 0 && !read.isDone() && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
        int sent = server.paths.size() - before;
        assertTrue(stats.chunksDecoded() > 0, "no inner chunk was decoded");
        assertEquals(1, sent, "a chunk was decoded only after another shard was requested");
      }
      ExecutionException wrapped =
          assertThrows(ExecutionException.class, () -> read.get(60, TimeUnit.SECONDS));
      ZaroException e = assertInstanceOf(ZaroException.class, wrapped.getCause());
      String path = server.paths.get(before); // the request that got the fault
      String key = path.substring("/bucket/pre/".length());
      assertTrue(e.getMessage().contains("'" + key + "'"), e.getMessage());
      assertTrue(
          e.kind() == ErrorKind.IO || e.kind() == ErrorKind.CORRUPT,
          e.kind() + " " + e.getMessage());
      assertEquals(
          1, server.paths.stream().filter(path::equals).count(), "sent again after streaming");
      assertEquals(0, server.pendingFaults());
    }
    assertEquals(0, allocator.getAllocatedMemory());
  }

  /** Cancelling mid-body, while the server holds the rest back, stops the request and frees it. */
  @Test
  void cancellingMidBodyFreesTheBuffer() throws Exception {
    Path root = served("start_gzip_uint16");
    long size = Files.size(root.resolve("c/0/0/0"));
    try (TestHttpServer server = new TestHttpServer(dir);
        S3Store s = new S3Store("bucket", "pre", options(URI.create(server.endpoint())))) {
      server.fault(Fault.HANG_BODY);
      AtomicLong told = new AtomicLong();
      CountDownLatch some = new CountDownLatch(1);
      CompletableFuture<Optional<ArrowBuf>> f = streamShard(s, told, some);
      assertTrue(some.await(20, TimeUnit.SECONDS), "no body bytes arrived");
      assertTrue(f.cancel(true));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (allocator.getAllocatedMemory() != 0 && System.nanoTime() < deadline) {
        Thread.sleep(1); // zaro's client frees the body on its I/O thread
      }
      assertEquals(0, allocator.getAllocatedMemory());
      assertTrue(told.get() > 0 && told.get() < size, "told of " + told.get());
    }
  }
}
