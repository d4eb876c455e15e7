package dev.zaro.remote;

import dev.zaro.arrow.store.RemoteLimits;
import java.time.Duration;

/**
 * A remote store's timeouts and retries: how long one read may take in all, how long one attempt
 * may go without a byte and one new connection may take, how many attempts a request gets and how
 * long it waits between them. The one record of these settings, carried by {@link HttpOptions} (so
 * {@link GcsStore} too) and by the S3 store's options (zaro-s3), so that their names, defaults and
 * checks live once; {@link RemoteLimits} says how the timeouts are counted. A plain immutable
 * value: it holds no resources.
 *
 * @param requestTimeout an attempt that hears nothing from its server for this long fails (through
 *     zaro's HTTP client, every reply byte restarts the clock; an attempt through the S3 SDK or
 *     {@code -Dzaro.http.client=jdk} before its body starts must end within it)
 * @param connectTimeout the longest a new connection may take
 * @param maxAttempts attempts per request (1 = no retries)
 * @param initialBackoff the wait before the first retry; it doubles for each further one
 * @param maxBackoff the longest wait between attempts
 * @param timeout the most one request may take in all: queueing for the host's limit, every attempt
 *     and the backoff between them
 */
public record RetryOptions(
    Duration requestTimeout,
    Duration connectTimeout,
    int maxAttempts,
    Duration initialBackoff,
    Duration maxBackoff,
    Duration timeout) {
  /**
   * 30 s without a byte per attempt, 10 s to connect, 5 attempts, backoff from 100 ms up to 5 s, 5
   * minutes per request in all.
   */
  public static final RetryOptions DEFAULT =
      new RetryOptions(
          RemoteLimits.DEFAULT.requestTimeout(),
          Duration.ofSeconds(10),
          RemoteLimits.DEFAULT.retries() + 1,
          Duration.ofMillis(100),
          Duration.ofSeconds(5),
          RemoteLimits.DEFAULT.timeout());

  /** Checks at least one attempt is allowed and the timeouts are positive. */
  public RetryOptions {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, not " + maxAttempts);
    }
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, not " + timeout);
    }
  }

  /** These settings with the default total {@code timeout} ({@link RemoteLimits#DEFAULT}). */
  public RetryOptions(
      Duration requestTimeout,
      Duration connectTimeout,
      int maxAttempts,
      Duration initialBackoff,
      Duration maxBackoff) {
    this(
        requestTimeout,
        connectTimeout,
        maxAttempts,
        initialBackoff,
        maxBackoff,
        RemoteLimits.DEFAULT.timeout());
  }

  /** These options with a per-attempt (no-progress) {@code timeout}. */
  public RetryOptions withRequestTimeout(Duration timeout) {
    return new RetryOptions(
        timeout, connectTimeout, maxAttempts, initialBackoff, maxBackoff, this.timeout);
  }

  /** These options with a total {@code timeout} per request. */
  public RetryOptions withTimeout(Duration total) {
    return new RetryOptions(
        requestTimeout, connectTimeout, maxAttempts, initialBackoff, maxBackoff, total);
  }

  /**
   * These options with {@code attempts} attempts and backoff from {@code initial} to {@code max}.
   */
  public RetryOptions withRetries(int attempts, Duration initial, Duration max) {
    return new RetryOptions(requestTimeout, connectTimeout, attempts, initial, max, timeout);
  }

  /** These options with the timeouts and retries of {@code limits}. */
  public RetryOptions withLimits(RemoteLimits limits) {
    return new RetryOptions(
        limits.requestTimeout(),
        connectTimeout,
        limits.retries() + 1,
        initialBackoff,
        maxBackoff,
        limits.timeout());
  }
}
