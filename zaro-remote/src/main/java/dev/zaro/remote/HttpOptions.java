package dev.zaro.remote;

import dev.zaro.arrow.store.RemoteLimits;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * How an {@link HttpStore} (and a {@link GcsStore}) talks to its server: timeouts, retries, extra
 * headers, concurrency, hedging, the most bytes of a whole object.
 *
 * @param retry timeouts and retries (the same record as the S3 store's)
 * @param headers sent with every request (for example {@code Authorization})
 * @param maxRequests the most requests in flight to one host; below it the limit adapts ({@code
 *     AdaptiveConcurrency}: grows while latency holds, halves on 429/503/timeouts)
 * @param hedging a GET still unanswered after three times the recent 95th percentile latency (at
 *     least 100 ms) is sent again and the first reply wins, for at most 5% extra requests
 * @param maxObjectSize the most bytes of a body that is not a range of known length (see {@link
 *     RemoteLimits#maxObjectSize})
 */
public record HttpOptions(
    RetryOptions retry,
    Map<String, String> headers,
    int maxRequests,
    boolean hedging,
    long maxObjectSize) {
  /** Default retries, no extra headers, 256 requests at most, hedging on, 4 GiB objects. */
  public static final HttpOptions DEFAULT =
      new HttpOptions(RetryOptions.DEFAULT, Map.of(), 256, true);

  /**
   * Checks the retry options are set, at least one request is allowed and the object cap is
   * positive; copies the headers.
   */
  public HttpOptions {
    Objects.requireNonNull(retry, "retry");
    if (maxRequests < 1) {
      throw new IllegalArgumentException("maxRequests must be at least 1, not " + maxRequests);
    }
    if (maxObjectSize < 1) {
      throw new IllegalArgumentException("maxObjectSize must be at least 1, not " + maxObjectSize);
    }
    headers = Map.copyOf(headers);
  }

  /** These settings with the default object cap ({@link RemoteLimits#DEFAULT_MAX_OBJECT_SIZE}). */
  public HttpOptions(
      RetryOptions retry, Map<String, String> headers, int maxRequests, boolean hedging) {
    this(retry, headers, maxRequests, hedging, RemoteLimits.DEFAULT_MAX_OBJECT_SIZE);
  }

  /** These options with retry policy {@code r}. */
  public HttpOptions withRetry(RetryOptions r) {
    return new HttpOptions(r, headers, maxRequests, hedging, maxObjectSize);
  }

  /** {@link RetryOptions#withRequestTimeout} on {@link #retry}. */
  public HttpOptions withRequestTimeout(Duration timeout) {
    return withRetry(retry.withRequestTimeout(timeout));
  }

  /** {@link RetryOptions#withRetries} on {@link #retry}. */
  public HttpOptions withRetries(int attempts, Duration initial, Duration max) {
    return withRetry(retry.withRetries(attempts, initial, max));
  }

  /** These options sending {@code extra} headers with every request. */
  public HttpOptions withHeaders(Map<String, String> extra) {
    return new HttpOptions(retry, extra, maxRequests, hedging, maxObjectSize);
  }

  /** These options with hedged requests {@code on} or off. */
  public HttpOptions withHedging(boolean on) {
    return new HttpOptions(retry, headers, maxRequests, on, maxObjectSize);
  }

  /** These options with at most {@code max} requests in flight. */
  public HttpOptions withMaxRequests(int max) {
    return new HttpOptions(retry, headers, max, hedging, maxObjectSize);
  }

  /** These options taking whole objects of at most {@code bytes}. */
  public HttpOptions withMaxObjectSize(long bytes) {
    return new HttpOptions(retry, headers, maxRequests, hedging, bytes);
  }

  /** These options with the timeouts, retries and object cap of {@code limits}. */
  public HttpOptions withLimits(RemoteLimits limits) {
    return withRetry(retry.withLimits(limits)).withMaxObjectSize(limits.maxObjectSize());
  }
}
