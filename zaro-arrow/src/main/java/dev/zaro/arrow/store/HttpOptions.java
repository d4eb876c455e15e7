package dev.zaro.arrow.store;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * How an {@link HttpStore} (and a {@link GcsStore}) talks to its server: timeouts, retries, extra
 * headers, concurrency, hedging.
 *
 * @param retry timeouts and retries (the same record as the S3 store's)
 * @param headers sent with every request (for example {@code Authorization})
 * @param maxRequests the most requests in flight to one host; below it the limit adapts ({@link
 *     AdaptiveConcurrency}: grows while latency holds, halves on 429/503/timeouts)
 * @param hedging a GET still unanswered after three times the recent 95th percentile latency (at
 *     least 100 ms) is sent again and the first reply wins, for at most 5% extra requests
 */
public record HttpOptions(
    RetryOptions retry, Map<String, String> headers, int maxRequests, boolean hedging) {
  /** Default retries, no extra headers, 256 requests at most, hedging on. */
  public static final HttpOptions DEFAULT =
      new HttpOptions(RetryOptions.DEFAULT, Map.of(), 256, true);

  /** Checks the retry options are set and at least one request is allowed; copies the headers. */
  public HttpOptions {
    Objects.requireNonNull(retry, "retry");
    if (maxRequests < 1) {
      throw new IllegalArgumentException("maxRequests must be at least 1, not " + maxRequests);
    }
    headers = Map.copyOf(headers);
  }

  /** These options with retry policy {@code r}. */
  public HttpOptions withRetry(RetryOptions r) {
    return new HttpOptions(r, headers, maxRequests, hedging);
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
    return new HttpOptions(retry, extra, maxRequests, hedging);
  }

  /** These options with hedged requests {@code on} or off. */
  public HttpOptions withHedging(boolean on) {
    return new HttpOptions(retry, headers, maxRequests, on);
  }

  /** These options with at most {@code max} requests in flight. */
  public HttpOptions withMaxRequests(int max) {
    return new HttpOptions(retry, headers, max, hedging);
  }
}
