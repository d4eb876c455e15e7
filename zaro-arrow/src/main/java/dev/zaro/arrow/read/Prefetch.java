package dev.zaro.arrow.read;

import dev.zaro.arrow.error.ZaroException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.ToLongFunction;

/**
 * The chunk (or shard) fetches of one read on a remote store, run ahead of its decoding threads:
 * the store-facing half of a read. The fetch of task {@code t} starts while fewer than {@code
 * requestsInFlight} fetches are in flight and what arrived but waits for a decoder, plus what the
 * fetches in flight are expected to bring (the mean of the arrived ones; a decoded chunk before
 * any), stays within {@code maxBytesInFlight} bytes (one fetch always may run). WorkRunner hands
 * tasks out in increasing order, so the window slides along with the decoders, and requests in
 * flight do not depend on how many threads decode. Owns every result until a task {@link #take}s
 * it; {@link #close} stops issuing, waits for the fetches still in flight and frees the results
 * nobody took (after a failure or cancellation). Thread-safe.
 *
 * @param <T> what one fetch yields: a chunk's body (null when absent) or a shard's fetched bytes
 */
final class Prefetch<T extends AutoCloseable> implements AutoCloseable {
  private final int tasks;
  private final IntFunction<CompletableFuture<T>> fetch;
  private final ToLongFunction<T> held;
  private final Function<T, CompletableFuture<?>> settled;
  private final List<CompletableFuture<T>> fetches;
  private final long[] sizes;
  private final long firstGuess;
  private final int requestsInFlight;
  private final long maxBytesInFlight;
  private long arrived;
  private long arrivedBytes;
  private int issued;
  private int inFlight;
  private long heldBytes;
  private int unassigned;
  private boolean pumping;
  private boolean closed;

  /**
   * A window over {@code tasks} fetches; nothing is requested before {@link #pump}.
   *
   * @param fetch starts the fetch of one task
   * @param held the bytes one result holds
   * @param firstGuess what one fetch is expected to hold before any has arrived
   * @param requestsInFlight fetches in flight at most
   * @param maxBytesInFlight bytes held and expected at most (one fetch always may run)
   */
  Prefetch(
      int tasks,
      IntFunction<CompletableFuture<T>> fetch,
      ToLongFunction<T> held,
      long firstGuess,
      int requestsInFlight,
      long maxBytesInFlight) {
    this(tasks, fetch, held, r -> null, firstGuess, requestsInFlight, maxBytesInFlight);
  }

  /**
   * A window whose results may complete before their request does (a shard handed to the decoders
   * while its bytes still arrive): such a request stays counted in flight until {@code settled}'s
   * future for its result completes (null: when the result is there).
   */
  Prefetch(
      int tasks,
      IntFunction<CompletableFuture<T>> fetch,
      ToLongFunction<T> held,
      Function<T, CompletableFuture<?>> settled,
      long firstGuess,
      int requestsInFlight,
      long maxBytesInFlight) {
    this.settled = settled;
    this.tasks = tasks;
    this.firstGuess = firstGuess;
    this.fetch = fetch;
    this.held = held;
    this.requestsInFlight = requestsInFlight;
    this.maxBytesInFlight = maxBytesInFlight;
    this.fetches = new ArrayList<>(Collections.nCopies(tasks, null));
    this.sizes = new long[tasks];
  }

  /**
   * Starts fetches ahead while the window allows. A call while another thread pumps returns at
   * once: that thread looks at the window again before it stops, because it decides to stop and
   * stops pumping under one lock, the lock every change to the window takes. (Deciding under one
   * lock and clearing {@code pumping} under a later one lost a pump: a fetch that settled in
   * between found {@code pumping} still set and returned, and a read whose threads all waited in
   * {@link #take} for tasks not issued yet waited for ever.)
   */
  void pump() {
    synchronized (this) {
      if (pumping) {
        return;
      }
      pumping = true;
    }
    boolean stopped = false;
    try {
      while (true) {
        int t;
        synchronized (this) {
          long expected = arrived > 0 ? arrivedBytes / arrived : firstGuess;
          if (closed
              || issued >= tasks
              || inFlight >= requestsInFlight
              || heldBytes >= maxBytesInFlight
              || (inFlight > 0 && heldBytes + (inFlight + 1) * expected > maxBytesInFlight)) {
            pumping = false;
            stopped = true;
            return;
          }
          t = issued++;
          inFlight++;
          unassigned++;
        }
        issue(t);
      }
    } finally {
      if (!stopped) {
        synchronized (this) {
          pumping = false; // issue threw: another call may pump
        }
      }
    }
  }

  private void issue(int t) {
    CompletableFuture<T> f;
    try {
      f = fetch.apply(t);
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    CompletableFuture<T> done =
        f.whenComplete(
            (result, error) -> {
              CompletableFuture<?> still = result == null ? null : settled.apply(result);
              if (still != null && still.isDone()) {
                still = null;
              }
              synchronized (this) {
                if (still == null) {
                  inFlight--;
                }
                long n = result != null ? held.applyAsLong(result) : 0;
                sizes[t] = n;
                heldBytes += n;
                if (result != null) {
                  arrived++;
                  arrivedBytes += n;
                }
                notifyAll();
              }
              if (still != null) {
                var unused =
                    still.whenComplete(
                        (r, e) -> {
                          synchronized (this) {
                            inFlight--;
                            notifyAll();
                          }
                          pump();
                        });
              }
              pump();
            });
    synchronized (this) {
      fetches.set(t, done);
      unassigned--;
      notifyAll();
    }
  }

  /**
   * Waits for the result of task {@code t}, which the caller owns and closes. The window always
   * reaches {@code t}: tasks are taken in order, so the results that hold it back belong to tasks
   * already running, whose takes move it on.
   */
  T take(int t) {
    CompletableFuture<T> f;
    synchronized (this) {
      while (fetches.get(t) == null && !closed) {
        try {
          wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new ZaroException("interrupted while fetching chunk " + t, e);
        }
      }
      f = fetches.get(t);
      fetches.set(t, null);
    }
    try {
      return f.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    } finally {
      synchronized (this) {
        heldBytes -= sizes[t];
      }
      pump();
    }
  }

  @Override
  public void close() {
    List<CompletableFuture<T>> left;
    synchronized (this) {
      closed = true;
      // every fetch issued completes (the store's timeouts bound it) before its result is freed
      while (unassigned > 0 || inFlight > 0) {
        try {
          wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      left = new ArrayList<>(fetches);
      Collections.fill(fetches, null);
    }
    for (CompletableFuture<T> f : left) {
      if (f == null) {
        continue;
      }
      try {
        T result = f.join();
        if (result != null) {
          result.close();
        }
      } catch (Exception e) {
        // a failed fetch holds nothing; the read already reports its own failure
      }
    }
  }
}
