package dev.zaro.arrow.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConcurrencyPolicyTest {

  @ParameterizedTest(name = "threads={0} io={1} tasks={2} prefetchable={3}")
  @CsvSource({
    // threads, io, tasks, prefetchable -> decode, chunk, ahead, inFlight
    "4, 0, 10, true, 4, 4, false, 0", // local: the decoders do their own reads
    "4, 0, 2, true, 4, 2, false, 0", // never more chunk threads than tasks
    "0, 0, 10, true, 1, 1, false, 0", // at least one decoding thread
    "4, 32, 10, true, 4, 4, true, 32", // remote: requests ahead, decoding keeps its budget
    "4, 32, 1, true, 4, 1, false, 32", // one task: nothing to fetch ahead of
    "4, 32, 10, false, 4, 10, false, 32", // nested sharding: one blocking worker per request
    "4, 32, 100, false, 4, 32, false, 32",
    "4, 500, 1000, false, 4, 64, false, 500", // blocking fetches capped
    "8, 2, 100, false, 8, 8, false, 2", // never fewer chunk threads than decoding threads
  })
  void decidesThreadsAndRequests(
      int threads,
      int io,
      int tasks,
      boolean prefetchable,
      int decode,
      int chunk,
      boolean ahead,
      int inFlight) {
    assertEquals(
        new ConcurrencyPolicy(decode, chunk, ahead, inFlight),
        ConcurrencyPolicy.of(threads, io, tasks, prefetchable));
  }

  @ParameterizedTest(name = "threads={0} io={1}")
  @CsvSource({
    "4, 0, 3", // local: the caller is the fourth
    "2, 0, 1",
    "1, 0, 1", // a pool of one, never of none
    "0, 0, 1",
    "4, 16, 16",
    "4, 500, 64",
    "8, 2, 8"
  })
  void sizesThePoolForTheBlockingPath(int threads, int io, int pool) {
    assertEquals(pool, ConcurrencyPolicy.poolThreads(threads, io));
  }
}
