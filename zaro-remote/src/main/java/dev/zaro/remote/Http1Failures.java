package dev.zaro.remote;

import dev.zaro.arrow.error.StoreException;
import java.io.IOException;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

/**
 * What a failure on one of {@link Http1Client}'s connections fails its request with: whether it is
 * retried (an {@link IOException}) or final (a {@link StoreException}), and the message naming the
 * request and the host. A broken or cut-off connection needs no sorting: it is an {@link
 * IOException} as it is.
 */
final class Http1Failures {
  private Http1Failures() {}

  /**
   * A runtime failure as the request's error: a {@link StoreException} (a malformed reply) as it
   * is, anything else (the TLS engine's, such as a trust store with no certificate in it) as a
   * {@link StoreException} naming the request and the connection's host.
   *
   * @param tls whether the connection speaks TLS
   * @param hostPort the connection's scheme, host and port
   */
  static RuntimeException unexpected(
      Http1Exchange x, boolean tls, String hostPort, RuntimeException e) {
    if (e instanceof StoreException) {
      return e;
    }
    return new StoreException(
        x.where + ": " + (tls ? "TLS with " : "HTTP with ") + hostPort + " failed: " + e, e);
  }

  /**
   * What a TLS failure fails the request with: a refused handshake (the certificate, the protocols)
   * is a {@link StoreException}, which no retry would change; anything else (a bad record on an
   * established connection) an {@link IOException}, retried as a broken connection.
   */
  static Throwable tls(Http1Exchange x, String hostPort, SSLException e) {
    if (e instanceof SSLHandshakeException) {
      return new StoreException(
          x.where + ": the TLS handshake with " + hostPort + " failed: " + reasons(e), e);
    }
    return new IOException(x.where + ": TLS failure on " + hostPort + ": " + reasons(e), e);
  }

  /**
   * An exception's message and its causes' where they say more (BoringSSL's engine says "General
   * OpenSslEngine problem" and leaves the trust manager's reason to its cause).
   */
  static String reasons(Throwable e) {
    StringBuilder text = new StringBuilder(String.valueOf(e.getMessage()));
    for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      String m = c.getMessage();
      if (m != null && !text.toString().contains(m)) {
        text.append(": ").append(m);
      }
    }
    return text.toString();
  }
}
