package dev.zaro.remote.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.error.StoreException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.http.HttpConnectTimeoutException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link RequestPolicy}'s clocks with calls that never answer (no network): the total deadline
 * covers the time a request waits for the host's limit, an attempt that keeps telling of progress
 * is never cut by the no-progress timeout, and an expired attempt counts against the host while a
 * request that never left the queue does not. The class {@link Timeout} only turns a hang into a
 * failure; no assertion here depends on how fast anything runs.
 */
@Timeout(60)
class RequestPolicyTest {
  private static final AtomicInteger HOSTS = new AtomicInteger();

  /** Replies are plain status codes. */
  private static final RequestPolicy.Replies<Integer> STATUS =
      new RequestPolicy.Replies<>() {
        @Override
        public int status(Integer reply) {
          return reply;
        }

        @Override
        public Optional<String> retryAfter(Integer reply) {
          return Optional.empty();
        }
      };

  /** A host no other test shares (limits are per host). */
  private static String host() {
    return "policy-test-" + HOSTS.incrementAndGet() + ":80";
  }

  private static StoreException failure(CompletableFuture<Integer> f) {
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
    return assertInstanceOf(StoreException.class, e.getCause());
  }

  /** Waits (at most 10 s) for what another thread finishes just after a future completes. */
  private static void eventually(BooleanSupplier condition, String what)
      throws InterruptedException {
    for (int i = 0; i < 1000 && !condition.getAsBoolean(); i++) {
      Thread.sleep(10);
    }
    assertTrue(condition.getAsBoolean(), what);
  }

  private static RequestPolicy policy(String host, Duration timeout) {
    return new RequestPolicy(
        Duration.ofSeconds(60),
        timeout,
        1,
        Duration.ofMillis(1),
        Duration.ofMillis(1),
        false,
        host,
        1); // one request in flight to the host at a time
  }

  @Test
  void aRequestQueuedBehindTheHostLimitFailsAtItsDeadline() throws Exception {
    String host = host();
    AdaptiveConcurrency limit = AdaptiveConcurrency.forHost(host, 1);
    RequestPolicy patient = policy(host, Duration.ofSeconds(30));
    RequestPolicy hurried = policy(host, Duration.ofMillis(500));
    CompletableFuture<Integer> first = new CompletableFuture<>();
    CompletableFuture<Integer> a = patient.send("key 'a'", () -> () -> first, STATUS);
    CompletableFuture<Integer> never = new CompletableFuture<>();
    StoreException eb = failure(hurried.send("key 'b'", () -> () -> never, STATUS));
    assertTrue(eb.getMessage().contains("key 'b'"), eb.getMessage());
    assertTrue(eb.getMessage().contains(host), eb.getMessage());
    assertTrue(eb.getMessage().contains("within the 0.5 s timeout"), eb.getMessage());
    assertTrue(eb.getMessage().contains("0 attempts sent"), eb.getMessage());
    assertTrue(
        eb.getMessage().contains("all waiting for the host's request limit"), eb.getMessage());
    assertFalse(a.isDone(), "the request holding the slot is not hurried by its neighbour");

    // the caller gives up on a: its slot comes back, with no verdict on the host
    a.cancel(true);
    eventually(() -> first.isCancelled() && limit.inFlight() == 0, "a's slot is back");
    assertFalse(never.isDone(), "b, expired in the queue, is never sent");
    assertEquals(0, limit.throttles());

    // an attempt that reached the host and expired counts against it, and is stopped
    CompletableFuture<Integer> hangs = new CompletableFuture<>();
    StoreException ec = failure(hurried.send("key 'c'", () -> () -> hangs, STATUS));
    assertTrue(ec.getMessage().contains("1 attempt sent"), ec.getMessage());
    eventually(() -> hangs.isCancelled() && limit.inFlight() == 0, "c's attempt is stopped");
    assertEquals(1, limit.throttles());

    // the host's slot is free: the next request goes out and is answered
    assertEquals(
        200,
        hurried
            .send("key 'd'", () -> () -> CompletableFuture.completedFuture(200), STATUS)
            .get(30, TimeUnit.SECONDS));
  }

