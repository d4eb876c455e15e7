package dev.zaro.remote;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.GroupMetadata;
import dev.zaro.arrow.read.Node;
import dev.zaro.arrow.store.AbstractStoreTest;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.Stores;
import dev.zaro.arrow.store.TestHttpServer;
import dev.zaro.arrow.store.TestHttpServer.Fault;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLContext;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HttpStoreTest extends AbstractStoreTest {
  @TempDir Path dir;
  TestHttpServer server;

  /** Fast retries and short deadlines, so fault tests run quickly. */
  static final HttpOptions FAST =
      HttpOptions.DEFAULT
          .withRetries(4, Duration.ofMillis(10), Duration.ofMillis(50))
          .withRequestTimeout(Duration.ofMillis(1500));

  @Override
  protected Store createStore(Map<String, byte[]> contents) throws Exception {
    Path root = dir.resolve("www");
    for (var e : contents.entrySet()) {
      Path file = root.resolve("data").resolve(e.getKey());
      Files.createDirectories(file.getParent());
      Files.write(file, e.getValue());
    }
    Files.createDirectories(root.resolve("private"));
    Files.writeString(root.resolve("private/zarr.json"), "{}");
    server = new TestHttpServer(root, serverTls());
    return new HttpStore(server.url("data"), FAST);
  }

  /** The server's TLS context, or null for plain http ({@link HttpsStoreTest} serves https). */
  SSLContext serverTls() {
    return null;
  }

  @AfterEach
  void stopServer() {
    server.close();
  }

  private byte[] get(Store s, String key, ByteRange range) {
    try (ArrowBuf buf = s.get(key, range, allocator).orElseThrow()) {
      byte[] out = new byte[(int) buf.writerIndex()];
      buf.getBytes(0, out);
      return out;
    }
  }

  /** Runs {@code body} with {@code -Dzaro.http.client=client}, the property restored after. */
  private static void withClient(String client, Executable body) throws Throwable {
    String before = System.getProperty("zaro.http.client");
    System.setProperty("zaro.http.client", client);
    try {
      body.execute();
    } finally {
      if (before == null) {
        System.clearProperty("zaro.http.client");
      } else {
        System.setProperty("zaro.http.client", before);
      }
    }
  }

  private static void assertMentions(Throwable e, String... parts) {
    for (String p : parts) {
      assertTrue(e.getMessage().contains(p), "'" + p + "' not in: " + e.getMessage());
    }
  }

  @Test
  void sendsRangeHeaders() {
    get(store, "a/c/0/0", ByteRange.of(10, 20));
    get(store, "a/c/0/0", ByteRange.suffix(16));
    get(store, "a/c/0/0", ByteRange.ALL);
    assertEquals(List.of("bytes=10-29", "bytes=-16", ""), server.rangeHeaders);
  }

  @Test
  void aServerThatIgnoresRangeIsSliced() {
    server.ignoreRange = true;
    byte[] all = CONTENTS.get("a/c/0/0");
    assertArrayEquals(Arrays.copyOfRange(all, 10, 30), get(store, "a/c/0/0", ByteRange.of(10, 20)));
    assertArrayEquals(
        Arrays.copyOfRange(all, 90, 100), get(store, "a/c/0/0", ByteRange.suffix(10)));
    StoreException e =
        assertThrows(
            StoreException.class, () -> store.get("a/c/0/1", ByteRange.of(5, 10), allocator));
    assertMentions(e, "a/c/0/1", server.url("data/a/c/0/1").toString());
  }

  @Test
  void retriesServerErrorsAndTooManyRequests() {
    server.fault(Fault.ERROR_500, Fault.TOO_MANY, Fault.ERROR_503);
    assertArrayEquals(CONTENTS.get("a/c/0/0"), get(store, "a/c/0/0", ByteRange.ALL));
    assertEquals(4, server.requests.get());
    server.fault(Fault.ERROR_500);
    assertArrayEquals(CONTENTS.get("zarr.json"), store.getBytes("zarr.json").orElseThrow());
  }

  @Test
  void givesUpAfterABoundedNumberOfAttempts() {
    server.fault(
        Fault.ERROR_500, Fault.ERROR_500, Fault.ERROR_500, Fault.ERROR_500, Fault.ERROR_500);
    StoreException e =
        assertThrows(StoreException.class, () -> store.get("a/c/0/0", ByteRange.ALL, allocator));
    assertMentions(e, "a/c/0/0", server.url("data/a/c/0/0").toString(), "HTTP 500", "4 attempts");
    assertEquals(4, server.requests.get());
    assertEquals(1, server.pendingFaults());
  }

  /**
   * An error reply's body is quoted in the message: an S3-style error's code and message, a text
   * body on one line; a binary one is not quoted. The connection stays usable after each. Through
   * zaro's own client and through {@code java.net.http} (what https uses).
   */
  @ParameterizedTest
  @ValueSource(strings = {"zaro", "jdk"})
  void anErrorsMessageQuotesWhatTheServerSaid(String client) throws Throwable {
    var once = HttpOptions.DEFAULT.withRetries(1, Duration.ofMillis(1), Duration.ofMillis(1));
    withClient(client, () -> quotesWhatTheServerSaid(once));
    assertEquals(0, allocator.getAllocatedMemory());
  }

  private void quotesWhatTheServerSaid(HttpOptions once) {
    try (HttpStore s = new HttpStore(server.url("data"), once)) {
      server.fault(Fault.DENIED_XML);
      StoreException denied =
          assertThrows(StoreException.class, () -> s.get("a/c/0/0", ByteRange.ALL, allocator));
      assertMentions(
          denied,
          "access denied (HTTP 403)",
          "the server says: SignatureDoesNotMatch: The request signature we calculated does not"
              + " match the signature you provided.");
      server.fault(Fault.ERROR_500_TEXT);
      StoreException text =
          assertThrows(StoreException.class, () -> s.get("a/c/0/0", ByteRange.ALL, allocator));
      assertMentions(text, "HTTP 500", "; the server says: disk on fire try again later");
      server.fault(Fault.ERROR_500_BINARY);
      StoreException binary =
          assertThrows(StoreException.class, () -> s.get("a/c/0/0", ByteRange.ALL, allocator));
      assertMentions(binary, "HTTP 500");
      assertFalse(binary.getMessage().contains("the server says"), binary.getMessage());
      assertArrayEquals(CONTENTS.get("a/c/0/0"), get(s, "a/c/0/0", ByteRange.ALL));
    }
  }

  /**
   * A zero-length range (a {@code HEAD}) and a whole URL's reply ({@link HttpStore#fetch}, {@link
   * HttpStore#headAsync}: listing APIs, a bucket's existence) through zaro's own client, where
   * {@code java.net.http}'s is never made, and through {@code java.net.http}: the same answers.
   */
  @ParameterizedTest
  @ValueSource(strings = {"zaro", "jdk"})
  void headsAndWholeRepliesGoThroughTheClientAsked(String client) throws Throwable {
    withClient(client, () -> headsAndWholeReplies(client));
    assertEquals(0, allocator.getAllocatedMemory());
  }

  private void headsAndWholeReplies(String client) throws Exception {
    try (HttpStore s = new HttpStore(server.url("data"), FAST)) {
      try (ArrowBuf none = s.get("a/c/0/0", ByteRange.of(7, 0), allocator).orElseThrow()) {
        assertEquals(0, none.writerIndex());
      }
      assertTrue(s.get("a/c/9/9", ByteRange.of(0, 0), allocator).isEmpty());
      assertThrows(StoreException.class, () -> s.get("a/c/0/0", ByteRange.of(1000, 0), allocator));
      Fetched page = s.fetch(server.url("data/a/c/0/0"), "a page");
      assertEquals(200, page.status());
      assertArrayEquals(CONTENTS.get("a/c/0/0"), page.body());
      assertEquals(
          String.valueOf(CONTENTS.get("a/c/0/0").length), page.header("content-LENGTH").get());
      assertEquals(404, s.fetch(server.url("data/a/c/9/9"), "a page").status());
      server.fault(Fault.DENIED_XML);
      Fetched denied = s.fetch(server.url("data/a/c/0/0"), "a page");
      assertEquals(403, denied.status());
      assertTrue(
          new String(denied.body(), StandardCharsets.UTF_8).contains("SignatureDoesNotMatch"));
      if (client.equals("zaro")) { // java.net.http's replies keep no error text apart
        assertTrue(denied.serverSays().contains("SignatureDoesNotMatch"), denied.serverSays());
      }
      assertEquals(200, s.headAsync(server.url("data/a/c/0/0"), "a head").get().status());
      assertEquals(404, s.headAsync(server.url("data/a/c/9/9"), "a head").get().status());
      assertEquals(client.equals("jdk"), s.jdkClientMade());
    }
  }

  /**
   * Redirects are followed as java.net.http follows them, relative and absolute, with the range
   * kept: a store whose base URL moved reads the same bytes.
   */
  @Test
  void redirectsAreFollowedWithTheirRange() {
    for (String base : List.of("moved/data", "elsewhere/data")) {
      try (HttpStore s = new HttpStore(server.url(base), FAST)) {
        assertArrayEquals(CONTENTS.get("a/c/0/0"), s.getBytes("a/c/0/0").orElseThrow());
        assertArrayEquals(
            Arrays.copyOfRange(CONTENTS.get("a/c/0/0"), 10, 30),
            get(s, "a/c/0/0", ByteRange.of(10, 20)));
        assertTrue(s.get("nope", ByteRange.ALL, allocator).isEmpty());
      }
    }
    assertEquals(0, allocator.getAllocatedMemory());
  }

  @Test
  void endlessRedirectsAreAClearErrorNamingTheKey() {
    try (HttpStore s = new HttpStore(server.url("loop/data"), FAST)) {
      StoreException e =
          assertThrows(StoreException.class, () -> s.get("a/c/0/0", ByteRange.ALL, allocator));
      assertMentions(
          e, "key 'a/c/0/0'", "more than " + Http1Redirects.MAX_REDIRECTS + " redirects");
    }
    assertEquals(Http1Redirects.MAX_REDIRECTS + 1, server.requests.get()); // and not retried
  }

  @Test
  void forbiddenIsAClearErrorNamingTheUrl() {
    try (HttpStore s = new HttpStore(server.url(""), FAST)) {
      StoreException e =
          assertThrows(
              StoreException.class, () -> s.get("private/zarr.json", ByteRange.ALL, allocator));
      assertMentions(e, "access denied (HTTP 403)", server.url("private/zarr.json").toString());
      assertThrows(StoreException.class, () -> s.getBytes("private/zarr.json"));
    }
    assertEquals(2, server.requests.get()); // 403 is not retried
  }

  @Test
  void aHangingServerTimesOutWithAClearError() {
    var opts =
        FAST.withRequestTimeout(Duration.ofMillis(300))
            .withRetries(2, Duration.ofMillis(10), Duration.ofMillis(10));
    try (HttpStore s = new HttpStore(server.url("data"), opts)) {
      server.fault(Fault.HANG, Fault.HANG);
      long t0 = System.nanoTime();
      StoreException e =
          assertThrows(StoreException.class, () -> s.get("a/c/0/0", ByteRange.ALL, allocator));
      assertMentions(e, "a/c/0/0", "no bytes from", "for 300 ms", "2 attempts");
      assertTrue(System.nanoTime() - t0 < 5e9, "took " + (System.nanoTime() - t0) / 1e6 + " ms");
      server.fault(Fault.HANG_BODY, Fault.HANG_BODY);
      e =
          assertThrows(
              StoreException.class, () -> s.get("a/c/0/0", ByteRange.of(0, 50), allocator));
      assertMentions(e, "a/c/0/0", "no bytes from");
      // a hang once, then a reply: the retry succeeds
      server.fault(Fault.HANG_BODY);
      assertArrayEquals(CONTENTS.get("a/c/0/0"), get(s, "a/c/0/0", ByteRange.ALL));
    }
  }

  @Test
  void truncatedBodiesAreRetriedThenAnError() {
    server.fault(Fault.TRUNCATE);
    assertArrayEquals(CONTENTS.get("a/c/0/0"), get(store, "a/c/0/0", ByteRange.ALL));
    server.fault(Fault.TRUNCATE, Fault.TRUNCATE, Fault.TRUNCATE, Fault.TRUNCATE);
    StoreException e =
        assertThrows(
            StoreException.class, () -> store.get("a/c/0/0", ByteRange.of(0, 40), allocator));
    assertMentions(e, "a/c/0/0", server.url("data/a/c/0/0").toString());
  }

  @Test
  void aWrongContentRangeIsAnError() {
    server.fault(Fault.WRONG_CONTENT_RANGE);
    StoreException e =
        assertThrows(
            StoreException.class, () -> store.get("a/c/0/0", ByteRange.of(10, 20), allocator));
    assertMentions(e, "a/c/0/0", "Content-Range 'bytes 11-30/100'", "bytes 10..30");
    server.fault(Fault.WRONG_CONTENT_RANGE);
    assertThrows(StoreException.class, () -> store.get("a/c/0/0", ByteRange.suffix(10), allocator));
  }

  @Test
  void aBodyLongerOrShorterThanAnnouncedIsAnErrorNamingKeyAndUrl() {
    String url = server.url("data/a/c/0/0").toString();
    server.fault(Fault.LONG_BODY);
    StoreException e =
        assertThrows(
            StoreException.class, () -> store.get("a/c/0/0", ByteRange.of(10, 20), allocator));
    assertMentions(e, "a/c/0/0", url, "announces 21 bytes, more than the 20-byte range asked for");
    server.fault(Fault.SHORT_BODY);
    e =
        assertThrows(
            StoreException.class, () -> store.get("a/c/0/0", ByteRange.of(10, 20), allocator));
    assertMentions(e, "a/c/0/0", url, "19 of 20 bytes");
    // neither is retried (the server answered, wrongly), and no buffer is left behind
    assertEquals(0, server.pendingFaults());
    assertEquals(0, allocator.getAllocatedMemory());
  }

  @Test
  void bodiesOfUnknownLengthGrowIntoOneBuffer() throws Exception {
    byte[] big = bytes(5, 200_000);
    Files.write(dir.resolve("www/data/big"), big);
    server.fault(Fault.CHUNKED);
    try (ArrowBuf buf = store.get("big", ByteRange.ALL, allocator).orElseThrow()) {
      byte[] out = new byte[(int) buf.writerIndex()];
      buf.getBytes(0, out);
      assertArrayEquals(big, out);
      // one buffer (rounded up to a power of two by the allocator), the smaller ones freed
      assertEquals(262_144, allocator.getAllocatedMemory());
    }
    server.fault(Fault.CHUNKED);
    assertArrayEquals(
        Arrays.copyOfRange(big, 150_000, 150_100), get(store, "big", ByteRange.of(150_000, 100)));
  }

  @Test
  void retriesFreeTheBodiesOfFailedAttempts() {
    server.fault(Fault.TRUNCATE, Fault.HANG_BODY);
    var opts = FAST.withRequestTimeout(Duration.ofMillis(300));
    try (HttpStore s = new HttpStore(server.url("data"), opts)) {
      assertArrayEquals(
          Arrays.copyOfRange(CONTENTS.get("a/c/0/0"), 4, 64),
          get(s, "a/c/0/0", ByteRange.of(4, 60)));
    }
    assertEquals(3, server.requests.get());
    assertEquals(0, allocator.getAllocatedMemory());
  }

  @Test
  void zeroLengthRangesCheckExistenceAndSize() {
    assertEquals(0, get(store, "a/c/0/1", ByteRange.of(10, 0)).length);
    assertEquals(0, get(store, "a/c/0/1", ByteRange.suffix(0)).length);
    assertEquals(Optional.empty(), store.get("nope", ByteRange.of(0, 0), allocator));
    assertThrows(StoreException.class, () -> store.get("a/c/0/1", ByteRange.of(11, 0), allocator));
  }

  @Test
  void reusesConnections() {
    for (int i = 0; i < 30; i++) {
      get(store, "a/c/0/0", ByteRange.of(i, 10));
    }
    assertTrue(server.clientPorts.size() <= 2, "connections: " + server.clientPorts.size());
  }

  /**
   * 32 requests at once: the client keeps at least 16 of them in flight (its first limit per host).
   * The server answers none until 16 have arrived, so the count does not depend on how fast this
   * machine does 16 TLS handshakes (a fixed 200 ms reply delay did: under load the first replies
   * went out before the last connections were up).
   */
  @Test
  void keepsManyRequestsInFlight() throws Exception {
    server.holdUntilInFlight(16);
    List<CompletableFuture<Optional<ArrowBuf>>> futures = new ArrayList<>();
    for (int i = 0; i < 32; i++) {
      futures.add(store.getAsync("a/c/0/0", ByteRange.of(i, 8), allocator, Runnable::run));
    }
    for (int i = 0; i < 32; i++) {
      try (ArrowBuf buf = futures.get(i).get().orElseThrow()) {
        assertEquals(8, buf.writerIndex());
        assertEquals(CONTENTS.get("a/c/0/0")[i], buf.getByte(0));
      }
    }
    assertTrue(server.maxInFlight.get() >= 16, "in flight at most " + server.maxInFlight.get());
  }

  /**
   * A GET cancelled before its reply (no arrivals asked for) stops, and the body that would have
   * come is freed: nothing stays allocated once the I/O thread is done with it, and a later request
   * still reads.
   */
  @Test
  void aCancelledGetFreesItsBody() throws Exception {
    server.latencyMillis = 300;
    CompletableFuture<Optional<ArrowBuf>> f =
        store.getAsync("a/c/0/0", ByteRange.ALL, allocator, Runnable::run);
    assertTrue(f.cancel(true));
    server.latencyMillis = 0;
    assertArrayEquals(
        Arrays.copyOfRange(CONTENTS.get("a/c/0/0"), 0, 3),
        get(store, "a/c/0/0", ByteRange.of(0, 3)));
    while (server.inFlight.get() != 0) { // the server has sent (or failed to send) the reply
      Thread.sleep(1);
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (allocator.getAllocatedMemory() != 0 && System.nanoTime() < deadline) {
      Thread.sleep(1); // the I/O thread frees it
    }
    assertEquals(0, allocator.getAllocatedMemory());
  }

  @Test
  void backsOffAHostThatAnswers503AboveItsCapacity() throws Exception {
    byte[] big = bytes(9, 4096);
    Files.write(dir.resolve("www/data/big"), big);
    server.latencyMillis = 20;
    server.overloadAbove = 6;
    int n = 240;
    List<CompletableFuture<Optional<ArrowBuf>>> futures = new ArrayList<>();
    try (HttpStore s = new HttpStore(server.url("data"), FAST.withMaxRequests(32))) {
      for (int i = 0; i < n; i++) {
        futures.add(s.getAsync("big", ByteRange.of(i * 16L, 16), allocator, Runnable::run));
      }
      for (int i = 0; i < n; i++) {
        try (ArrowBuf buf = futures.get(i).get().orElseThrow()) {
          byte[] out = new byte[16];
          buf.getBytes(0, out);
          assertArrayEquals(Arrays.copyOfRange(big, i * 16, i * 16 + 16), out, "range " + i);
        }
      }
    }
    // a fixed 16 in flight would have had ~10 of every 16 refused; the limit came down instead
    int refused = server.overloaded.get();
    assertTrue(refused < n / 4, refused + " of " + n + " requests refused");
    int peak = server.peakInFlightOfLaterHalf();
    assertTrue(peak <= 6 + 3, "in flight after backing off: " + peak);
  }

  @Test
  void aStalledRequestIsHedgedAndTheCopyAnswers() throws Exception {
    // one attempt, a 30 s deadline: only a hedge can answer a request the server never answers
    var opts = HttpOptions.DEFAULT.withRetries(1, Duration.ofMillis(10), Duration.ofMillis(10));
    try (HttpStore s = new HttpStore(server.url("data"), opts)) {
      for (int i = 0; i < 40; i++) { // recent latencies: milliseconds, so the 100 ms floor rules
        assertArrayEquals(
            Arrays.copyOfRange(CONTENTS.get("a/c/0/0"), i, i + 10),
            get(s, "a/c/0/0", ByteRange.of(i, 10)));
      }
      // a loaded machine can hold a warm-up reply past the hedge delay (a copy then answers it
      // too), so what follows counts from here rather than assume none did
      long hedged = s.hedges();
      int sent = server.requests.get();
      server.fault(Fault.HANG);
      assertArrayEquals(CONTENTS.get("a/c/0/0"), get(s, "a/c/0/0", ByteRange.ALL));
      assertEquals(hedged + 1, s.hedges());
      assertEquals(sent + 2, server.requests.get(), "the stalled request and its hedge");
    }
    assertEquals(0, allocator.getAllocatedMemory());
  }

  /**
   * A whole value copied to the heap ({@code getBytes}, a listing's page) whose first attempt
   * stalls halfway through its body is answered by the retry; the stalled attempt's partial body,
   * freed by the I/O thread when it gets to it, fails nothing.
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aWholeValueWhoseFirstAttemptStallsMidBodyIsRetried(boolean listingPage) {
    var opts = FAST.withRetries(2, Duration.ofMillis(1), Duration.ofMillis(1));
    try (HttpStore s =
        new HttpStore(server.url("data"), opts.withRequestTimeout(Duration.ofMillis(300)))) {
      for (int round = 0; round < 3; round++) {
        server.fault(Fault.HANG_BODY);
        byte[] got =
            listingPage
                ? s.fetch(server.url("data/a/c/0/0"), "a page").body()
                : s.getBytes("a/c/0/0").orElseThrow();
        assertArrayEquals(CONTENTS.get("a/c/0/0"), got);
      }
      assertEquals(6, server.requests.get());
    }
    assertEquals(0, allocator.getAllocatedMemory());
  }

  @Test
  void aRequestWaitingForTheHostLimitIsNotHedged() throws Exception {
    // one request in flight at a time: after a history of replies in 60 ms the hedge delay is 3 x
    // p95, ~180 ms; then replies come after 10 ms, so a started request answers well within it,
    // while the last of 40 sent together waits ~400 ms for its turn (a copy would only have queued
    // behind it)
    var opts =
        HttpOptions.DEFAULT
            .withRetries(1, Duration.ofMillis(10), Duration.ofMillis(10))
            .withMaxRequests(1);
    byte[] chunk = CONTENTS.get("a/c/0/0");
    try (HttpStore s = new HttpStore(server.url("data"), opts)) {
      // the latency history: 20 quick replies (the cold first one among them), then 20 after 60
      // ms, so the 95th percentile of the 40 is one of the latter
      for (int i = 0; i < 40; i++) {
        server.latencyMillis = i < 20 ? 0 : 60;
        assertArrayEquals(
            Arrays.copyOfRange(chunk, i, i + 10), get(s, "a/c/0/0", ByteRange.of(i, 10)));
      }
      long hedged = s.hedges();
      int sent = server.requests.get();
      server.latencyMillis = 10;
      List<CompletableFuture<Optional<ArrowBuf>>> futures = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        futures.add(s.getAsync("a/c/0/0", ByteRange.of(i, 10), allocator, Runnable::run));
      }
      for (int i = 0; i < 40; i++) {
        try (ArrowBuf buf = futures.get(i).get().orElseThrow()) {
          byte[] out = new byte[10];
          buf.getBytes(0, out);
          assertArrayEquals(Arrays.copyOfRange(chunk, i, i + 10), out, "range " + i);
        }
      }
      assertEquals(hedged, s.hedges(), "no copies of queued requests");
      assertEquals(sent + 40, server.requests.get());
      assertEquals(1, server.maxInFlight.get());
    }
    assertEquals(0, allocator.getAllocatedMemory());
  }

  @Test
  void hedgingIsBoundedAndCanBeTurnedOff() throws Exception {
    var opts =
        HttpOptions.DEFAULT
            .withRetries(1, Duration.ofMillis(10), Duration.ofMillis(10))
            .withRequestTimeout(Duration.ofMillis(400));
    try (HttpStore off = new HttpStore(server.url("data"), opts.withHedging(false))) {
      for (int i = 0; i < 20; i++) {
        get(off, "a/c/0/0", ByteRange.of(i, 10));
      }
      server.fault(Fault.HANG);
      assertThrows(StoreException.class, () -> off.get("a/c/0/0", ByteRange.ALL, allocator));
      assertEquals(0, off.hedges());
    }
    try (HttpStore s = new HttpStore(server.url("data"), opts)) {
      for (int i = 0; i < 20; i++) {
        get(s, "a/c/0/0", ByteRange.of(i, 10));
      }
      // 22 requests allow 2 + 22 / 20 = 3 hedges: the fourth stall in a row gets none
      for (int i = 0; i < 4; i++) {
        server.fault(Fault.HANG, Fault.HANG);
        assertThrows(StoreException.class, () -> s.get("a/c/0/0", ByteRange.ALL, allocator));
      }
      assertEquals(3, s.hedges());
    }
  }

  @Test
  void getIntoWritesInPlace() {
    try (ArrowBuf target = allocator.buffer(64)) {
      assertEquals(20, store.getInto("a/c/0/0", ByteRange.of(5, 20), target, 3, 30).orElseThrow());
      byte[] out = new byte[20];
      target.getBytes(3, out);
      assertArrayEquals(Arrays.copyOfRange(CONTENTS.get("a/c/0/0"), 5, 25), out);
      assertTrue(store.getInto("nope", ByteRange.ALL, target, 0, 64).isEmpty());
      assertThrows(
          StoreException.class, () -> store.getInto("a/c/0/0", ByteRange.ALL, target, 0, 64));
    }
  }

  @Test
  void keysArePercentEncodedAndQueriesKept() throws Exception {
    Path root = dir.resolve("www/odd");
    Files.createDirectories(root.resolve("a b"));
    Files.writeString(root.resolve("a b/ü%#?.json"), "odd");
    try (HttpStore s = new HttpStore(URI.create(server.url("odd") + "?sig=abc%2F1"), FAST)) {
      assertEquals(
          "odd", new String(s.getBytes("a b/ü%#?.json").orElseThrow(), StandardCharsets.UTF_8));
      assertTrue(s.url("x/y").toString().endsWith("/odd/x/y?sig=abc%2F1"), s.url("x/y").toString());
    }
  }

  /**
   * HTTP cannot list, and says so as data; it lists nothing (hierarchies over HTTP are found
   * through consolidated metadata, parsed by metadata/internal/ConsolidatedMetadata, never here).
   */
  @Test
  void cannotListAndSaysSo() throws Exception {
    assertFalse(store.capabilities().listable());
    assertTrue(store.capabilities().isRemote());
    assertEquals(List.of(), store.list("").toList());
    Path root = dir.resolve("www/cons");
    Files.createDirectories(root.resolve("t2m"));
    Files.writeString(
        root.resolve("zarr.json"),
        "{\"zarr_format\":3,\"node_type\":\"group\","
            + "\"consolidated_metadata\":{\"kind\":\"inline\",\"must_understand\":false,\"metadata\":{\"t2m\":"
            + "{\"zarr_format\":3,\"node_type\":\"group\"}}}}");
    try (Zaro zaro = Zaro.open(server.url("cons").toString())) {
      assertEquals(List.of("", "t2m"), zaro.list().stream().map(Node::path).toList());
      assertTrue(zaro.hierarchy().listsEverything());
    }
  }

  /**
   * Without consolidated metadata a hierarchy over HTTP lists its root alone (an array at the root
   * is the whole of it; a group's children are unknown, and the hierarchy says so).
   */
  @Test
  void withoutConsolidatedMetadataTheRootIsListedAlone() throws Exception {
    Path www = dir.resolve("www");
    Files.createDirectories(www.resolve("arr"));
    Files.writeString(
        www.resolve("arr/zarr.json"),
        "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[4],\"data_type\":\"uint8\","
            + "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[4]}},"
            + "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":0,"
            + "\"codecs\":[{\"name\":\"bytes\"}]}");
    try (Zaro zaro = Zaro.open(server.url("arr").toString())) {
      List<Node> nodes = zaro.list();
      assertEquals(List.of(""), nodes.stream().map(Node::path).toList());
      assertInstanceOf(ArrayMetadata.class, nodes.get(0).metadata());
      assertFalse(zaro.hierarchy().listsEverything());
    }
    try (Zaro zaro = Zaro.open(server.url("data").toString())) { // a group, with a/ and b/ below
      assertEquals(List.of(""), zaro.list().stream().map(Node::path).toList());
      assertFalse(zaro.hierarchy().listsEverything());
      assertInstanceOf(GroupMetadata.class, zaro.list().get(0).metadata());
    }
  }

  @Test
  void notAnHttpUrlIsRefused() {
    assertThrows(StoreException.class, () -> new HttpStore(URI.create("ftp://x/y")));
  }

  @Test
  void storesOpenHttpUrls() {
    try (Store s = Stores.open(server.url("data").toString())) {
      assertArrayEquals(CONTENTS.get("zarr.json"), s.getBytes("zarr.json").orElseThrow());
    }
  }
}
