package dev.zaro.remote;

import dev.zaro.arrow.error.StoreException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An {@link HttpStore} attempt through {@link Http1Client}, which follows no redirects itself: the
 * chain of redirects of one request, followed as {@code java.net.http} follows them, and the reply
 * at its end adopted by the attempt's {@link ArrowBody}.
 */
final class Http1Redirects {
  private Http1Redirects() {}

  /** The most redirects one request follows (as browsers and curl's default, fewer). */
  static final int MAX_REDIRECTS = 5;

  /**
   * Sends a body GET through {@link Http1Client}, its reply adopted by {@code body} (so that the
   * race, the retries and the deadline free it as they free a streamed body). Redirects are
   * followed as {@code java.net.http}'s {@code Redirect.NORMAL} follows them ({@code 301}, {@code
   * 302}, {@code 303}, {@code 307}, {@code 308} with a {@code Location}; never from https to http),
   * up to {@link #MAX_REDIRECTS}, within the attempt and its deadline; the {@code Authorization}
   * header is not sent to another host. Cancelling the returned future cancels the request.
   */
  // completion callbacks: each reports its outcome into the future it completes
  @SuppressWarnings("FutureReturnValueIgnored")
  static <T> CompletableFuture<HttpResponse<T>> send(
      HttpRequest request, ArrowBody body, Http1Client.Progress progress, Duration connectTimeout) {
    Map<String, String> headers = new LinkedHashMap<>();
    request.headers().map().forEach((k, v) -> headers.put(k, String.join(", ", v)));
    CompletableFuture<HttpResponse<T>> mapped = new CompletableFuture<>();
    AtomicReference<CompletableFuture<Http1Client.Response>> current = new AtomicReference<>();
    sendHop(request, request.uri(), headers, body, progress, connectTimeout, mapped, current, 0);
    mapped.whenComplete(
        (r, e) -> {
          if (mapped.isCancelled()) {
            current.get().cancel(true);
          }
        });
    return mapped;
  }

  /** One request of {@link #send}'s chain of redirects, to {@code url}. */
  // completion callbacks: each reports its outcome into the future it completes
  @SuppressWarnings({"FutureReturnValueIgnored", "unchecked"})
  private static <T> void sendHop(
      HttpRequest request,
      URI url,
      Map<String, String> headers,
      ArrowBody body,
      Http1Client.Progress progress,
      Duration connectTimeout,
      CompletableFuture<HttpResponse<T>> mapped,
      AtomicReference<CompletableFuture<Http1Client.Response>> current,
      int hops) {
    CompletableFuture<Http1Client.Response> raw =
        Http1Client.shared()
            .send(
                request.method(),
                url,
                headers,
                body.allocator(),
                body.where(),
                progress,
                connectTimeout,
                body.limit());
    current.set(raw);
    if (mapped.isCancelled()) {
      raw.cancel(true); // cancelled between two hops
      return;
    }
    raw.whenComplete(
        (r, e) -> {
          if (e != null) {
            mapped.completeExceptionally(e);
            return;
          }
          URI next;
          try {
            next = redirectTarget(url, r, hops, body.where());
          } catch (RuntimeException bad) {
            mapped.completeExceptionally(bad); // a 3xx reply: it has no body to free
            return;
          }
          if (next != null) { // a 3xx reply: it has no body to free
            Map<String, String> nextHeaders = headers;
            if (!next.getRawAuthority().equalsIgnoreCase(url.getRawAuthority())) {
              nextHeaders = new LinkedHashMap<>(headers);
              nextHeaders.keySet().removeIf(k -> k.equalsIgnoreCase("Authorization"));
            }
            sendHop(
                request,
                next,
                nextHeaders,
                body,
                progress,
                connectTimeout,
                mapped,
                current,
                hops + 1);
            return;
          }
          HttpResponse<T> response;
          try {
            response = (HttpResponse<T>) body.adopt(r, request);
          } catch (RuntimeException bad) { // a body longer or shorter than announced (freed)
            mapped.completeExceptionally(bad);
            return;
          }
          if (!mapped.complete(response)) {
            body.abandon(); // cancelled meanwhile
          }
        });
  }

  /**
   * Where reply {@code r} to {@code url} redirects, or null if it is not a redirect to follow.
   *
   * @throws StoreException after {@link #MAX_REDIRECTS} redirects, for a {@code Location} that is
   *     not an http(s) URL, and for one from https to http
   */
  private static URI redirectTarget(URI url, Http1Client.Response r, int hops, String where) {
    int status = r.status();
    if (status != 301 && status != 302 && status != 303 && status != 307 && status != 308) {
      return null;
    }
    Optional<String> location = r.header("location");
    if (location.isEmpty()) {
      return null; // nothing to follow: the status stands
    }
    if (hops >= MAX_REDIRECTS) {
      throw new StoreException(
          where
              + ": more than "
              + MAX_REDIRECTS
              + " redirects (the last to "
              + location.get()
              + ")");
    }
    URI next;
    try {
      next = url.resolve(location.get().strip());
    } catch (IllegalArgumentException e) {
      throw new StoreException(
          where + ": HTTP " + status + " to a malformed Location '" + location.get() + "'", e);
    }
    String scheme = next.getScheme() == null ? "" : next.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https")) || next.getRawAuthority() == null) {
      throw new StoreException(
          where + ": HTTP " + status + " to '" + next + "', which is not an http(s) URL");
    }
    if (url.getScheme().equalsIgnoreCase("https") && scheme.equals("http")) {
      throw new StoreException(
          where + ": HTTP " + status + " from https to plain http (" + next + "): not followed");
    }
    return next;
  }
}
