package dev.zaro.arrow.store;

import java.io.Serializable;
import java.time.Duration;

/**
 * How long a remote read may take and how much it may receive: the settings a user gives every
 * remote store the same way (CLI {@code --timeout}, {@code --request-timeout}, {@code --retries},
 * {@code --max-object-size}, {@code --max-metadata-size}; {@code ZaroOptions.remote}; the Spark
 * options of the same names), which each store applies to its own options ({@code
 * HttpOptions.withLimits} in zaro-remote, for http(s) and GCS; the S3 store's in zaro-s3). A plain
 * immutable value, serializable (Spark sends it to its executors with a read's options).
 *
 * <p>Timeouts, as the request policy enforces them:
 *
 * <ul>
 *   <li>{@code timeout}: the most one remote read of one key (a chunk, a shard's range, a metadata
 *       document) may take in all, counted from when it is requested: the time it waits for the
 *       host's request limit, every attempt, and the backoff between them. Past it the read fails
 *       with one line naming the host, the key and how long it waited.
 *   <li>{@code requestTimeout}: an attempt that hears nothing from its server (no connection
 *       progress, no reply byte) for this long fails, and is retried; its clock starts when the
 *       attempt is sent (the time it queued behind the host's limit counts against {@code timeout}
 *       instead), and every arriving byte restarts it, so a slow but steady body is not cut. A
 *       no-progress timeout counts against the host's health (its adaptive limit halves).
 * </ul>
 *
 * @param timeout the deadline of one key's read: attempts, queueing and backoff together
 * @param requestTimeout no bytes for this long fails an attempt
 * @param retries attempts after the first (0 = one attempt only)
 * @param maxObjectSize the most bytes one reply's body may bring when the request did not ask for a
 *     range of known length (a whole object, or a server that ignored {@code Range}); a reply
 *     announcing more is refused before any memory is allocated for it
 * @param maxMetadataSize the most bytes of one metadata document ({@code zarr.json}, {@code
 *     .zarray}, {@code .zmetadata}, a kerchunk JSON file)
 */
public record RemoteLimits(
    Duration timeout,
    Duration requestTimeout,
    int retries,
    long maxObjectSize,
    long maxMetadataSize)
    implements Serializable {
  /** The default most bytes of a whole object's body: 4 GiB. */
  public static final long DEFAULT_MAX_OBJECT_SIZE = 4L << 30;

  /** The default most bytes of one metadata document: 256 MiB. */
  public static final long DEFAULT_MAX_METADATA_SIZE = 256L << 20;

  /** 5 minutes per key's read, 30 s without a byte, 4 retries, 4 GiB objects, 256 MiB metadata. */
  public static final RemoteLimits DEFAULT =
      new RemoteLimits(
          Duration.ofMinutes(5),
          Duration.ofSeconds(30),
          4,
          DEFAULT_MAX_OBJECT_SIZE,
          DEFAULT_MAX_METADATA_SIZE);

  /** Checks the timeouts are positive, the retries not negative and the sizes positive. */
  public RemoteLimits {
    positive("timeout", timeout);
    positive("requestTimeout", requestTimeout);
    if (retries < 0) {
      throw new IllegalArgumentException("retries must not be negative, not " + retries);
    }
    if (maxObjectSize < 1) {
      throw new IllegalArgumentException("maxObjectSize must be at least 1, not " + maxObjectSize);
    }
    if (maxMetadataSize < 1) {
      throw new IllegalArgumentException(
          "maxMetadataSize must be at least 1, not " + maxMetadataSize);
    }
  }

  private static void positive(String name, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, not " + d);
    }
  }

  /** These limits with a read deadline of {@code t} per key. */
  public RemoteLimits withTimeout(Duration t) {
    return new RemoteLimits(t, requestTimeout, retries, maxObjectSize, maxMetadataSize);
  }

  /** These limits failing an attempt that hears nothing for {@code t}. */
  public RemoteLimits withRequestTimeout(Duration t) {
    return new RemoteLimits(timeout, t, retries, maxObjectSize, maxMetadataSize);
  }

  /** These limits with {@code n} retries after the first attempt. */
  public RemoteLimits withRetries(int n) {
    return new RemoteLimits(timeout, requestTimeout, n, maxObjectSize, maxMetadataSize);
  }

  /** These limits taking whole objects of at most {@code bytes}. */
  public RemoteLimits withMaxObjectSize(long bytes) {
    return new RemoteLimits(timeout, requestTimeout, retries, bytes, maxMetadataSize);
  }

  /** These limits taking metadata documents of at most {@code bytes}. */
  public RemoteLimits withMaxMetadataSize(long bytes) {
    return new RemoteLimits(timeout, requestTimeout, retries, maxObjectSize, bytes);
  }
}
