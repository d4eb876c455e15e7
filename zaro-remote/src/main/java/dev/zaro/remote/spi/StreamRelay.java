package dev.zaro.remote.spi;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.exec.Futures;
import dev.zaro.arrow.store.Store.Arrivals;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.arrow.memory.ArrowBuf;

/**
 * Passes one streamed request's body pieces on to its {@link Arrivals}, with the rules every remote
 * store streams by: the first attempt whose body bytes land claims the stream and other attempts'
 * bytes are not told of; a streamed request is not hedged (the store's attempts say so); an attempt
 * that fails before its first body byte is retried as usual, while once bytes have been told of a
 * failure is final (a {@link StoreException} naming the request and how many bytes had been handed
 * on), since a retry's body would be another buffer. Pieces pass one at a time (under this object's
 * lock).
 */
public final class StreamRelay {
  private final Arrivals arrivals;
  private final boolean whole;
  private final String where;
  private Object claimer;
  private ArrowBuf claimed;
  private long told;

  /**
   * @param arrivals told of the body's pieces
   * @param whole whether the whole value was asked for (then a 200 reply streams too)
   * @param where the request, for messages: {@code key 'a/b' (URL)}
   */
  public StreamRelay(Arrivals arrivals, boolean whole, String where) {
    this.arrivals = arrivals;
    this.whole = whole;
    this.where = where;
  }

  /**
   * Bytes {@code [offset, offset + length)} of {@code attempt}'s body landed in {@code body}, a
   * buffer that does not move; {@code status} is the reply's HTTP status.
   */
  @SuppressWarnings("ReferenceEquality") // which buffer, not what it holds
  public synchronized void arrived(
      Object attempt, int status, ArrowBuf body, long offset, long length) {
    if (!(status == 206 || (status == 200 && whole))) {
      return; // a 200 to a ranged request: only the part asked for is kept, in another buffer
    }
    if (claimer == null) {
      claimer = attempt;
      claimed = body;
    } else if (claimer != attempt || claimed != body) {
      return;
    }
    told += length;
    arrivals.arrived(body, offset, length);
  }

  /**
   * Starts one attempt: fails at once, finally, if an earlier attempt streamed; else {@code send}'s
   * future, whose failure becomes final once {@code attempt} told of bytes (a {@link
   * StoreException} passes as it is). Cancelling the returned future cancels {@code send}'s.
   */
  // completion callbacks: each reports its outcome into the future it completes
  @SuppressWarnings("FutureReturnValueIgnored")
  public <T> CompletableFuture<T> start(Object attempt, Supplier<CompletableFuture<T>> send) {
    if (claimed()) { // an earlier attempt handed bytes on and broke off
      return CompletableFuture.failedFuture(broken(null));
    }
    CompletableFuture<T> sent = send.get();
    CompletableFuture<T> out = new CompletableFuture<>();
    sent.whenComplete(
        (r, e) -> {
          if (e == null) {
            out.complete(r);
          } else if (claimedBy(attempt) && !(Futures.unwrap(e) instanceof StoreException)) {
            out.completeExceptionally(broken(Futures.unwrap(e))); // not retried
          } else {
            out.completeExceptionally(e);
          }
        });
    out.whenComplete(
        (r, e) -> {
          if (out.isCancelled()) {
            sent.cancel(true);
          }
        });
    return out;
  }

  private synchronized boolean claimedBy(Object attempt) {
    return claimer == attempt;
  }

  private synchronized boolean claimed() {
    return claimer != null;
  }

  /** The failure of an attempt after bytes of the body were told of: final, naming the request. */
  private synchronized StoreException broken(Throwable cause) {
    String why = cause == null ? "" : ": " + cause.getMessage();
    return new StoreException(
        ErrorKind.IO,
        "cannot read "
            + where
            + ": the body broke off after "
            + told
            + " bytes had been handed on"
            + why,
        cause);
  }

  /**
   * The request's result: tells of a body that was not streamed, whole. Frees the body and throws
   * if telling of it fails.
   */
  @SuppressWarnings("ReferenceEquality") // which buffer, not what it holds
  public Optional<ArrowBuf> finish(Optional<ArrowBuf> result) {
    if (result.isEmpty()) {
      return result;
    }
    ArrowBuf body = result.get();
    synchronized (this) {
      if (claimer == null) {
        try {
          arrivals.arrived(body, 0, body.writerIndex());
        } catch (RuntimeException e) {
          body.close();
          throw e;
        }
      } else if (claimed != body) { // cannot happen: one attempt streams, no hedges
        body.close();
        throw broken(null);
      }
    }
    return result;
  }
}
