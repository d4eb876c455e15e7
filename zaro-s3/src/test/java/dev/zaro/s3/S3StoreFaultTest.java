package dev.zaro.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.TestHttpServer;
import dev.zaro.arrow.store.TestHttpServer.Fault;
import dev.zaro.remote.RetryOptions;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * S3Store against a loopback server that answers path-style GETs ({@code /bucket/key}, with ranges)
 * and injects faults: throttling and 5xx replies, bodies cut short or never finished. Each test's
 * allocator is closed after it, so a buffer left behind by a failed, retried or cancelled request
 * fails the test. Object GETs go through zaro's own HTTP/1.1 client here, through the SDK's client
 * in {@link S3StoreSdkFaultTest}.
 */
class S3StoreFaultTest extends AllocatorTest {
  @TempDir Path dir;
  TestHttpServer server;
  byte[] value;

  @BeforeEach
  void start() throws Exception {
    value = new byte[200_000];
    new Random(13).nextBytes(value);
    Files.createDirectories(dir.resolve("bucket/pre/a"));
    Files.write(dir.resolve("bucket/pre/a/b"), value);
    server = new TestHttpServer(dir);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  /** Whether object GETs go through the SDK's client. */
  boolean sdkGets() {
    return false;
  }

  /** How errors name key {@code a/b} of an S3 endpoint at {@code endpoint}. */
  private String named(String endpoint) {
    return sdkGets()
        ? "key 'a/b' (s3://bucket/pre/a/b)"
        : "key 'a/b' (" + endpoint + "/bucket/pre/a/b)";
  }

  /**
   * Every buffer is freed: at once through the SDK, soon through zaro's client, whose I/O thread
   * frees a cancelled or timed-out request's body.
   */
  private void assertFreed() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (allocator.getAllocatedMemory() != 0 && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    assertEquals(0, allocator.getAllocatedMemory());
  }

  private S3Store store(int attempts) {
    return new S3Store(
        "bucket",
        "pre",
        S3Options.DEFAULT
            .withEndpoint(URI.create(server.endpoint()), true)
            .withRegion("us-east-1")
            .withAnonymous(true)
            .withRequestTimeout(Duration.ofSeconds(5))
            .withRetries(attempts, Duration.ofMillis(1), Duration.ofMillis(20))
            .withSdkGets(sdkGets()));
  }

  private static byte[] bytes(ArrowBuf buf) {
    byte[] out = new byte[(int) buf.writerIndex()];
    buf.getBytes(0, out);
    return out;
  }

  private byte[] slice(long offset, long length) {
    return Arrays.copyOfRange(value, (int) offset, (int) (offset + length));
  }

  @Test
  void rangesLandInBuffersOfTheCallersAllocator() throws Exception {
    try (S3Store s = store(3)) {
      try (ArrowBuf buf = s.get("a/b", ByteRange.of(1000, 5000), allocator).orElseThrow()) {
        assertSame(allocator, buf.getReferenceManager().getAllocator());
        // one buffer, sized from the reply (the allocator rounds sizes up), no other allocation
        assertEquals(buf.capacity(), allocator.getAllocatedMemory());
        assertEquals(5000, buf.writerIndex());
        assertArrayEquals(slice(1000, 5000), bytes(buf));
      }
      try (ArrowBuf buf = s.get("a/b", ByteRange.suffix(777), allocator).orElseThrow()) {
        assertArrayEquals(slice(value.length - 777, 777), bytes(buf));
      }
      try (ArrowBuf buf = s.get("a/b", ByteRange.ALL, allocator).orElseThrow()) {
        assertArrayEquals(value, bytes(buf));
      }
      server.ignoreRange = true; // a server that sends the whole value: sliced
      try (ArrowBuf buf = s.get("a/b", ByteRange.of(10, 20), allocator).orElseThrow()) {
        assertArrayEquals(slice(10, 20), bytes(buf));
      }
    }
  }

  /**
   * A bucket in another region than the store's: S3's 301 PermanentRedirect names it in {@code
   * x-amz-bucket-region}, and the store reads it there (zaro's client: its GETs move to that region
   * for good; the SDK: its cross-region access), through the async path and through getBytes.
   */
  @Test
  void aBucketInAnotherRegionIsReadThere() throws Exception {
    server.fault(TestHttpServer.Fault.WRONG_REGION);
    try (S3Store s = store(1);
        ArrowBuf buf = s.get("a/b", ByteRange.of(10, 20), allocator).orElseThrow()) {
      assertArrayEquals(slice(10, 20), bytes(buf));
      assertEquals(sdkGets() ? "us-east-1" : "us-west-2", s.getsRegion());
      assertEquals(2, server.requests.get());
      try (ArrowBuf again = s.get("a/b", ByteRange.of(0, 5), allocator).orElseThrow()) {
        assertArrayEquals(slice(0, 5), bytes(again)); // no redirect this time
      }
      assertEquals(3, server.requests.get());
    }
    server.fault(TestHttpServer.Fault.WRONG_REGION);
    try (S3Store s = store(1)) {
      assertArrayEquals(value, s.getBytes("a/b").orElseThrow());
    }
    assertEquals(0, server.pendingFaults());
  }

  /**
   * A bucket that still answers 301 in the region it named: an error naming the key and S3's
   * reason, after one move (no loop).
   */
  @Test
  void aRedirectFromTheNamedRegionTooIsAnError() {
    server.fault(TestHttpServer.Fault.WRONG_REGION, TestHttpServer.Fault.WRONG_REGION);
    try (S3Store s = store(1)) {
      StoreException e =
          assertThrows(StoreException.class, () -> s.get("a/b", ByteRange.ALL, allocator));
      assertTrue(e.getMessage().contains(named(server.endpoint())), e.getMessage());
      assertTrue(e.getMessage().contains("301"), e.getMessage());
      if (!sdkGets()) { // S3's own words, from the reply's body
        assertTrue(
            e.getMessage().contains("PermanentRedirect: The bucket you are"), e.getMessage());
      }
      assertEquals(2, server.requests.get());
      assertEquals(0, server.pendingFaults());
    }
  }

  @Test
  void manyRequestsAreInFlightAtOnce() throws Exception {
    server.latencyMillis = 100;
    try (S3Store s = store(3)) {
      List<CompletableFuture<Optional<ArrowBuf>>> futures = new ArrayList<>();
      for (int i = 0; i < 32; i++) {
        futures.add(s.getAsync("a/b", ByteRange.of(i * 1000L, 1000), allocator, Runnable::run));
      }
      for (int i = 0; i < futures.size(); i++) {
        try (ArrowBuf buf = futures.get(i).get(30, TimeUnit.SECONDS).orElseThrow()) {
          assertArrayEquals(slice(i * 1000L, 1000), bytes(buf), "range " + i);
        }
      }
    }
    assertTrue(server.maxInFlight.get() > 8, "in flight at once: " + server.maxInFlight.get());
  }

  @Test
  void absentKeysAreEmpty() throws Exception {
    try (S3Store s = store(3)) {
      assertEquals(Optional.empty(), s.get("a/nope", ByteRange.of(0, 10), allocator));
      assertEquals(
          Optional.empty(),
          s.getAsync("nope", ByteRange.ALL, allocator, Runnable::run).get(30, TimeUnit.SECONDS));
      assertEquals(Optional.empty(), s.getBytes("a/nope"));
    }
    // 404 is not retried; through zaro's client the first absent key asks whether the bucket is
    assertEquals(sdkGets() ? 3 : 4, server.requests.get());
  }

  /**
   * A listing (two keys a page here) follows a reply naming the bucket's region (zaro's client: its
   * requests move there, as a GET's do) and retries throttling and server errors, page by page;
   * keys come back decoded (the server URL-encodes them, a space as {@code +}).
   */
  @Test
  void aListingFollowsTheBucketsRegionAndRetriesEachPage() throws Exception {
    for (String k : List.of("a/c", "b c+d/e", "z/zarr.json")) {
      Files.createDirectories(dir.resolve("bucket/pre/" + k).getParent());
      Files.write(dir.resolve("bucket/pre/" + k), new byte[] {1});
    }
    Files.createDirectories(dir.resolve("bucket/other"));
    Files.write(dir.resolve("bucket/other/x"), new byte[] {1});
    List<String> keys = List.of("a/b", "a/c", "b c+d/e", "z/zarr.json");
    try (S3Store s = store(4)) {
      s.listPageSize = 2;
      assertEquals(keys, s.list("").toList());
      server.fault(Fault.ERROR_503, Fault.TOO_MANY);
      assertEquals(keys, s.list("").toList());
      assertEquals(List.of("a/b", "a/c"), s.list("a/").toList());
      assertEquals(List.of(), s.list("nothing/").toList());
    }
    if (sdkGets()) {
      return; // the SDK's cross-region listing is its own
    }
    server.fault(Fault.WRONG_REGION);
    try (S3Store s = store(1)) {
      assertEquals(keys, s.list("").toList());
      assertEquals("us-west-2", s.getsRegion());
      assertEquals(0, server.pendingFaults());
    }
    // still redirected in the region named: an error with S3's reason, after one move
    server.fault(Fault.WRONG_REGION, Fault.WRONG_REGION);
    try (S3Store s = store(1)) {
      StoreException e = assertThrows(StoreException.class, () -> s.list("a/").toList());
      assertTrue(
          e.getMessage().startsWith("cannot list 'a/' in s3://bucket/pre")
              && e.getMessage().contains("HTTP 301; the server says: PermanentRedirect"),
          e.getMessage());
      assertEquals(0, server.pendingFaults());
    }
  }

  /**
   * A listing longer than a page, told to skip below arrays, walks the directories (a page of keys
   * and subdirectories each, retried as any request) and never lists an array's chunks (one that
   * fits a page is that page, everything in it: {@link S3StoreTest}).
   */
  @Test
  void aLongListingWalksDirectoriesAndLeavesArraysChunksOut() throws Exception {
    for (String k :
        List.of(
            "zarr.json",
            "g/zarr.json",
            "g/arr/zarr.json",
            "g/arr/c/0/0",
            "g/arr/c/0/1",
            "g/arr/c/1/0",
            "h/zarr.json",
            "h/c/0",
            "h/c/1")) {
      Files.createDirectories(dir.resolve("bucket/pre/" + k).getParent());
      Files.write(dir.resolve("bucket/pre/" + k), new byte[] {1});
    }
    List<String> asked = new ArrayList<>();
    Predicate<String> arrays =
        d -> {
          asked.add(d);
          return d.equals("g/arr") || d.equals("h");
        };
    try (S3Store s = store(3)) {
      s.listPageSize = 2;
      server.fault(Fault.ERROR_503);
      assertEquals(
          List.of("a/b", "g/arr/zarr.json", "g/zarr.json", "h/zarr.json", "zarr.json"),
          s.list("", arrays).toList());
      assertEquals(List.of("a", "g", "h", "g/arr"), asked);
      for (String q : server.queries) {
        assertTrue(!q.contains("prefix=pre%2Fg%2Farr%2Fc") && !q.contains("prefix=pre%2Fh%2Fc"), q);
      }
      assertEquals(10, s.list("").toList().size()); // without a skip, everything
    }
  }

  /** A listing of a bucket that is not there, or refuses: an error naming the prefix and bucket. */
  @Test
  void aListingOfAMissingOrRefusingBucketIsAClearError() throws Exception {
    Files.createDirectories(dir.resolve("private/pre"));
    for (String bucket : List.of("nothing", "private")) {
      try (S3Store s =
          new S3Store(
              bucket,
              "pre",
              S3Options.DEFAULT
                  .withEndpoint(URI.create(server.endpoint()), true)
                  .withRegion("us-east-1")
                  .withAnonymous(true)
                  .withRetries(1, Duration.ofMillis(1), Duration.ofMillis(1))
                  .withSdkGets(sdkGets()))) {
        StoreException e = assertThrows(StoreException.class, () -> s.list("a/").toList());
        assertTrue(
            e.getMessage().startsWith("cannot list 'a/' in s3://" + bucket + "/pre"),
            e.getMessage());
        assertTrue(
            e.getMessage()
                .contains(
                    bucket.equals("nothing")
                        ? "no such bucket 'nothing'"
                        : "access denied (HTTP 403)"),
            e.getMessage());
      }
    }
  }

  @Test
  void throttlingAndServerErrorsAreRetried() {
    server.fault(Fault.ERROR_503, Fault.TOO_MANY, Fault.ERROR_500);
    try (S3Store s = store(4);
        ArrowBuf buf = s.get("a/b", ByteRange.of(5, 100), allocator).orElseThrow()) {
      assertArrayEquals(slice(5, 100), bytes(buf));
    }
    assertEquals(4, server.requests.get());
  }

  @Test
  void persistentThrottlingIsAnErrorNamingTheKeyAfterTheRetries() {
    server.fault(Fault.ERROR_503, Fault.ERROR_503, Fault.ERROR_503, Fault.ERROR_503);
    try (S3Store s = store(3)) {
      StoreException e =
          assertThrows(StoreException.class, () -> s.get("a/b", ByteRange.of(0, 10), allocator));
      assertTrue(
          e.getMessage().contains(named(server.endpoint()))
              && e.getMessage().contains("HTTP 503")
              && e.getMessage().contains("3 attempts"),
          e.getMessage());
    }
    assertEquals(3, server.requests.get());
  }

  @Test
  void aBodyCutShortIsRetriedAndItsBufferReleased() {
    server.fault(Fault.TRUNCATE);
    try (S3Store s = store(3);
        ArrowBuf buf = s.get("a/b", ByteRange.of(0, 100_000), allocator).orElseThrow()) {
      assertArrayEquals(slice(0, 100_000), bytes(buf));
    }
    assertEquals(2, server.requests.get());
  }

  @Test
  void bodiesCutShortEveryTimeAreAnErrorAndLeakNothing() throws Exception {
    server.fault(Fault.TRUNCATE, Fault.TRUNCATE);
    try (S3Store s = store(2)) {
      StoreException e =
          assertThrows(
              StoreException.class, () -> s.get("a/b", ByteRange.of(0, 100_000), allocator));
      assertTrue(e.getMessage().contains("key 'a/b'"), e.getMessage());
    }
    assertFreed();
  }

  @Test
  void aBodyWithoutContentLengthGrowsIntoOneBuffer() throws Exception {
    server.fault(Fault.CHUNKED, Fault.CHUNKED);
    try (S3Store s = store(1)) {
      try (ArrowBuf buf = s.get("a/b", ByteRange.ALL, allocator).orElseThrow()) {
        assertArrayEquals(value, bytes(buf)); // 200,000 bytes: past the 64 KiB first guess
        assertEquals(buf.capacity(), allocator.getAllocatedMemory(), "one buffer left");
      }
      try (ArrowBuf buf = s.get("a/b", ByteRange.of(70_000, 90_000), allocator).orElseThrow()) {
        assertArrayEquals(slice(70_000, 90_000), bytes(buf));
      }
    }
    assertEquals(0, server.pendingFaults());
    assertFreed();
  }

  @Test
  void aWrongContentRangeOrABodyOfAnotherLengthIsAnErrorAndLeaksNothing() throws Exception {
    try (S3Store s = store(3)) {
      server.fault(Fault.WRONG_CONTENT_RANGE);
      StoreException e =
          assertThrows(StoreException.class, () -> s.get("a/b", ByteRange.of(10, 20), allocator));
      assertTrue(
          e.getMessage().contains(named(server.endpoint()))
              && e.getMessage().contains("asked for bytes 10..30")
              && e.getMessage().contains("Content-Range 'bytes 11-30/200000'"),
          e.getMessage());
      server.fault(Fault.WRONG_CONTENT_RANGE);
      assertThrows(StoreException.class, () -> s.get("a/b", ByteRange.suffix(10), allocator));
      for (Fault fault : List.of(Fault.LONG_BODY, Fault.SHORT_BODY)) {
        server.fault(fault);
        e = assertThrows(StoreException.class, () -> s.get("a/b", ByteRange.of(10, 20), allocator));
        assertTrue(
            e.getMessage().contains(named(server.endpoint()))
                && (!sdkGets()
                    || fault == Fault.LONG_BODY // refused as announced, before its body
                    || e.getMessage().contains("Content-Range 'bytes 10-29/200000'"))
                && e.getMessage()
                    .contains(
                        fault == Fault.LONG_BODY
                            ? "21 bytes"
                            : sdkGets() ? "19 bytes" : "19 of 20 bytes"),
            e.getMessage());
      }
    }
    // none is retried (the server answered, wrongly)
    assertEquals(0, server.pendingFaults());
    assertEquals(4, server.requests.get());
    assertFreed();
  }

  @Test
  void aReplyAnnouncingATerabyteIsRefusedBeforeAnythingIsAllocated() throws Exception {
    try (S3Store s = new S3Store("bucket", "pre", store(1).options().withMaxObjectSize(1 << 20));
        BufferAllocator watched = allocator.newChildAllocator("watched", 0, Long.MAX_VALUE)) {
      server.fault(Fault.HUGE_LENGTH);
      StoreException e =
          assertThrows(StoreException.class, () -> s.get("a/b", ByteRange.ALL, watched));
      assertTrue(
          e.getMessage().contains("key 'a/b'")
              && e.getMessage().contains("announces 1099511627776 bytes")
              && e.getMessage().contains("1048576 bytes (--max-object-size)"),
          e.getMessage());
      server.fault(Fault.HUGE_LENGTH);
      e = assertThrows(StoreException.class, () -> s.get("a/b", ByteRange.of(10, 20), watched));
      assertTrue(e.getMessage().contains("the 20-byte range asked for"), e.getMessage());
      assertEquals(0, watched.getPeakMemoryAllocation());
      // the next reads work (the whole value is within the cap)
      try (ArrowBuf whole = s.get("a/b", ByteRange.ALL, allocator).orElseThrow()) {
        assertArrayEquals(value, bytes(whole));
      }
    }
    assertFreed();
  }

  @Test
  void aBodyThatNeverEndsTimesOut() throws Exception {
    server.fault(Fault.HANG_BODY);
    try (S3Store s =
        new S3Store(
            "bucket", "pre", store(1).options().withRequestTimeout(Duration.ofMillis(500)))) {
      StoreException e =
          assertThrows(StoreException.class, () -> s.get("a/b", ByteRange.ALL, allocator));
      assertTrue(e.getMessage().contains("key 'a/b'"), e.getMessage());
    }
    assertFreed();
  }

  @Test
  void cancellingARequestReleasesItsPartialBuffer() throws Exception {
    server.fault(Fault.HANG_BODY);
    try (S3Store s = store(1)) {
      CompletableFuture<Optional<ArrowBuf>> f =
          s.getAsync("a/b", ByteRange.ALL, allocator, Runnable::run);
      // half the body arrives, then the server stalls: wait until the buffer is being filled
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (allocator.getAllocatedMemory() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertTrue(allocator.getAllocatedMemory() >= value.length, "one buffer for the whole body");
      assertTrue(f.cancel(true));
      assertFreed();
      assertThrows(CancellationException.class, f::join);
    }
  }

  @Test
  void aCancelledRequestsLateBodyIsReleased() throws Exception {
    server.latencyMillis = 300;
    try (S3Store s = store(1)) {
      CompletableFuture<Optional<ArrowBuf>> f =
          s.getAsync("a/b", ByteRange.ALL, allocator, Runnable::run);
      assertTrue(f.cancel(true));
      // a later request on the same store still reads
      try (ArrowBuf buf = s.get("a/b", ByteRange.of(0, 3), allocator).orElseThrow()) {
        assertArrayEquals(slice(0, 3), bytes(buf));
      }
      assertThrows(CancellationException.class, f::get);
    }
    assertFreed();
  }

  @Test
  void aStalledGetIsHedgedAndTheCopyAnswers() throws Exception {
    // one attempt, a 30 s deadline: only a hedge (the policy HTTP shares) can answer a request the
    // server never answers
    try (S3Store s =
        new S3Store(
            "bucket",
            "pre",
            store(1)
                .options()
                .withRetries(1, Duration.ofMillis(10), Duration.ofMillis(10))
                .withRequestTimeout(Duration.ofSeconds(30)))) {
      for (int i = 0; i < 40; i++) { // recent latencies: milliseconds, so the 100 ms floor rules
        try (ArrowBuf buf = s.get("a/b", ByteRange.of(i, 10), allocator).orElseThrow()) {
          assertArrayEquals(slice(i, 10), bytes(buf));
        }
      }
      // (a loaded machine may have hedged one of those already: count from here)
      long hedges = s.hedges();
      int requests = server.requests.get();
      server.fault(Fault.HANG);
      try (ArrowBuf buf = s.get("a/b", ByteRange.of(1000, 5000), allocator).orElseThrow()) {
        assertArrayEquals(slice(1000, 5000), bytes(buf));
      }
      assertEquals(hedges + 1, s.hedges());
      assertTrue(server.requests.get() >= requests + 2, "the stalled one and its hedge");
    }
    assertFreed();
  }

  @Test
  void hedgingCanBeTurnedOff() {
    try (S3Store s =
        new S3Store(
            "bucket",
            "pre",
            store(1).options().withHedging(false).withRequestTimeout(Duration.ofSeconds(2)))) {
      // enough history that a hedge would go out after 3 x p95 (100 ms or so), well before 2 s
      for (int i = 0; i < 20; i++) {
        try (ArrowBuf buf = s.get("a/b", ByteRange.of(i, 10), allocator).orElseThrow()) {
          assertArrayEquals(slice(i, 10), bytes(buf));
        }
      }
      server.fault(Fault.HANG);
      StoreException e =
          assertThrows(StoreException.class, () -> s.get("a/b", ByteRange.ALL, allocator));
      assertTrue(
          e.getMessage().contains("key 'a/b'") && e.getMessage().contains("for 2000 ms"),
          e.getMessage());
      assertEquals(0, s.hedges());
    }
    assertEquals(21, server.requests.get());
  }

  @Test
  void throttlingBringsTheLimitOfRequestsInFlightDown() throws Exception {
    // a host that takes 6 requests at once and answers 503 to the others at once: the limit the
    // HTTP store shares (AIMD per host) halves on them and settles near 6, so few are refused
    server.latencyMillis = 20;
    server.overloadAbove = 6;
    int n = 240;
    List<CompletableFuture<Optional<ArrowBuf>>> futures = new ArrayList<>();
    try (S3Store s =
        new S3Store(
            "bucket",
            "pre",
            store(4)
                .options()
                .withRetries(4, Duration.ofMillis(10), Duration.ofMillis(50))
                .withMaxConnections(32))) {
      for (int i = 0; i < n; i++) {
        futures.add(s.getAsync("a/b", ByteRange.of(i * 16L, 16), allocator, Runnable::run));
      }
      for (int i = 0; i < n; i++) {
        try (ArrowBuf buf = futures.get(i).get(60, TimeUnit.SECONDS).orElseThrow()) {
          assertArrayEquals(slice(i * 16L, 16), bytes(buf), "range " + i);
        }
      }
    }
    // a fixed 16 in flight would have had ~10 of every 16 refused; the limit came down instead
    int refused = server.overloaded.get();
    assertTrue(refused < n / 4, refused + " of " + n + " requests refused");
    int peak = server.peakInFlightOfLaterHalf();
    assertTrue(peak <= 6 + 3, "in flight after backing off: " + peak);
  }

  /**
   * A loopback endpoint that answers S3's own throttling reply ({@code 503} with an XML error body
   * whose code is {@code SlowDown}) to the first {@code slowDowns} requests, then serves {@code
   * value} as every key (whole, ranges ignored). Returns the server; the caller stops it.
   */
  private HttpServer slowDownServer(int slowDowns, AtomicInteger requests) throws Exception {
    HttpServer s =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    s.createContext(
        "/",
        ex -> {
          try (ex) {
            byte[] body;
            if (requests.incrementAndGet() <= slowDowns) {
              body =
                  ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code>"
                          + "<Message>Please reduce your request rate.</Message></Error>")
                      .getBytes(StandardCharsets.UTF_8);
              ex.getResponseHeaders().set("Content-Type", "application/xml");
              ex.sendResponseHeaders(503, body.length);
            } else {
              body = value;
              ex.sendResponseHeaders(200, body.length);
            }
            ex.getResponseBody().write(body);
          }
        });
    s.start();
    return s;
  }

  private S3Store slowDownStore(HttpServer s, int attempts) {
    return new S3Store(
        "bucket",
        "pre",
        store(attempts)
            .options()
            .withEndpoint(URI.create("http://127.0.0.1:" + s.getAddress().getPort()), true));
  }

  @Test
  void s3SlowDownRepliesAreRetried() throws Exception {
    AtomicInteger requests = new AtomicInteger();
    HttpServer s = slowDownServer(2, requests);
    try (S3Store store = slowDownStore(s, 3);
        ArrowBuf buf = store.get("a/b", ByteRange.ALL, allocator).orElseThrow()) {
      assertArrayEquals(value, bytes(buf));
    } finally {
      s.stop(0);
    }
    assertEquals(3, requests.get());
  }

  @Test
  void persistentSlowDownNamesTheKeyTheCodeAndTheAttempts() throws Exception {
    AtomicInteger requests = new AtomicInteger();
    HttpServer s = slowDownServer(Integer.MAX_VALUE, requests);
    try (S3Store store = slowDownStore(s, 3)) {
      StoreException e =
          assertThrows(StoreException.class, () -> store.get("a/b", ByteRange.ALL, allocator));
      assertTrue(
          e.getMessage().contains(named("http://127.0.0.1:" + s.getAddress().getPort()))
              && e.getMessage().contains(sdkGets() ? "HTTP 503 SlowDown" : "HTTP 503")
              && e.getMessage().contains("3 attempts"),
          e.getMessage());
    } finally {
      s.stop(0);
    }
    assertEquals(3, requests.get());
  }

  @Test
  void urlOptionsSetConnectionsRetriesAndTimeouts() {
    try (S3Store s =
        S3Store.open(
            "s3://bucket/pre?anonymous=true&endpoint="
                + server.endpoint()
                + "&max_connections=8&max_attempts=2&request_timeout=1.5")) {
      assertEquals(8, s.options().maxConnections());
      assertEquals(2, s.options().retry().maxAttempts());
      assertEquals(Duration.ofMillis(1500), s.options().retry().requestTimeout());
      assertEquals(
          RetryOptions.DEFAULT
              .withRetries(2, Duration.ofMillis(100), Duration.ofSeconds(5))
              .withRequestTimeout(Duration.ofMillis(1500)),
          s.options().retry(),
          "the other timeouts and backoffs keep their defaults");
    }
    StoreException e =
        assertThrows(StoreException.class, () -> S3Store.open("s3://bucket?max_attempts=zero"));
    assertTrue(e.getMessage().contains("max_attempts=zero"), e.getMessage());
  }
}
