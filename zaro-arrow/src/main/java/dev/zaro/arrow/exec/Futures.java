package dev.zaro.arrow.exec;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.error.ZaroException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Waiting on a store's asynchronous reads, the same way in every store: a synchronous {@code get}
 * is its {@code getAsync} awaited here.
 */
public final class Futures {
  private Futures() {}

  /** The failure under any {@link CompletionException} / {@link ExecutionException} wrappers. */
  public static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /**
   * The value of {@code future}, a read of {@code key}. A {@link ZaroException} it failed with is
   * thrown as it is; any other failure becomes a {@link StoreException} naming the key (with the
   * failure as its cause). An interrupt cancels the read and keeps the thread's interrupt flag.
   */
  public static <T> T await(CompletableFuture<T> future, String key) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      future.cancel(true);
      Thread.currentThread().interrupt();
      throw new StoreException("reading key '" + key + "' was interrupted", e);
    } catch (ExecutionException | CompletionException e) {
      Throwable cause = unwrap(e);
      if (cause instanceof ZaroException z) {
        throw z;
      }
      throw new StoreException("cannot read key '" + key + "': " + cause, cause);
    }
  }
}