  @Test
  void anAttemptThatTellsOfProgressIsNotCutButTheDeadlineStillHolds() {
    String host = host();
    RequestPolicy policy =
        new RequestPolicy(
            Duration.ofMillis(100), // no progress for 100 ms would cut an attempt
            Duration.ofMillis(1500),
            3,
            Duration.ofMillis(1),
            Duration.ofMillis(1),
            false,
            host,
            4);
    AtomicInteger attempts = new AtomicInteger();
    RequestPolicy.Call<Integer> busy =
        new RequestPolicy.Call<>() {
          @Override
          public CompletableFuture<Integer> start() {
            attempts.incrementAndGet();
            return new CompletableFuture<>(); // bytes keep coming, the reply never completes
          }

          @Override
          public long lastActivityNanos() {
            return System.nanoTime();
          }
        };
    StoreException e = failure(policy.send("key 'drip'", () -> busy, STATUS));
    assertTrue(e.getMessage().contains("within the 1.5 s timeout"), e.getMessage());
    assertTrue(e.getMessage().contains("1 attempt sent"), e.getMessage());
    assertFalse(e.getMessage().contains("silent"), e.getMessage());
    assertEquals(1, attempts.get());
  }

  @Test
  void silentAttemptsAreRetriedThenFailNamingTheHost() {
    String host = host();
    RequestPolicy policy =
        new RequestPolicy(
            Duration.ofMillis(200),
            Duration.ofSeconds(60),
            2,
            Duration.ofMillis(1),
            Duration.ofMillis(1),
            false,
            host,
            4);
    AtomicInteger attempts = new AtomicInteger();
    StoreException e =
        failure(
            policy.send(
                "key 'silent'",
                () ->
                    () -> {
                      attempts.incrementAndGet();
                      return new CompletableFuture<>();
                    },
                STATUS));
    assertTrue(e.getMessage().contains("no bytes from " + host + " for 200 ms"), e.getMessage());
    assertTrue(e.getMessage().contains("2 attempts"), e.getMessage());
    assertEquals(2, attempts.get());
  }

  /** A policy of {@code attempts} attempts to {@code host} that retries at once. */
  private static RequestPolicy retrying(String host, Duration requestTimeout, int attempts) {
    return new RequestPolicy(
        requestTimeout,
        Duration.ofSeconds(60),
        attempts,
        Duration.ofMillis(1),
        Duration.ofMillis(1),
        false,
        host,
        4);
  }

  /** The message of request {@code what} whose every attempt fails with {@code cause}. */
  private static String failing(String host, int attempts, String what, Throwable cause) {
    return failure(
            retrying(host, Duration.ofSeconds(30), attempts)
                .send(what, () -> () -> CompletableFuture.failedFuture(cause), STATUS))
        .getMessage();
  }

  /** How many seconds "waited N s in all" in {@code message} says, after checking it is there. */
  private static double waitedInAll(String message) {
    Matcher m = Pattern.compile("; waited (\\d+(?:\\.\\d)?) s in all\\)$").matcher(message);
    assertTrue(m.find(), message);
    return Double.parseDouble(m.group(1));
  }

  @Test
  void silentAttemptsUsedUpSayHowLongTheRequestWaitedInAll() {
    String host = host();
    StoreException e =
        failure(
            retrying(host, Duration.ofMillis(200), 2)
                .send("key 'silent'", () -> () -> new CompletableFuture<>(), STATUS));
    String m = e.getMessage();
    assertTrue(
        m.startsWith("cannot read key 'silent': no bytes from " + host + " for 200 ms (2 attempts"),
        m);
    assertTrue(waitedInAll(m) >= 0.4, m); // two silent attempts of 200 ms each
    assertEquals(1, m.lines().count(), m);
  }

  @Test
  void connectTimeoutsUsedUpNameTheRequestOnceTheHostAndTheWait() {
    String host = host();
    String what = "key 'k' (http://" + host + "/k)";
    String timedOut = "cannot connect to http://" + host + " within 200 ms";
    String m = failing(host, 2, what, new SocketTimeoutException(what + ": " + timedOut));
    assertTrue(m.startsWith("cannot read " + what + ": " + timedOut + " (2 attempts; "), m);
    assertEquals(m.indexOf("key 'k'"), m.lastIndexOf("key 'k'"), m);
    assertFalse(m.contains("Exception"), m);
    assertTrue(waitedInAll(m) >= 0, m);
  }

  @Test
  void anUnnamedConnectionFailureIsNamedWithTheHost() {
    String host = host();
    String m = failing(host, 2, "key 'k'", new IOException("Read timed out"));
    assertTrue(m.startsWith("cannot read key 'k': the connection to " + host + " failed: "), m);
    assertTrue(m.contains("Read timed out (2 attempts; waited "), m);
  }

  @Test
  void theJdkClientsConnectTimeoutNamesTheHostNotSilence() {
    String host = host();
    String m =
        failing(host, 1, "key 'k'", new HttpConnectTimeoutException("HTTP connect timed out"));
    assertTrue(
        m.startsWith(
            "cannot read key 'k': cannot connect to "
                + host
                + " (HTTP connect timed out) (1 attempt;"),
        m);
    assertFalse(m.contains("no bytes"), m);
  }
}
