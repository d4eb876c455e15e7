package dev.zaro.s3;

import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.exec.Futures;
import dev.zaro.remote.spi.RequestPolicy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkServiceException;

/**
 * One S3 request as the shared {@link RequestPolicy} sends it: one SDK call per attempt (and per
 * hedge), the SDK's own retries being off ({@link S3Connection}). What an attempt ends with is
 * sorted for the policy:
 *
 * <ul>
 *   <li>a value: status 200;
 *   <li>S3's error reply ({@link SdkServiceException}: {@code 503 SlowDown}, 500, 403, 404,
 *       400...): a reply with that status (and {@code Retry-After}), so 429 and 5xx are retried and
 *       shrink the host's limit as over HTTP, and the store reads the others (404: absent);
 *   <li>a broken connection or a read timeout (an {@link IOException} anywhere in the cause chain):
 *       retried;
 *   <li>anything else (a malformed body, the allocator's errors, the SDK refusing a request):
 *       final.
 * </ul>
 *
 * <p>{@link #cancel} (the caller gave up) aborts every attempt: bodies being filled are freed at
 * once and the SDK calls cancelled; no further attempt starts. A value that reaches no one (a hedge
 * that lost, an attempt cancelled as it completed) is given to {@code release}.
 *
 * @param <T> what a successful call yields
 */
final class S3Request<T> implements Supplier<RequestPolicy.Call<S3Reply<T>>> {
  /**
   * One SDK call under way.
   *
   * @param future completes with the call's value
   * @param abort frees what the call is filling and cancels it
   */
  record Sent<T>(CompletableFuture<T> future, Runnable abort) {}

  private final Supplier<Sent<T>> sender;
  private final Consumer<T> release;
  private final boolean hedgeable;
  private final List<Attempt> attempts = new ArrayList<>(2);
  private boolean cancelled;

  /**
   * @param sender starts one SDK call (called once per attempt)
   * @param release frees a value that reaches no one
   * @param hedgeable whether the policy may hedge the request (a GET into a buffer)
   */
  S3Request(Supplier<Sent<T>> sender, Consumer<T> release, boolean hedgeable) {
    this.sender = sender;
    this.release = release;
    this.hedgeable = hedgeable;
  }

  /** A request with nothing to free, never hedged. */
  static <T> S3Request<T> of(Supplier<CompletableFuture<T>> call) {
    return new S3Request<>(
        () -> {
          CompletableFuture<T> f = call.get();
          return new Sent<>(f, () -> f.cancel(true));
        },
        v -> {},
        false);
  }

  /** Sends this request through {@code policy}; {@code what} names it in messages. */
  CompletableFuture<S3Reply<T>> send(RequestPolicy policy, String what) {
    return policy.send(what, this, new Replies<>());
  }

  /** The caller gave up: abort every attempt, start no more. */
  void cancel() {
    List<Attempt> all;
    synchronized (this) {
      cancelled = true;
      all = List.copyOf(attempts);
    }
    for (Attempt a : all) {
      a.abort();
    }
  }

  @Override
  public RequestPolicy.Call<S3Reply<T>> get() {
    Attempt a = new Attempt();
    synchronized (this) {
      attempts.add(a);
    }
    return a;
  }

  /** Whether a failure is a broken connection or a read timeout. */
  private static boolean brokenConnection(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof IOException) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /** One attempt: one SDK call. */
  private final class Attempt implements RequestPolicy.Call<S3Reply<T>> {
    private final CompletableFuture<S3Reply<T>> reply = new CompletableFuture<>();
    private Sent<T> sent;

    @Override
    // completion callbacks: each reports into reply, or frees what no one takes
    @SuppressWarnings("FutureReturnValueIgnored")
    public CompletableFuture<S3Reply<T>> start() {
      synchronized (S3Request.this) {
        if (cancelled) {
          reply.completeExceptionally(new CancellationException("cancelled"));
          return reply;
        }
      }
      Sent<T> s;
      try {
        s = sender.get();
      } catch (RuntimeException e) {
        fail(e);
        return reply;
      }
      synchronized (this) {
        sent = s;
      }
      boolean late;
      synchronized (S3Request.this) {
        late = cancelled; // cancel() came while the call was being made
      }
      if (late) {
        s.abort().run();
      }
      s.future()
          .whenComplete(
              (v, e) -> {
                if (e != null) {
                  fail(Futures.unwrap(e));
                } else if (!reply.complete(new S3Reply<>(v, null, 1))) {
                  release.accept(v); // cancelled meanwhile (a deadline, a lost hedge)
                }
              });
      reply.whenComplete(
          (r, e) -> {
            if (reply.isCancelled()) {
              abort();
            }
          });
      return reply;
    }

    private void fail(Throwable cause) {
      if (cause instanceof SdkServiceException s) {
        reply.complete(new S3Reply<>(null, s, 1));
      } else if (!(cause instanceof ZaroException) && brokenConnection(cause)) {
        reply.completeExceptionally(
            cause instanceof IOException ? cause : new IOException(cause.getMessage(), cause));
      } else {
        reply.completeExceptionally(cause);
      }
    }

    void abort() {
      Sent<T> s;
      synchronized (this) {
        s = sent;
      }
      if (s != null) {
        s.abort().run();
      }
    }

    @Override
    // frees the value once (if ever) the attempt yields one
    @SuppressWarnings("FutureReturnValueIgnored")
    public void abandon() {
      abort();
      reply.thenAccept(
          r -> {
            if (r.value() != null) {
              release.accept(r.value());
            }
          });
    }

    @Override
    public boolean hedgeable() {
      return hedgeable;
    }
  }

  /** Status and {@code Retry-After} of S3 replies; attempts counted on the last. */
  private static final class Replies<T> implements RequestPolicy.Replies<S3Reply<T>> {
    @Override
    public int status(S3Reply<T> reply) {
      return reply.status();
    }

    @Override
    public Optional<String> retryAfter(S3Reply<T> reply) {
      if (reply.error() instanceof AwsServiceException e
          && e.awsErrorDetails() != null
          && e.awsErrorDetails().sdkHttpResponse() != null) {
        return e.awsErrorDetails().sdkHttpResponse().firstMatchingHeader("Retry-After");
      }
      return Optional.empty();
    }

    @Override
    public S3Reply<T> exhausted(S3Reply<T> reply, int attempts) {
      return new S3Reply<>(reply.value(), reply.error(), attempts);
    }
  }
}
