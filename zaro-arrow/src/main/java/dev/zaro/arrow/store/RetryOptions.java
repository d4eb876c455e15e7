package dev.zaro.arrow.store;

import java.time.Duration;

/**
 * A remote store's timeouts and retries: how long one attempt and one new connection may take, how
 * many attempts a request gets and how long it waits between them. The one record of these
 * settings, carried by {@link HttpOptions} (so {@link GcsStore} too) and by the S3 store's options
 * (zaro-s3), so that their names, defaults and checks live once. A plain immutable value: it holds
 * no resources.
 *
 * @param requestTimeout the longest one attempt may take, headers and body together
 * @param connectTimeout the longest a new connection may take
 * @param maxAttempts attempts per request (1 = no retries)
 * @param initialBackoff the wait before the first retry; it doubles for each further one
 * @param maxBackoff the longest wait between attempts
 */
public record RetryOptions(
    Duration requestTimeout,
    Duration connectTimeout,
    int maxAttempts,
    Duration initialBackoff,
    Duration maxBackoff) {
  /** 30 s per attempt, 10 s to connect, 5 attempts, backoff from 100 ms up to 5 s. */
  public static final RetryOptions DEFAULT =
      new RetryOptions(
          Duration.ofSeconds(30),
          Duration.ofSeconds(10),
          5,
          Duration.ofMillis(100),
          Duration.ofSeconds(5));

  /** Checks at least one attempt is allowed. */
  public RetryOptions {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, not " + maxAttempts);
    }
  }

  /** These options with a per-request {@code timeout}. */
  public RetryOptions withRequestTimeout(Duration timeout) {
    return new RetryOptions(timeout, connectTimeout, maxAttempts, initialBackoff, maxBackoff);
  }

  /**
   * These options with {@code attempts} attempts and backoff from {@code initial} to {@code max}.
   */
  public RetryOptions withRetries(int attempts, Duration initial, Duration max) {
    return new RetryOptions(requestTimeout, connectTimeout, attempts, initial, max);
  }
}
