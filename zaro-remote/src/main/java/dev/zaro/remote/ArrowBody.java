package dev.zaro.remote;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.remote.spi.BodyBuffer;
import dev.zaro.remote.spi.ContentRange;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import javax.net.ssl.SSLSession;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Streams a {@code 200}/{@code 206} reply's body straight into one {@link ArrowBuf} from the
 * caller's allocator through a {@link BodyBuffer}, sized by the reply's {@code Content-Range} (or
 * {@code Content-Length}; grown by doubling when neither says), with no intermediate {@code
 * byte[]}. Any other status discards the body (the response's body is then {@code null}).
 *
 * <p>A body longer or shorter than announced fails the response with a {@link StoreException}
 * naming the key and URL. Ownership: the buffer passes to whoever receives the response; a body
 * that never reaches anyone (an error mid-body, a cancelled or timed-out attempt) is freed by the
 * subscriber, or by {@link #abandon}, which the sender calls on every attempt that did not complete
 * with a response. One handler per attempt.
 */
final class ArrowBody implements HttpResponse.BodyHandler<ArrowBuf> {
  private final BufferAllocator allocator;
  private final String where;
  private final ReplyLimit limit;
  private final List<Sink> sinks = new ArrayList<>(1);
  private final List<ArrowBuf> adopted = new ArrayList<>(1);
  private boolean abandoned;
  private volatile String errorText; // the start of an error reply's body (java.net.http), or null

  /** A handler for a read of {@code key} at {@code url}, its body bounded by {@code limit}. */
  ArrowBody(BufferAllocator allocator, String key, URI url, ReplyLimit limit) {
    this(allocator, "key '" + key + "' (" + url + ")", limit);
  }

  /**
   * A handler whose messages name the request as {@code where} (a request for no key), its body
   * bounded by {@code limit}.
   */
  ArrowBody(BufferAllocator allocator, String where, ReplyLimit limit) {
    this.allocator = allocator;
    this.where = where;
    this.limit = limit;
  }

  /** This attempt's bound on its body and its no-progress clock. */
  ReplyLimit limit() {
    return limit;
  }

  @Override
  public HttpResponse.BodySubscriber<ArrowBuf> apply(HttpResponse.ResponseInfo info) {
    int status = info.statusCode();
    if (Http1Client.keepsErrorText(status)) {
      return new ErrorSink();
    }
    if (status != 200 && status != 206) {
      return HttpResponse.BodySubscribers.replacing(null);
    }
    limit.touch();
    long announced = announced(info);
    Sink sink = new Sink(announced, status);
    if (announced > limit.maxBody(status)) { // refused before anything is allocated
      sink.refused = limit.refused(where, status, announced, true);
    }
    synchronized (this) {
      if (abandoned) {
        sink.abandon();
      }
      sinks.add(sink);
    }
    return sink;
  }

  /** The allocator bodies go to. */
  BufferAllocator allocator() {
    return allocator;
  }

  /** What the body is, for error messages: {@code key 'a/b' (http://host/a/b)}. */
  String where() {
    return where;
  }

  /**
   * Takes a reply that {@link Http1Client} received for this attempt as if it had come through this
   * handler: its body (if any) is freed by {@link #abandon} like a streamed one.
   *
   * @param reply the reply, whose body this handler now owns until the response is handed on
   * @param request the request it answers
   * @return the reply as a {@link HttpResponse}
   */
  HttpResponse<ArrowBuf> adopt(Http1Client.Response reply, HttpRequest request) {
    ArrowBuf body = reply.body();
    HttpHeaders headers = HttpHeaders.of(reply.headers(), (k, v) -> true);
    if (body != null) {
      long announced = announced(reply.status(), headers);
      if (announced >= 0 && announced != body.writerIndex()) {
        body.close();
        throw BodyBuffer.lengthMismatch(where, announced, body.writerIndex());
      }
      boolean late;
      synchronized (this) {
        late = abandoned;
        if (!late) {
          adopted.add(body);
        }
      }
      if (late) {
        body.close();
        body = null;
      }
    }
    return new Http1Response(reply.status(), headers, body, request, reply.errorText());
  }

  /**
   * Frees any body this attempt received or still receives: called when the attempt ends without
   * handing its response on (an error, a cancellation, a timeout).
   */
  void abandon() {
    List<Sink> all;
    List<ArrowBuf> bodies;
    synchronized (this) {
      abandoned = true;
      all = List.copyOf(sinks);
      bodies = List.copyOf(adopted);
      adopted.clear();
    }
    all.forEach(Sink::abandon);
    bodies.forEach(ArrowBuf::close);
  }

  /** A reply that kept the start of its error body (see {@link Http1Client.Response#errorText}). */
  interface ErrorText {
    /** The start of the error reply's body as text, or null. */
    String errorText();
  }

  /**
   * {@code reply} (a {@code java.net.http} one this handler received) with the start of its error
   * body as {@link ErrorText}, when it had one; else {@code reply} itself.
   */
  <T> HttpResponse<T> withErrorText(HttpResponse<T> reply) {
    String text = errorText;
    return text == null ? reply : new Quoted<>(reply, text);
  }

  /**
   * Keeps the first {@link Http1Client#ERROR_TEXT_BYTES} of an error reply's body, for its message,
   * and reads the rest to its end; the body itself is null, as for other non-2xx replies.
   */
  private final class ErrorSink implements HttpResponse.BodySubscriber<ArrowBuf> {
    private final byte[] kept = new byte[Http1Client.ERROR_TEXT_BYTES];
    private int length;
    private final CompletableFuture<ArrowBuf> done = new CompletableFuture<>();

    @Override
    public CompletionStage<ArrowBuf> getBody() {
      return done;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
      for (ByteBuffer item : items) {
        int n = Math.min(item.remaining(), kept.length - length);
        item.get(kept, length, n);
        length += n;
      }
    }

    @Override
    public void onError(Throwable failure) {
      done.completeExceptionally(failure);
    }

    @Override
    public void onComplete() {
      errorText = new String(kept, 0, length, StandardCharsets.UTF_8);
      done.complete(null);
    }
  }

  /** A {@code java.net.http} reply with the start of its error body. */
  private record Quoted<T>(HttpResponse<T> reply, String errorText)
      implements HttpResponse<T>, ErrorText {
    @Override
    public int statusCode() {
      return reply.statusCode();
    }

    @Override
    public HttpRequest request() {
      return reply.request();
    }

    @Override
    public Optional<HttpResponse<T>> previousResponse() {
      return reply.previousResponse();
    }

    @Override
    public HttpHeaders headers() {
      return reply.headers();
    }

    @Override
    public T body() {
      return reply.body();
    }

    @Override
    public Optional<SSLSession> sslSession() {
      return reply.sslSession();
    }

    @Override
    public URI uri() {
      return reply.uri();
    }

    @Override
    public HttpClient.Version version() {
      return reply.version();
    }
  }

  /** An {@link Http1Client} reply seen as a {@code java.net.http} one. */
  private record Http1Response(
      int statusCode, HttpHeaders headers, ArrowBuf body, HttpRequest request, String errorText)
      implements HttpResponse<ArrowBuf>, ErrorText {
    @Override
    public Optional<HttpResponse<ArrowBuf>> previousResponse() {
      return Optional.empty();
    }

    @Override
    public Optional<SSLSession> sslSession() {
      return Optional.empty();
    }

    @Override
    public URI uri() {
      return request.uri();
    }

    @Override
    public HttpClient.Version version() {
      return HttpClient.Version.HTTP_1_1;
    }
  }

  /** The body length the headers announce, or -1 when they do not say. */
  private static long announced(HttpResponse.ResponseInfo info) {
    return announced(info.statusCode(), info.headers());
  }

  /** The body length a reply's headers announce, or -1 when they do not say. */
  private static long announced(int status, HttpHeaders headers) {
    if (status == 206) {
      long n =
          headers
              .firstValue("Content-Range")
              .flatMap(ContentRange::parse)
              .map(ContentRange::length)
              .orElse(-1L);
      if (n >= 0) {
        return n;
      }
    }
    return headers.firstValueAsLong("Content-Length").orElse(-1);
  }

  private final class Sink implements HttpResponse.BodySubscriber<ArrowBuf> {
    private final CompletableFuture<ArrowBuf> result = new CompletableFuture<>();
    private final long expected;
    private final int status;
    private StoreException refused; // set before it subscribes: fail at once, allocate nothing
    private Flow.Subscription subscription;
    private BodyBuffer body; // while the body arrives
    private ArrowBuf done; // the complete body, freed by abandon() if its response reaches no one
    private boolean finished;

    Sink(long expected, int status) {
      this.expected = expected;
      this.status = status;
    }

    @Override
    public CompletionStage<ArrowBuf> getBody() {
      return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      synchronized (this) {
        subscription = s;
        if (refused != null) {
          fail(refused);
        }
        if (!finished) {
          try {
            body = new BodyBuffer(allocator, expected, where, limit.maxBody(status));
          } catch (RuntimeException e) {
            fail(e);
          }
        }
      }
      if (finished) {
        s.cancel();
      } else {
        s.request(Long.MAX_VALUE);
      }
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
      synchronized (this) {
        if (finished) {
          return;
        }
        limit.touch();
        try {
          for (ByteBuffer item : items) {
            long got = body.written() + item.remaining();
            if (got > limit.maxBody(status)) {
              throw limit.refused(where, status, got, false);
            }
            body.append(item);
          }
        } catch (RuntimeException e) {
          fail(e);
        }
      }
      if (finished) {
        subscription.cancel();
      }
    }

    @Override
    public void onError(Throwable error) {
      synchronized (this) {
        fail(error);
      }
    }

    @Override
    public void onComplete() {
      synchronized (this) {
        if (finished) {
          return;
        }
        try {
          done = body.take();
        } catch (RuntimeException e) {
          fail(e); // a body shorter than announced
          return;
        }
        body = null;
        finished = true;
      }
      result.complete(done);
    }

    /** Ends this body with an error, freeing what it holds; call holding the lock. */
    private void fail(Throwable error) {
      if (finished) {
        return;
      }
      finished = true;
      if (body != null) {
        body.close();
        body = null;
      }
      result.completeExceptionally(error);
    }

    void abandon() {
      Flow.Subscription s;
      synchronized (this) {
        s = subscription;
        if (!finished) {
          fail(new StoreException("the request for " + where + " was dropped"));
        } else if (done != null && result.isDone() && !result.isCompletedExceptionally()) {
          done.close(); // complete, but its response never reached anyone
          done = null;
        }
      }
      if (s != null) {
        s.cancel();
      }
    }
  }
}
