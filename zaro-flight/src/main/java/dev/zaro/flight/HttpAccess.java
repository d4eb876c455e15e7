package dev.zaro.flight;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.apache.arrow.flight.CallStatus;

/**
 * Who may ask the HTTP port: a request with an accepted bearer token when the server has tokens,
 * and, when the server listens on loopback, only a request whose {@code Host} names loopback.
 *
 * <p>The second check closes DNS rebinding. A page from another site can have its own name resolve
 * to 127.0.0.1; the browser then sends that page's requests to a server on loopback with the site's
 * name as {@code Host}, and lets the page read the answers, since to the browser they come from the
 * page's own origin. A loopback server without tokens (as {@code zaro ui} runs) would hand its
 * store to any site its user visits. Clients that connect to 127.0.0.1, ::1 or localhost send one
 * of those names. A request without a {@code Host} (HTTP/1.0) is not refused: browsers always send
 * one.
 */
final class HttpAccess {
  private final BearerTokens tokens;
  private final boolean loopback;

  /** For a server with {@code tokens} (null: none) listening on {@code host}. */
  HttpAccess(BearerTokens tokens, String host) {
    this.tokens = tokens;
    this.loopback = isLoopback(host);
  }

  /** Refuses (403) a request to a loopback server whose {@code Host} does not name loopback. */
  void checkHost(HttpRequest request) {
    String host = request.headers().get(HttpHeaderNames.HOST);
    if (!loopback || host == null || isLoopback(withoutPort(host))) {
      return;
    }
    throw CallStatus.UNAUTHORIZED
        .withDescription(
            "the Host header '"
                + host
                + "' does not name this server, which listens on loopback: use 127.0.0.1,"
                + " localhost or [::1] (a page from another site would send its own name)")
        .toRuntimeException();
  }

  /** Refuses a request without an accepted bearer token when the server has tokens (401). */
  void authenticate(HttpRequest request) {
    if (tokens == null) {
      return;
    }
    String header = request.headers().get(HttpHeaderNames.AUTHORIZATION);
    if (header == null
        || !header.regionMatches(true, 0, "Bearer ", 0, 7)
        || !tokens.accepts(header.substring(7).trim().getBytes(StandardCharsets.UTF_8))) {
      throw CallStatus.UNAUTHENTICATED
          .withDescription(
              header == null
                  ? "this server needs an 'Authorization: Bearer TOKEN' header"
                  : "the bearer token is not accepted")
          .toRuntimeException();
    }
  }

  /** The host of a {@code Host} header: {@code name}, {@code name:port}, {@code [v6]:port}. */
  private static String withoutPort(String host) {
    String h = host.trim();
    if (h.startsWith("[")) {
      int end = h.indexOf(']');
      return end < 0 ? h : h.substring(1, end);
    }
    int colon = h.indexOf(':');
    return colon >= 0 && colon == h.lastIndexOf(':') ? h.substring(0, colon) : h;
  }

  /** Whether {@code host} is localhost or an IP literal of loopback (never a DNS lookup). */
  private static boolean isLoopback(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    if (h.equals("localhost") || h.endsWith(".localhost")) {
      return true;
    }
    if (!h.matches("[0-9.]+") && !(h.contains(":") && h.matches("[0-9a-f:.]+"))) {
      return false; // a name: resolving it is what rebinding abuses
    }
    try {
      return InetAddress.getByName(h).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }
}
