package dev.zaro.remote.spi;

import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * How many requests a remote store keeps in flight to one host, adapted to what the host takes
 * (additive increase, multiplicative decrease, as TCP does): starting from {@code initial}, the
 * limit doubles each round trip until the first sign of overload, then grows by one per round trip
 * while latency holds (stays under twice the lowest seen, plus 5 ms); a throttling reply (HTTP 429,
 * 503 such as S3's SlowDown, a timeout) halves it, at most once per round trip, never below 1 nor
 * above {@code max}. Requests beyond the limit wait in a queue, started in order as others finish.
 *
 * <p>Use: {@link #execute} a task that starts one request; whoever completes that request calls
 * {@link #release} exactly once. Thread-safe; holds no threads or memory beyond its queue. Shared
 * by every store on one host (see {@link #forHost}), so stores opened separately back off together.
 */
final class AdaptiveConcurrency {
  /** One request's ticket: give it back to {@link #release}. */
  public static final class Permit {
    private final long epoch;
    private final long started;

    private Permit(long epoch, long started) {
      this.epoch = epoch;
      this.started = started;
    }
  }

  /** A task that starts one request with its permit. */
  public interface Start {
    void start(Permit permit);
  }

  private static final ConcurrentHashMap<String, AdaptiveConcurrency> HOSTS =
      new ConcurrentHashMap<>();

  private final int max;
  private final LongSupplier clock;
  private final ArrayDeque<Start> waiting = new ArrayDeque<>();

  /** Latency "holds" while under twice the lowest seen plus this (jitter on fast links). */
  private static final long SLACK_NANOS = 5_000_000;

  private int limit;
  private int successes;
  private boolean slowStart = true;
  private int inFlight;
  private long epoch;
  private long minLatencyNanos = Long.MAX_VALUE;
  private boolean draining;
  private int throttles;

  /**
   * @param initial the limit to start from (clamped to 1..max)
   * @param max the most requests ever in flight
   */
  public AdaptiveConcurrency(int initial, int max) {
    this(initial, max, System::nanoTime);
  }

  /**
   * As {@link #AdaptiveConcurrency(int, int)}, with the clock latencies are measured on
   * (nanoseconds; tests pass one that does not move, so growth never depends on how fast the test
   * runs).
   */
  AdaptiveConcurrency(int initial, int max, LongSupplier clock) {
    this.clock = clock;
    if (max < 1) {
      throw new IllegalArgumentException("max must be at least 1, not " + max);
    }
    this.max = max;
    this.limit = Math.max(1, Math.min(initial, max));
  }

  /** The limit shared by every store on {@code host} (an authority, e.g. {@code a.b:443}). */
  public static AdaptiveConcurrency forHost(String host, int max) {
    return HOSTS.computeIfAbsent(
        host + "#" + max, h -> new AdaptiveConcurrency(Math.min(16, max), max));
  }

  /** Starts {@code task} now if the limit allows, else once enough requests have finished. */
  public void execute(Start task) {
    synchronized (this) {
      waiting.add(task);
    }
    drain();
  }

  /**
   * Ends one request started with {@code permit}.
   *
   * @param throttled the host said it is overloaded (429, 503, a timeout)
   */
  public void release(Permit permit, boolean throttled) {
    long latency = clock.getAsLong() - permit.started;
    synchronized (this) {
      inFlight--;
      if (throttled) {
        if (permit.epoch
            == epoch) { // once per round trip: requests sent before the cut don't count
          limit = Math.max(1, limit / 2);
          successes = 0;
          slowStart = false;
          epoch++;
          throttles++;
        }
      } else {
        minLatencyNanos = Math.min(minLatencyNanos, latency);
        if (slowStart) {
          limit = Math.min(max, limit + 1);
        } else if (latency <= 2 * minLatencyNanos + SLACK_NANOS && ++successes >= limit) {
          limit = Math.min(max, limit + 1); // a round trip's worth of replies, latency holding
          successes = 0;
        }
      }
    }
    drain();
  }

  /**
   * Ends one request started with {@code permit} that says nothing of the host: one cancelled
   * before it was sent, or a hedged copy that lost its race. Frees the permit and leaves the limit
   * as it is.
   */
  public void abandon(Permit permit) {
    synchronized (this) {
      inFlight--;
    }
    drain();
  }

  /** The current limit. */
  public synchronized int limit() {
    return limit;
  }

  /** Requests started and not yet released. */
  public synchronized int inFlight() {
    return inFlight;
  }

  /** How many times the limit was cut. */
  public synchronized int throttles() {
    return throttles;
  }

  /** Starts waiting tasks while permits are free; one thread at a time, no recursion. */
  private void drain() {
    while (true) {
      Start next;
      Permit permit;
      synchronized (this) {
        if (draining || waiting.isEmpty() || inFlight >= limit) {
          return;
        }
        draining = true;
        next = waiting.poll();
        inFlight++;
        permit = new Permit(epoch, clock.getAsLong());
      }
      try {
        next.start(permit);
      } finally {
        synchronized (this) {
          draining = false;
        }
      }
    }
  }
}
