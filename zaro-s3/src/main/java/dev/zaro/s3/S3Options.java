package dev.zaro.s3;

import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.store.RemoteLimits;
import dev.zaro.arrow.store.StoreLocation;
import dev.zaro.remote.RetryOptions;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * How an {@link S3Store} reaches its bucket: region, endpoint, signing, connections, timeouts,
 * retries.
 *
 * @param region null for the SDK's default chain (else us-east-1)
 * @param endpoint null for AWS
 * @param pathStyle path-style addressing ({@code endpoint/bucket/key})
 * @param anonymous unsigned requests; if false, the default credentials chain (unsigned when it
 *     finds nothing)
 * @param maxConnections the most connections (so requests) in flight at once; further requests wait
 *     for one. A read keeps at most its {@code ZaroOptions.ioConcurrency} requests in flight, so
 *     connections follow that up to this cap (the default is four times its default)
 * @param retry timeouts and retries: the same record, with the same defaults, as {@link
 *     dev.zaro.remote.HttpOptions#retry}
 * @param hedging a GET still unanswered after three times the recent 95th percentile latency (at
 *     least 100 ms) is sent again and the first reply wins, for at most 5% extra requests (as
 *     {@link dev.zaro.remote.HttpOptions#hedging})
 * @param sdkGets whether object GETs to a plain {@code http} endpoint go through the SDK's client
 *     too; by default they go through zaro's own HTTP/1.1 client, signed by the SDK's signer (see
 *     {@link S3Store})
 * @param maxObjectSize the most bytes of a reply that is not a range of known length (as {@link
 *     dev.zaro.remote.HttpOptions#maxObjectSize}); a reply announcing more is refused before
 *     anything is allocated for it
 */
public record S3Options(
    String region,
    URI endpoint,
    boolean pathStyle,
    boolean anonymous,
    int maxConnections,
    RetryOptions retry,
    boolean hedging,
    boolean sdkGets,
    long maxObjectSize) {
  public static final S3Options DEFAULT =
      new S3Options(
          null,
          null,
          false,
          false,
          4 * ZaroOptions.defaults().ioConcurrency(),
          RetryOptions.DEFAULT,
          true,
          false,
          RemoteLimits.DEFAULT_MAX_OBJECT_SIZE);

  public S3Options {
    Objects.requireNonNull(retry, "retry");
    if (maxConnections < 1) {
      throw new IllegalArgumentException(
          "maxConnections must be at least 1, not " + maxConnections);
    }
    if (maxObjectSize < 1) {
      throw new IllegalArgumentException("maxObjectSize must be at least 1, not " + maxObjectSize);
    }
  }

  /** These options taking whole objects of at most {@code bytes}. */
  public S3Options withMaxObjectSize(long bytes) {
    return new S3Options(
        region, endpoint, pathStyle, anonymous, maxConnections, retry, hedging, sdkGets, bytes);
  }

  public S3Options withEndpoint(URI e, boolean path) {
    return new S3Options(
        region, e, path, anonymous, maxConnections, retry, hedging, sdkGets, maxObjectSize);
  }

  public S3Options withRegion(String r) {
    return new S3Options(
        r, endpoint, pathStyle, anonymous, maxConnections, retry, hedging, sdkGets, maxObjectSize);
  }

  public S3Options withAnonymous(boolean a) {
    return new S3Options(
        region, endpoint, pathStyle, a, maxConnections, retry, hedging, sdkGets, maxObjectSize);
  }

  public S3Options withMaxConnections(int n) {
    return new S3Options(
        region, endpoint, pathStyle, anonymous, n, retry, hedging, sdkGets, maxObjectSize);
  }

  public S3Options withRetry(RetryOptions r) {
    return new S3Options(
        region, endpoint, pathStyle, anonymous, maxConnections, r, hedging, sdkGets, maxObjectSize);
  }

  public S3Options withHedging(boolean on) {
    return new S3Options(
        region, endpoint, pathStyle, anonymous, maxConnections, retry, on, sdkGets, maxObjectSize);
  }

  /** These options with object GETs through the SDK's client ({@code true}) or zaro's own. */
  public S3Options withSdkGets(boolean on) {
    return new S3Options(
        region, endpoint, pathStyle, anonymous, maxConnections, retry, hedging, on, maxObjectSize);
  }

  /** {@link RetryOptions#withRequestTimeout} on {@link #retry}. */
  public S3Options withRequestTimeout(Duration timeout) {
    return withRetry(retry.withRequestTimeout(timeout));
  }

  /** {@link RetryOptions#withRetries} on {@link #retry}. */
  public S3Options withRetries(int attempts, Duration initial, Duration max) {
    return withRetry(retry.withRetries(attempts, initial, max));
  }

  /** The options {@link #of} reads from a location's query (aliases included). */
  private static final List<String> QUERY_OPTIONS =
      List.of(
          "region",
          "endpoint",
          "endpoint_url",
          "path_style",
          "anonymous",
          "anon",
          "max_connections",
          "max_attempts",
          "request_timeout",
          "client");

  /**
   * The options of an {@code s3://} location: its query ({@code region}, {@code endpoint} (or
   * {@code endpoint_url}), {@code path_style}, {@code anonymous} (or {@code anon}), {@code
   * max_connections}, {@code max_attempts}, {@code request_timeout} in seconds, {@code client}:
   * {@code sdk} or {@code zaro}, see {@link #sdkGets}), else the system properties {@value
   * S3Store#ENDPOINT_PROPERTY}, {@value S3Store#ANONYMOUS_PROPERTY} and {@value
   * S3Store#CLIENT_PROPERTY}, else the environment variables {@value S3Store#ENDPOINT_ENV}, {@value
   * S3Store#ANONYMOUS_ENV} and {@code AWS_NO_SIGN_REQUEST}, else {@link #DEFAULT}.
   *
   * @throws StoreException naming the location for an unknown option or a bad value
   */
  public static S3Options of(StoreLocation location) {
    Map<String, String> query =
        location.options(
            QUERY_OPTIONS,
            "region, endpoint, path_style, anonymous, max_connections, max_attempts,"
                + " request_timeout, client");
    String endpoint =
        first(
            query.get("endpoint"),
            query.get("endpoint_url"),
            System.getProperty(S3Store.ENDPOINT_PROPERTY),
            System.getenv(S3Store.ENDPOINT_ENV));
    boolean anonymous =
        truthy(
            first(
                query.get("anonymous"),
                query.get("anon"),
                System.getProperty(S3Store.ANONYMOUS_PROPERTY),
                System.getenv(S3Store.ANONYMOUS_ENV),
                System.getenv("AWS_NO_SIGN_REQUEST")));
    boolean pathStyle =
        query.containsKey("path_style") ? truthy(query.get("path_style")) : endpoint != null;
    URI endpointUri = null;
    if (endpoint != null) {
      try {
        endpointUri = new URI(endpoint);
      } catch (URISyntaxException e) {
        throw location.error("bad endpoint '" + endpoint + "': " + e.getMessage());
      }
    }
    String client = first(query.get("client"), System.getProperty(S3Store.CLIENT_PROPERTY));
    if (client != null && !client.equals("sdk") && !client.equals("zaro")) {
      throw location.error("option client=" + client + " is not 'sdk' or 'zaro'");
    }
    boolean sdkGets = "sdk".equals(client);
    RetryOptions retry = DEFAULT.retry().withLimits(location.limits()); // the query may refine
    if (query.containsKey("request_timeout")) {
      double seconds = number(location, "request_timeout", query.get("request_timeout"));
      retry = retry.withRequestTimeout(Duration.ofMillis(Math.round(seconds * 1000)));
    }
    try {
      int maxConnections =
          query.containsKey("max_connections")
              ? (int) number(location, "max_connections", query.get("max_connections"))
              : DEFAULT.maxConnections();
      if (query.containsKey("max_attempts")) {
        int attempts = (int) number(location, "max_attempts", query.get("max_attempts"));
        retry = retry.withRetries(attempts, retry.initialBackoff(), retry.maxBackoff());
      }
      return new S3Options(
          query.get("region"),
          endpointUri,
          pathStyle,
          anonymous,
          maxConnections,
          retry,
          DEFAULT.hedging(),
          sdkGets,
          location.limits().maxObjectSize());
    } catch (IllegalArgumentException e) {
      throw location.error(e.getMessage());
    }
  }

  private static double number(StoreLocation location, String option, String value) {
    try {
      double v = Double.parseDouble(value.trim());
      if (v > 0 && v < Integer.MAX_VALUE) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw location.error("option " + option + "=" + value + " is not a positive number");
  }

  private static String first(String... values) {
    for (String v : values) {
      if (v != null && !v.isBlank()) {
        return v;
      }
    }
    return null;
  }

  private static boolean truthy(String v) {
    return v != null
        && List.of("1", "true", "yes", "on").contains(v.trim().toLowerCase(Locale.ROOT));
  }
}
