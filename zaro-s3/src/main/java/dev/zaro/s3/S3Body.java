package dev.zaro.s3;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.remote.spi.BodyBuffer;
import java.nio.ByteBuffer;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.async.SdkPublisher;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * Writes one GetObject body into an {@link ArrowBuf} from the caller's allocator through a {@link
 * BodyBuffer}, sized from the reply's {@code Content-Length} (grown by doubling only if a server
 * sends none). The SDK calls {@link #prepare} once per attempt: each attempt fills its own buffer,
 * and a failed attempt's buffer is released before the next starts. The future of the last attempt
 * completes with a buffer the caller then owns; {@link #abort} (the caller cancelled) releases
 * whatever is being filled and makes later deliveries no-ops.
 *
 * <p>With a {@link Progress}, each piece of a body whose {@code Content-Length} is known is told of
 * as it is written (under this body's lock, so an {@link #abort} cannot free the buffer meanwhile).
 */
final class S3Body implements AsyncResponseTransformer<GetObjectResponse, ArrowBuf> {
  /** Told of body bytes as they are written into a buffer that does not move. */
  @FunctionalInterface
  interface Progress {
    /**
     * Bytes {@code [offset, offset + length)} of {@code body} landed; {@code status} is 206 for a
     * reply with a {@code Content-Range}, else 200.
     */
    void arrived(S3Body from, int status, ArrowBuf body, long offset, long length);
  }

  private final BufferAllocator allocator;
  private final Progress progress; // or null
  private final String where;
  private final long asked;
  private final long maxObject;
  private final Object lock = new Object();
  private boolean aborted;
  private CompletableFuture<ArrowBuf> future;
  private GetObjectResponse response;
  private BodyBuffer body;

  /**
   * @param where the body's key, object and store, for error messages
   * @param progress told of the body's pieces as they land, or null
   * @param asked the length of the range asked for ({@code ContentRange.askedLength}), or -1
   * @param maxObject the most bytes of any other body (a whole object, a range S3 ignored)
   */
  S3Body(BufferAllocator allocator, String where, Progress progress, long asked, long maxObject) {
    this.allocator = allocator;
    this.where = where;
    this.progress = progress;
    this.asked = asked;
    this.maxObject = maxObject;
  }

  GetObjectResponse response() {
    synchronized (lock) {
      return response;
    }
  }

  @Override
  public CompletableFuture<ArrowBuf> prepare() {
    CompletableFuture<ArrowBuf> f = new CompletableFuture<>();
    boolean cancelled;
    synchronized (lock) {
      release();
      future = f;
      response = null;
      cancelled = aborted;
    }
    if (cancelled) {
      f.completeExceptionally(new CancellationException("cancelled"));
    }
    return f;
  }

  @Override
  public void onResponse(GetObjectResponse r) {
    CompletableFuture<ArrowBuf> f;
    RuntimeException failure = null;
    synchronized (lock) {
      f = future;
      response = r;
      if (aborted) {
        return;
      }
      long announced = r.contentLength() == null ? -1 : r.contentLength();
      boolean partial = r.contentRange() != null;
      long max = partial && asked >= 0 ? Math.min(asked, maxObject) : maxObject;
      if (announced > max) { // refused before anything is allocated
        failure =
            new StoreException(
                where
                    + ": refused a reply whose body announces "
                    + announced
                    + " bytes, more than "
                    + (partial && asked >= 0 && asked <= maxObject
                        ? "the " + asked + "-byte range asked for"
                        : "the cap of " + max + " bytes (--max-object-size)"));
      } else {
        try {
          body = new BodyBuffer(allocator, announced, where, max);
        } catch (RuntimeException e) {
          failure = e;
        }
      }
    }
    if (failure != null) {
      f.completeExceptionally(failure);
    }
  }

  @Override
  public void onStream(SdkPublisher<ByteBuffer> publisher) {
    CompletableFuture<ArrowBuf> f;
    synchronized (lock) {
      f = future;
    }
    publisher.subscribe(new Writer(f));
  }

  @Override
  public void exceptionOccurred(Throwable error) {
    CompletableFuture<ArrowBuf> f;
    synchronized (lock) {
      release();
      f = future;
    }
    if (f != null) {
      f.completeExceptionally(error);
    }
  }

  /**
   * The caller gave up: release the partial buffer, ignore whatever still arrives.
   *
   * @return whether a whole body had already been handed to the SDK: it comes out of the SDK's
   *     future, so that future must not be cancelled (the buffer would be lost with it)
   */
  boolean abort() {
    CompletableFuture<ArrowBuf> f;
    synchronized (lock) {
      aborted = true;
      release();
      f = future;
    }
    if (f == null) {
      return false;
    }
    f.completeExceptionally(new CancellationException("cancelled"));
    return !f.isCompletedExceptionally();
  }

  /** Under {@link #lock}. */
  private void release() {
    if (body != null) {
      body.close();
      body = null;
    }
  }

  /** Copies one attempt's body chunks into its buffer. */
  private final class Writer implements Subscriber<ByteBuffer> {
    private final CompletableFuture<ArrowBuf> attempt;
    private Subscription subscription;

    Writer(CompletableFuture<ArrowBuf> attempt) {
      this.attempt = attempt;
    }

    /** Whether this attempt still fills the current buffer; under {@link #lock}. */
    private boolean live() {
      return attempt == future && body != null && !attempt.isDone();
    }

    @Override
    public void onSubscribe(Subscription s) {
      subscription = s;
      boolean live;
      synchronized (lock) {
        live = !aborted && attempt == future && !attempt.isDone();
      }
      if (live) {
        s.request(Long.MAX_VALUE);
      } else {
        s.cancel();
      }
    }

    @Override
    public void onNext(ByteBuffer chunk) {
      RuntimeException failure = null;
      synchronized (lock) {
        if (!live()) {
          return;
        }
        try {
          long offset = body.written();
          body.append(chunk);
          ArrowBuf settled = body.settled();
          if (progress != null && settled != null && body.written() > offset) {
            int status = response != null && response.contentRange() != null ? 206 : 200;
            progress.arrived(S3Body.this, status, settled, offset, body.written() - offset);
          }
        } catch (RuntimeException e) {
          release();
          failure = e;
        }
      }
      if (failure != null) {
        subscription.cancel();
        attempt.completeExceptionally(failure);
      }
    }

    @Override
    public void onError(Throwable t) {
      synchronized (lock) {
        if (attempt == future) {
          release();
        }
      }
      attempt.completeExceptionally(t);
    }

    @Override
    public void onComplete() {
      ArrowBuf out = null;
      RuntimeException failure = null;
      synchronized (lock) {
        if (!live()) {
          return;
        }
        try {
          out = body.take();
        } catch (RuntimeException e) {
          failure = e; // a body shorter than its Content-Length, already freed
        }
        body = null;
      }
      if (failure != null) {
        attempt.completeExceptionally(failure);
      } else if (!attempt.complete(out)) {
        out.close();
      }
    }
  }
}
