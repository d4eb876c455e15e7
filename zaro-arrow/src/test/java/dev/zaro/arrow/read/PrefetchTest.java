package dev.zaro.arrow.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The fetch window ({@link Prefetch}) reaches every task while fetches settle on other threads,
 * concurrently with the decoders' own pumps.
 */
class PrefetchTest {
  /** A fetch's result, whose request settles after it is handed out (a streamed shard). */
  record Held(int t, CompletableFuture<Void> settled) implements AutoCloseable {
    @Override
    public void close() {}
  }

  private static void spin(int bound) {
    for (int spin = ThreadLocalRandom.current().nextInt(bound); spin > 0; spin--) {
      Thread.onSpinWait();
    }
  }

  /**
   * Four decoders take tasks in order and wait for each one's request to settle, as a streamed
   * shard's decoder does; an I/O thread completes each fetch and settles its request a moment
   * later, moving the window on while a decoder's own pump (after its take) may be running. A pump
   * lost in that race left every decoder waiting for a task never issued: before the fix, 2 of 3
   * runs of this test hung within its 3,000 rounds on this 2-core machine under load (the read that
   * hung a CI run in ShardStreamTest). A take that waits 60 s, on work of microseconds, fails.
   */
  @ParameterizedTest(name = "window {0}")
  @ValueSource(ints = {1, 2})
  void everyTaskIsIssuedWhileRequestsSettleDuringTheDecodersPumps(int window) throws Exception {
    ExecutorService io = Executors.newFixedThreadPool(4);
    ExecutorService decoders = Executors.newFixedThreadPool(4);
    try {
      for (int round = 0; round < 3000; round++) {
        int tasks = 300;
        AtomicInteger next = new AtomicInteger();
        try (Prefetch<Held> prefetch =
            new Prefetch<>(
                tasks,
                t -> {
                  CompletableFuture<Held> f = new CompletableFuture<>();
                  io.execute(
                      () -> {
                        Held h = new Held(t, new CompletableFuture<>());
                        f.complete(h);
                        spin(100);
                        h.settled().complete(null);
                      });
                  return f;
                },
                h -> 10,
                Held::settled,
                10,
                window,
                1000)) {
          prefetch.pump();
          Runnable decoder =
              () -> {
                for (int t = next.getAndIncrement(); t < tasks; t = next.getAndIncrement()) {
                  Held h = prefetch.take(t);
                  assertEquals(t, h.t());
                  h.settled().join();
                }
              };
          List<Future<?>> running = new ArrayList<>();
          for (int d = 0; d < 4; d++) {
            running.add(decoders.submit(decoder));
          }
          for (Future<?> r : running) {
            try {
              r.get(60, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
              fail("round " + round + ": the decoders waited for a task the window never issued");
            } catch (ExecutionException e) {
              throw new AssertionError("round " + round + ": " + e.getCause(), e.getCause());
            }
          }
        }
      }
    } finally {
      io.shutdownNow();
      decoders.shutdownNow();
    }
  }
}
