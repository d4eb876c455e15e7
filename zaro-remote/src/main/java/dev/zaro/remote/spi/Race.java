package dev.zaro.remote.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Copies of one request racing: the first good reply wins, the others are cancelled. */
final class Race<R> {
  final CompletableFuture<R> result = new CompletableFuture<>();
  private final List<CompletableFuture<R>> runners = new ArrayList<>(2);
  private int pending;
  private boolean over;

  /** Adds a runner; false if the race is already over (the caller cancels it). */
  @SuppressWarnings("FutureReturnValueIgnored") // finished() settles the race
  boolean join(CompletableFuture<R> runner, RequestPolicy.Call<R> call) {
    synchronized (this) {
      if (over) {
        return false;
      }
      pending++;
      runners.add(runner);
    }
    runner.whenComplete((r, e) -> finished(r, e, call));
    return true;
  }

  /** Cancels every copy still running. */
  void cancelRunners() {
    List<CompletableFuture<R>> all;
    synchronized (this) {
      all = List.copyOf(runners);
    }
    all.forEach(runner -> runner.cancel(true));
  }

  private void finished(R r, Throwable e, RequestPolicy.Call<R> call) {
    List<CompletableFuture<R>> losers;
    synchronized (this) {
      pending--;
      if (over || (e != null && pending > 0)) {
        // a loser, or a failure while another copy may still answer: free what it holds
        call.abandon();
        return;
      }
      over = true;
      losers = List.copyOf(runners);
    }
    if (e != null) {
      call.abandon();
    }
    for (CompletableFuture<R> loser : losers) {
      loser.cancel(true); // no-op for the winner, already complete
    }
    if (e != null) {
      result.completeExceptionally(e);
    } else {
      result.complete(r);
    }
  }
}
