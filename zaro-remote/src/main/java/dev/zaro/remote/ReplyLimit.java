package dev.zaro.remote;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.remote.spi.ContentRange;

/**
 * What one attempt of a request may receive, and when it last heard from its server: the bound on a
 * reply's body that {@link Http1Client} (and {@link ArrowBody} on the {@code java.net.http} path)
 * checks before it allocates a byte of it, and the clock of the no-progress timeout ({@link
 * RetryOptions#requestTimeout}) that the request policy reads.
 *
 * <ul>
 *   <li>A {@code 206} reply to a range of known length (a prefix or suffix range) may bring at most
 *       that length: a server that announces more (a {@code Content-Length} or {@code
 *       Content-Range} past the range) is refused before its body is allocated.
 *   <li>Any other body (a whole object, a {@code 200} to a ranged request whose server ignored the
 *       {@code Range}) may bring at most {@code maxObject} bytes ({@link
 *       HttpOptions#maxObjectSize}, or a metadata document's cap): announced or, for a chunked or
 *       close-delimited body that grows as its bytes arrive, received.
 * </ul>
 *
 * Thread-safe: the I/O thread stamps {@link #touch}, the policy's timer reads {@link
 * #lastActivityNanos}.
 */
final class ReplyLimit {
  private final long asked;
  private final long maxObject;
  private final String objectCap;
  private volatile long lastNanos = System.nanoTime();

  /**
   * The limit of a request for {@code range}: its length when it has one (a prefix or suffix range:
   * a {@code 206} brings at most that), else {@code maxObject}.
   */
  static ReplyLimit of(ByteRange range, long maxObject) {
    return new ReplyLimit(ContentRange.askedLength(range), maxObject, "--max-object-size");
  }

  /**
   * @param asked the length of the range asked for, or -1 for a whole object
   * @param maxObject the most bytes of any other body
   * @param objectCap what sets {@code maxObject}, for messages ({@code "--max-object-size"})
   */
  ReplyLimit(long asked, long maxObject, String objectCap) {
    this.asked = asked;
    this.maxObject = maxObject;
    this.objectCap = objectCap;
  }

  /** The most body bytes a reply of {@code status} may announce or bring. */
  long maxBody(int status) {
    return status == 206 && asked >= 0 ? Math.min(asked, maxObject) : maxObject;
  }

  /**
   * The error for a reply of {@code status} whose body is longer than {@link #maxBody}: it
   * announces {@code length} bytes ({@code announced}), or that many have arrived.
   *
   * @param where the request, as messages name it: {@code key 'a/b' (URL)}
   */
  StoreException refused(String where, int status, long length, boolean announced) {
    long max = maxBody(status);
    String what =
        status == 206 && asked >= 0 && asked <= maxObject
            ? "the " + asked + "-byte range asked for"
            : "the cap of " + max + " bytes (" + objectCap + ")";
    return new StoreException(
        where
            + ": refused an HTTP "
            + status
            + " reply whose body "
            + (announced
                ? "announces " + length + " bytes"
                : "brought at least " + length + " bytes")
            + ", more than "
            + what);
  }

  /** Bytes (or a connection event) of this attempt's reply arrived now. */
  void touch() {
    lastNanos = System.nanoTime();
  }

  /** {@link System#nanoTime()} when this attempt last heard from its server (or was made). */
  long lastActivityNanos() {
    return lastNanos;
  }
}
