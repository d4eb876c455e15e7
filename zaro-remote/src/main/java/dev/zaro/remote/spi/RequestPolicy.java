package dev.zaro.remote.spi;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.exec.Futures;
import java.io.IOException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * How a remote store sends one request: the one place of retries (exponential backoff with jitter,
 * {@code Retry-After}), per-attempt deadlines, hedging of slow GETs and the per-host AIMD limit
 * ({@link AdaptiveConcurrency}). It knows nothing of URLs, bodies or clients: a store hands it
 * {@link Call}s (one per attempt) and reads the replies' status through {@link Replies}. The HTTP
 * store (so the GCS store) and the S3 store (zaro-s3, whose SDK client then retries nothing itself)
 * send every request through one, set from their {@code RetryOptions}. This package is not
 * exported: it is shared by zaro's own stores, not an API.
 *
 * <ul>
 *   <li>Status {@code 5xx} and {@code 429}, timeouts and broken connections ({@link IOException})
 *       are retried, at most {@code maxAttempts} attempts in all; the last reply (passed through
 *       {@link Replies#exhausted}, or a {@link StoreException} naming the attempts) is the result.
 *   <li>A request whose attempts are used up by timeouts or broken connections fails with one line
 *       naming the request, the host, what the last attempt met and how long the request waited in
 *       all.
 *   <li>Every request has a total deadline ({@code timeout}) from the moment it is sent here: its
 *       time waiting for the host's limit, every attempt and the backoff between them. Past it the
 *       request fails with one line naming the host, the request and how long it waited, and the
 *       attempt in flight (or waiting) is cancelled.
 *   <li>An attempt that hears nothing from its server for {@code requestTimeout} is cancelled and
 *       retried: its clock starts when the limit lets it start (queueing is the total deadline's
 *       business) and restarts with every sign of progress its {@link Call#lastActivityNanos} gives
 *       (zaro's HTTP client stamps every connection event); a call that gives none must end within
 *       {@code requestTimeout} of its start. Both timeouts count against the host's health: its
 *       limit halves, as on a {@code 503}.
 *   <li>With hedging on, an attempt still unanswered three times the recent 95th percentile latency
 *       (at least {@value Latencies#FLOOR_MILLIS} ms) after it started (got its permit; time
 *       waiting for the limit is the client's queue, not the host's tail) is sent again and the
 *       first good reply wins, for at most 5% extra requests.
 *   <li>Requests wait for a permit of the host's limit; 429, 503 and timeouts shrink it.
 * </ul>
 *
 * A request's copies race in a {@link Race}; {@link Latencies} keeps the recent latencies and the
 * hedge budget; {@link Tally} counts a request's attempts for its deadline's message. Holds no
 * resources of its own (the timer thread is shared and a daemon).
 */
public final class RequestPolicy {
  /** Request deadlines and retry delays: light work only, never blocking. */
  private static final ScheduledThreadPoolExecutor TIMER = timer();

  private final Duration requestTimeout;
  private final Duration timeout;
  private final String host;
  private final int maxAttempts;
  private final Duration initialBackoff;
  private final Duration maxBackoff;
  private final boolean hedging;
  private final AdaptiveConcurrency limiter;
  private final Latencies latencies = new Latencies();

  /**
   * The settings are those of a store's {@code RetryOptions} (which this package cannot name).
   *
   * @param requestTimeout how long one attempt may go without hearing from its server
   * @param timeout the deadline of a request: queueing, every attempt and the backoff between
   * @param maxAttempts attempts per request (1 = no retries)
   * @param initialBackoff the wait before the first retry; it doubles for each further one
   * @param maxBackoff the longest wait between attempts
   * @param hedging whether {@link Call#hedgeable} calls are hedged
   * @param host the host whose {@link AdaptiveConcurrency} limit requests share
   * @param maxRequests the most requests in flight to that host
   */
  public RequestPolicy(
      Duration requestTimeout,
      Duration timeout,
      int maxAttempts,
      Duration initialBackoff,
      Duration maxBackoff,
      boolean hedging,
      String host,
      int maxRequests) {
    this.requestTimeout = requestTimeout;
    this.timeout = timeout;
    this.host = host;
    this.maxAttempts = maxAttempts;
    this.initialBackoff = initialBackoff;
    this.maxBackoff = maxBackoff;
    this.hedging = hedging;
    this.limiter = AdaptiveConcurrency.forHost(host, maxRequests);
  }

  /** One attempt of a request, made fresh for each attempt (and each hedge). */
  public interface Call<R> {
    /** Sends the attempt; cancelling the future aborts it. */
    CompletableFuture<R> start();

    /** Frees what an attempt that reaches no one holds (a body being filled). */
    default void abandon() {}

    /**
     * {@link System#nanoTime()} when the attempt last heard from its server (a connection event, a
     * reply byte), for the no-progress timeout; {@link Long#MIN_VALUE} when it does not tell (the
     * attempt must then end within {@code requestTimeout} of its start).
     */
    default long lastActivityNanos() {
      return Long.MIN_VALUE;
    }

    /** Whether the attempt may be hedged (a GET whose body goes into a buffer). */
    default boolean hedgeable() {
      return false;
    }
  }

  /** What the policy reads from a reply. */
  public interface Replies<R> {
    /** The reply's HTTP status. */
    int status(R reply);

    /** The reply's {@code Retry-After} header, if any. */
    Optional<String> retryAfter(R reply);

    /**
     * The result when the last allowed attempt still got a retriable status: the reply itself, or
     * one that also tells the caller how many attempts were made.
     */
    default R exhausted(R reply, int attempts) {
      return reply;
    }

    /** Frees a reply that reaches no one (its request was cancelled as it arrived). */
    default void discard(R reply) {}
  }

  /** Hedged requests sent so far. */
  public long hedges() {
    return latencies.hedges();
  }

  /**
   * Sends a request, retrying transient failures; completes with the last reply. Cancelling the
   * returned future cancels the attempt in flight (its body is freed) and any retry not yet sent.
   *
   * @param what the request for messages, for example {@code key 'a/b' (URL)}
   * @param calls makes each attempt
   */
  // completion callbacks: each reports its outcome into the future it completes
  @SuppressWarnings("FutureReturnValueIgnored")
  public <R> CompletableFuture<R> send(String what, Supplier<Call<R>> calls, Replies<R> replies) {
    Tally tally = new Tally();
    CompletableFuture<R> inner = attempt(what, calls, replies, 1, tally);
    CompletableFuture<R> out = new CompletableFuture<>();
    ScheduledFuture<?> deadline =
        TIMER.schedule(
            () -> {
              if (out.isDone()) {
                return;
              }
              StoreException error = tally.deadlineError(what, host, timeout, requestTimeout);
              tally.expired = true;
              // first the attempt in flight stops (its body freed) or the one waiting for the
              // host's limit is dropped, then the caller hears: nothing of it is sent after that
              inner.cancel(true);
              out.completeExceptionally(error);
            },
            timeout.toNanos(),
            TimeUnit.NANOSECONDS);
    inner.whenComplete(
        (r, e) -> {
          deadline.cancel(false);
          if (tally.expired) { // the deadline's timer completes out
            if (r != null) {
              replies.discard(r);
            }
          } else if (e != null) {
            out.completeExceptionally(Futures.unwrap(e));
          } else if (!out.complete(r)) {
            replies.discard(r); // past the deadline or cancelled: nobody takes the reply
          }
        });
    cancelling(out, inner);
    return out;
  }

  /** Cancels {@code source} when {@code derived} is cancelled. */
  // the callback only passes a cancellation on
  @SuppressWarnings("FutureReturnValueIgnored")
  private static void cancelling(CompletableFuture<?> derived, CompletableFuture<?> source) {
    derived.whenComplete(
        (r, e) -> {
          if (derived.isCancelled()) {
            source.cancel(true);
          }
        });
  }

  // completion callbacks: each reports its outcome into the future it completes
  @SuppressWarnings("FutureReturnValueIgnored")
  private <R> CompletableFuture<R> attempt(
      String what, Supplier<Call<R>> calls, Replies<R> replies, int n, Tally tally) {
    Call<R> call = calls.get();
    AtomicBoolean timedOut = new AtomicBoolean();
    long timeoutMillis = requestTimeout.toMillis();
    CompletableFuture<Void> started = new CompletableFuture<>();
    CompletableFuture<R> first = launch(call, replies, timedOut, started, tally);
    CompletableFuture<R> response =
        hedging && call.hedgeable() ? hedged(calls, replies, first, call, started, tally) : first;
    CompletableFuture<R> out = new CompletableFuture<>();
    response
        .handle(
            (r, error) -> {
              Throwable cause = Futures.unwrap(error);
              if (cause != null) {
                call.abandon();
              }
              boolean retriable;
              String problem;
              if (cause == null) {
                int status = replies.status(r);
                retriable = status == 429 || status >= 500;
                problem = "HTTP " + status;
              } else if (!timedOut.get() && cause instanceof HttpConnectTimeoutException) {
                retriable = true; // java.net.http's connect timeout, which names no host
                problem = "cannot connect to " + host + " (" + cause.getMessage() + ")";
              } else if (timedOut.get() || cause instanceof HttpTimeoutException) {
                retriable = true;
                problem = "no bytes from " + host + " for " + timeoutMillis + " ms";
              } else if (cause instanceof IOException) {
                retriable = true;
                problem = unnamed(what, cause);
              } else if (cause instanceof StoreException e) {
                return CompletableFuture.<R>failedFuture(e); // a malformed body
              } else if (cause instanceof CancellationException) {
                return CompletableFuture.<R>failedFuture(
                    new StoreException("request for " + what + " was cancelled", cause));
              } else {
                return CompletableFuture.<R>failedFuture(
                    new StoreException("cannot read " + what + ": " + cause, cause));
              }
              if (!retriable) {
                return CompletableFuture.completedFuture(r);
              }
              if (n >= maxAttempts) {
                if (cause == null) {
                  return CompletableFuture.completedFuture(
                      replies.exhausted(r, n)); // the caller reports it
                }
                return CompletableFuture.<R>failedFuture(
                    new StoreException(
                        "cannot read "
                            + what
                            + ": "
                            + problem
                            + " ("
                            + n
                            + (n == 1 ? " attempt" : " attempts")
                            + "; waited "
                            + Tally.seconds(System.nanoTime() - tally.sentNanos)
                            + " s in all)",
                        cause));
              }
              long delay = backoffMillis(n, r == null ? Optional.empty() : replies.retryAfter(r));
              CompletableFuture<R> again = new CompletableFuture<>();
              TIMER.schedule(
                  () -> {
                    if (out.isDone()) {
                      again.cancel(false);
                      return; // cancelled while waiting to retry
                    }
                    CompletableFuture<R> next = attempt(what, calls, replies, n + 1, tally);
                    cancelling(out, next);
                    next.whenComplete(
                        (rr, e) -> {
                          if (e != null) {
                            again.completeExceptionally(e);
                          } else {
                            again.complete(rr);
                          }
                        });
                  },
                  delay,
                  TimeUnit.MILLISECONDS);
              return again;
            })
        .thenCompose(f -> f)
        .whenComplete(
            (r, e) -> {
              if (e != null) {
                out.completeExceptionally(e);
              } else if (!out.complete(r)) {
                replies.discard(r); // cancelled meanwhile: nobody takes the reply
              }
            });
    cancelling(out, response);
    return out;
  }

  /**
   * A broken connection's or a connect timeout's message for the request's error: without the
   * request's name where the client already put it first ({@code key 'a/b' (URL): cannot connect to
   * HOST within 10000 ms}), which the error names once; else the exception after the host (the
   * SDK's {@code Read timed out} names none).
   */
  private String unnamed(String what, Throwable cause) {
    String message = cause.getMessage();
    return message != null && message.startsWith(what + ": ")
        ? message.substring(what.length() + 2)
        : "the connection to " + host + " failed: " + cause;
  }

  private long backoffMillis(int attempt, Optional<String> retryAfter) {
    long max = maxBackoff.toMillis();
    long exp = initialBackoff.toMillis() << Math.min(attempt - 1, 20);
    long delay = Math.min(max, exp);
    delay = delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1);
    if (retryAfter.isPresent()) {
      try {
        delay = Math.max(delay, Math.min(max, Long.parseLong(retryAfter.get().trim()) * 1000));
      } catch (NumberFormatException e) {
        // an HTTP date: keep the computed backoff
      }
    }
    return delay;
  }

  /**
   * Starts one attempt when the host's {@link AdaptiveConcurrency} allows, with a no-progress
   * deadline from its start, and completes {@code started} as it starts. Cancelling the returned
   * future aborts the attempt (or drops it while it waits; {@code started} then never completes).
   */
  // completion callbacks: each reports its outcome into the future it completes
  @SuppressWarnings("FutureReturnValueIgnored")
  private <R> CompletableFuture<R> launch(
      Call<R> call,
      Replies<R> replies,
      AtomicBoolean timedOut,
      CompletableFuture<Void> started,
      Tally tally) {
    long timeoutNanos = requestTimeout.toNanos();
    CompletableFuture<R> response = new CompletableFuture<>();
    limiter.execute(
        permit -> {
          if (response.isDone()) { // cancelled while waiting: it never reached the host
            limiter.abandon(permit);
            return;
          }
          long startNanos = System.nanoTime();
          tally.attempts.incrementAndGet();
          started.complete(null);
          CompletableFuture<R> sent;
          try {
            sent = call.start();
          } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
          }
          CompletableFuture<R> inner = sent;
          AtomicReference<ScheduledFuture<?>> watchdog = new AtomicReference<>();
          Runnable check =
              new Runnable() {
                @Override
                public void run() {
                  if (inner.isDone()) {
                    return;
                  }
                  long idle = System.nanoTime() - Math.max(startNanos, call.lastActivityNanos());
                  if (idle >= timeoutNanos) { // nothing heard for requestTimeout: a timeout
                    timedOut.set(true);
                    tally.silent.incrementAndGet();
                    inner.cancel(true);
                  } else {
                    watchdog.set(TIMER.schedule(this, timeoutNanos - idle, TimeUnit.NANOSECONDS));
                  }
                }
              };
          watchdog.set(TIMER.schedule(check, timeoutNanos, TimeUnit.NANOSECONDS));
          inner.whenComplete(
              (r, e) -> {
                watchdog.get().cancel(false);
                int status = r == null ? 0 : replies.status(r);
                boolean throttled =
                    timedOut.get()
                        || tally.expired // the host answered nothing within the total deadline
                        || Futures.unwrap(e) instanceof HttpTimeoutException
                        || status == 429
                        || status == 503;
                if (inner.isCancelled() && !throttled) {
                  limiter.abandon(permit); // a hedge that lost, a caller that gave up: no verdict
                } else {
                  limiter.release(permit, throttled);
                }
                if (status == 200 || status == 206) {
                  latencies.record(System.nanoTime() - startNanos);
                }
                if (e != null) {
                  response.completeExceptionally(e);
                } else {
                  response.complete(r);
                }
              });
          response.whenComplete(
              (r, e) -> {
                if (response.isCancelled()) {
                  inner.cancel(true);
                }
              });
        });
    return response;
  }

  /**
   * Hedges an attempt for the tail: if {@code first} has not answered three times the recent 95th
   * percentile latency (at least {@link Latencies#FLOOR_MILLIS}) after it {@code started}, and the
   * hedge budget allows, the same request goes out again; the first good answer wins, the other is
   * cancelled and its body freed. An attempt still waiting for the host's limit is not hedged: a
   * copy would only queue behind it.
   */
  // completion callbacks: each reports its outcome into the future it completes
  @SuppressWarnings("FutureReturnValueIgnored")
  private <R> CompletableFuture<R> hedged(
      Supplier<Call<R>> calls,
      Replies<R> replies,
      CompletableFuture<R> first,
      Call<R> firstCall,
      CompletableFuture<Void> started,
      Tally tally) {
    long delay = latencies.hedgeDelayMillis();
    if (delay < 0) {
      return first;
    }
    Race<R> race = new Race<>();
    race.join(first, firstCall);
    AtomicReference<ScheduledFuture<?>> timer = new AtomicReference<>();
    started.thenRun(
        () -> {
          if (race.result.isDone()) {
            return;
          }
          ScheduledFuture<?> t =
              TIMER.schedule(
                  () -> {
                    if (first.isDone() || !latencies.tryHedge()) {
                      return;
                    }
                    Call<R> call = calls.get();
                    CompletableFuture<R> second =
                        launch(
                            call, replies, new AtomicBoolean(), new CompletableFuture<>(), tally);
                    if (!race.join(second, call)) {
                      second.cancel(true);
                    }
                  },
                  delay,
                  TimeUnit.MILLISECONDS);
          timer.set(t);
          if (race.result.isDone()) { // it ended while the timer was being set
            t.cancel(false);
          }
        });
    race.result.whenComplete(
        (r, e) -> {
          ScheduledFuture<?> t = timer.get();
          if (t != null) {
            t.cancel(false);
          }
          if (race.result.isCancelled()) {
            race.cancelRunners(); // the request was given up (its deadline): stop every copy
          }
        });
    return race.result;
  }

  private static ScheduledThreadPoolExecutor timer() {
    ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "zaro-http-timer");
              t.setDaemon(true);
              return t;
            });
    timer.setRemoveOnCancelPolicy(true);
    return timer;
  }
}
