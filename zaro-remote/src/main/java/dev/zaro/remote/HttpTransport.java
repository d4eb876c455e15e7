package dev.zaro.remote;

import dev.zaro.remote.spi.RequestPolicy;
import dev.zaro.remote.spi.StreamRelay;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.memory.ArrowBuf;

/**
 * How {@link HttpStore}'s attempts reach the server: through {@link Http1Client} (with {@link
 * Http1Redirects}), or with {@code -Dzaro.http.client=jdk} through {@code java.net.http}, whose
 * client is made on first use. Each attempt is a {@link RequestPolicy.Call}: the policy retries,
 * hedges and times them. One per store.
 */
final class HttpTransport {
  private static volatile HttpClient sharedClient;

  private final Duration connectTimeout;
  private volatile HttpClient client; // made on first use: reads may never need it

  /**
   * @param connectTimeout how long a new connection may take to open
   */
  HttpTransport(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
  }

  /**
   * Whether body GETs go through {@link Http1Client} (every URL of a store is http or https: the
   * constructor checks its base): yes, unless the system property {@code zaro.http.client} is
   * {@code jdk} (then every request uses {@code java.net.http}).
   */
  static boolean useHttp1() {
    return !"jdk".equals(System.getProperty("zaro.http.client"));
  }

  /**
   * The {@code java.net.http} client (for {@code -Dzaro.http.client=jdk}), made on first use:
   * making one loads and initializes about 500 classes, a cold read's cost that reads through
   * {@link Http1Client} do not pay.
   */
  private HttpClient client() {
    HttpClient c = client;
    if (c == null) {
      synchronized (this) {
        c = client;
        if (c == null) {
          c = sharedClient(connectTimeout);
          client = c;
        }
      }
    }
    return c;
  }

  /** Whether this transport has made (or taken the shared) {@code java.net.http} client. */
  boolean jdkClientMade() {
    return client != null;
  }

  private static HttpClient sharedClient(Duration connectTimeout) {
    if (!connectTimeout.equals(RetryOptions.DEFAULT.connectTimeout())) {
      return newClient(connectTimeout);
    }
    HttpClient c = sharedClient;
    if (c == null) {
      synchronized (HttpTransport.class) {
        c = sharedClient;
        if (c == null) {
          c = newClient(connectTimeout);
          sharedClient = c;
        }
      }
    }
    return c;
  }

  private static HttpClient newClient(Duration connectTimeout) {
    return HttpClient.newBuilder()
        .connectTimeout(connectTimeout)
        .followRedirects(HttpClient.Redirect.NORMAL)
        .version(HttpClient.Version.HTTP_2)
        .build();
  }

  /** One attempt of {@code request}, its reply's body to {@code handler}. */
  <T> RequestPolicy.Call<HttpResponse<T>> attempt(
      HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    return new Attempt<>(request, handler);
  }

  /** One attempt of a streamed {@code request} through {@link Http1Client}. */
  RequestPolicy.Call<HttpResponse<ArrowBuf>> streamed(
      HttpRequest request, ArrowBody body, StreamRelay relay) {
    return new StreamedAttempt(request, body, relay);
  }

  private <T> CompletableFuture<HttpResponse<T>> sendHttp1(
      HttpRequest request, ArrowBody body, Http1Client.Progress progress) {
    return Http1Redirects.send(request, body, progress, connectTimeout);
  }

  /**
   * One attempt of a streamed request through {@link Http1Client}: its body's bytes go to the
   * {@link StreamRelay}; never hedged; fails at once, finally, after an earlier attempt streamed.
   */
  private final class StreamedAttempt implements RequestPolicy.Call<HttpResponse<ArrowBuf>> {
    private final HttpRequest request;
    private final ArrowBody body;
    private final StreamRelay relay;

    StreamedAttempt(HttpRequest request, ArrowBody body, StreamRelay relay) {
      this.request = request;
      this.body = body;
      this.relay = relay;
    }

    @Override
    public CompletableFuture<HttpResponse<ArrowBuf>> start() {
      return relay.start(
          this,
          () ->
              sendHttp1(
                  request,
                  body,
                  (status, buf, offset, length) ->
                      relay.arrived(this, status, buf, offset, length)));
    }

    @Override
    public void abandon() {
      body.abandon();
    }

    @Override
    public long lastActivityNanos() {
      return body.limit().lastActivityNanos();
    }
  }

  /** One attempt of a request through the shared client. */
  private final class Attempt<T> implements RequestPolicy.Call<HttpResponse<T>> {
    private final HttpRequest request;
    private final HttpResponse.BodyHandler<T> handler;

    Attempt(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
      this.request = request;
      this.handler = handler;
    }

    // the cancellation callback reports into the future it watches
    @SuppressWarnings("FutureReturnValueIgnored")
    @Override
    public CompletableFuture<HttpResponse<T>> start() {
      if (!(handler instanceof ArrowBody body)) {
        return client().sendAsync(request, handler);
      }
      if (useHttp1()) {
        return sendHttp1(request, body, null);
      }
      CompletableFuture<HttpResponse<T>> sent = client().sendAsync(request, handler);
      CompletableFuture<HttpResponse<T>> quoted = sent.thenApply(body::withErrorText);
      quoted.whenComplete(
          (r, e) -> {
            if (quoted.isCancelled()) {
              sent.cancel(true); // as a cancel of the JDK's own future did
            }
          });
      return quoted;
    }

    @Override
    public void abandon() {
      if (handler instanceof ArrowBody body) {
        body.abandon();
      }
    }

    @Override
    public long lastActivityNanos() {
      return handler instanceof ArrowBody body
          ? body.limit().lastActivityNanos()
          : RequestPolicy.Call.super.lastActivityNanos();
    }

    @Override
    public boolean hedgeable() {
      return handler instanceof ArrowBody;
    }
  }

  /** Status and {@code Retry-After} of an HTTP response. */
  static final class Replies<T> implements RequestPolicy.Replies<HttpResponse<T>> {
    @Override
    public int status(HttpResponse<T> reply) {
      return reply.statusCode();
    }

    @Override
    public Optional<String> retryAfter(HttpResponse<T> reply) {
      return reply.headers().firstValue("Retry-After");
    }

    @Override
    public void discard(HttpResponse<T> reply) {
      if (reply.body() instanceof ArrowBuf body) {
        body.close();
      }
    }
  }
}
