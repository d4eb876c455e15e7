package dev.zaro.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.OutOfMemoryException;
import org.junit.jupiter.api.Test;

/** The server's memory budget and stream slots: reservations, waiting, the errors, the stats. */
class MemoryBudgetTest extends AllocatorTest {

  @Test
  @SuppressWarnings("try") // the leases are held for their reservations, not used
  void aReservationThatDoesNotFitWaitsThenFailsNamingTheBudget() {
    try (MemoryBudget budget = new MemoryBudget(allocator, 1000, 8, Duration.ofMillis(300));
        MemoryBudget.Lease first = budget.acquire("first", 700, 1000, () -> false)) {
      assertEquals(
          700, budget.allocator().getAllocatedMemory(), "the reservation is taken up front");
      long t0 = System.nanoTime();
      FlightRuntimeException e =
          assertThrows(
              FlightRuntimeException.class, () -> budget.acquire("second", 700, 1000, () -> false));
      assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(250), "it waited first");
      assertEquals(CallStatus.RESOURCE_EXHAUSTED.code(), e.status().code());
      assertTrue(
          e.getMessage().contains("--max-memory 1000 B") && e.getMessage().contains("700 B"),
          e.getMessage());
      // a smaller one fits beside the first
      try (MemoryBudget.Lease small = budget.acquire("small", 300, 1000, () -> false)) {
        assertEquals(1000, budget.allocator().getAllocatedMemory());
      }
    }
  }

  @Test
  @SuppressWarnings("try") // the lease is held for its reservation, not used
  void aWaitingRequestGoesAheadWhenALeaseComesBack() throws Exception {
    try (MemoryBudget budget = new MemoryBudget(allocator, 1000, 8, Duration.ofSeconds(30))) {
      MemoryBudget.Lease first = budget.acquire("first", 700, 1000, () -> false);
      CompletableFuture<MemoryBudget.Lease> second =
          CompletableFuture.supplyAsync(() -> budget.acquire("second", 700, 1000, () -> false));
      while (!budget.statsJson().contains("\"queued\":1")) {
        Thread.sleep(5);
      }
      assertFalse(second.isDone());
      first.close();
      try (MemoryBudget.Lease lease = second.get(30, TimeUnit.SECONDS)) {
        assertTrue(budget.statsJson().contains("\"active_streams\":1,"), budget.statsJson());
      }
      assertTrue(
          budget.statsJson().contains("\"in_use_bytes\":0,")
              && budget.statsJson().contains("\"queued\":0,"),
          budget.statsJson());
    }
  }

  @Test
  @SuppressWarnings("try") // the lease is held for its reservation, not used
  void streamSlotsAreCountedToo() {
    try (MemoryBudget budget = new MemoryBudget(allocator, 1 << 20, 1, Duration.ofMillis(100));
        MemoryBudget.Lease one = budget.acquire("one", 0, 1 << 20, () -> false)) {
      FlightRuntimeException e =
          assertThrows(
              FlightRuntimeException.class, () -> budget.acquire("two", 0, 1 << 20, () -> false));
      assertEquals(CallStatus.RESOURCE_EXHAUSTED.code(), e.status().code());
      assertTrue(e.getMessage().contains("--max-streams"), e.getMessage());
    }
  }

  @Test
  @SuppressWarnings("try") // the lease is held for its reservation, not used
  void aClientThatLeavesStopsWaiting() throws Exception {
    try (MemoryBudget budget = new MemoryBudget(allocator, 1 << 20, 1, Duration.ofSeconds(30));
        MemoryBudget.Lease one = budget.acquire("one", 0, 1 << 20, () -> false)) {
      AtomicBoolean gone = new AtomicBoolean();
      CompletableFuture<MemoryBudget.Lease> waiting =
          CompletableFuture.supplyAsync(() -> budget.acquire("two", 0, 1 << 20, gone::get));
      gone.set(true);
      budget.wake();
      Exception e = assertThrows(Exception.class, () -> waiting.get(30, TimeUnit.SECONDS));
      assertEquals(
          CallStatus.CANCELLED.code(), ((FlightRuntimeException) e.getCause()).status().code());
    }
  }

  @Test
  void aLeaseIsCappedAtTheRequestLimitAndTheBudget() {
    try (MemoryBudget budget = new MemoryBudget(allocator, 4096, 8, Duration.ofMillis(10));
        MemoryBudget.Lease lease = budget.acquire("capped", 0, 1 << 20, () -> false)) {
      assertThrows(OutOfMemoryException.class, () -> lease.allocator().buffer(8192).close());
      try (MemoryBudget.Lease small = budget.acquire("small", 0, 1024, () -> false)) {
        assertThrows(OutOfMemoryException.class, () -> small.allocator().buffer(2048).close());
      }
    }
  }

  @Test
  void closingALeaseWaitsUntilItsBuffersAreReleased() throws Exception {
    try (MemoryBudget budget = new MemoryBudget(allocator, 1 << 20, 8, Duration.ofSeconds(1))) {
      MemoryBudget.Lease lease = budget.acquire("held", 0, 1 << 20, () -> false);
      ArrowBuf held = lease.allocator().buffer(4096); // as gRPC holds a zero-copy batch
      CompletableFuture<Void> closing = CompletableFuture.runAsync(lease::close);
      Thread.sleep(100);
      assertFalse(closing.isDone(), "the lease waits for the buffer");
      held.close();
      closing.get(30, TimeUnit.SECONDS);
      assertEquals(0, budget.allocator().getAllocatedMemory());
    }
  }

  @Test
  void afterStopAdmittingRequestsAreRefused() {
    try (MemoryBudget budget = new MemoryBudget(allocator, 1 << 20, 8, Duration.ofSeconds(1))) {
      budget.stopAdmitting();
      FlightRuntimeException e =
          assertThrows(
              FlightRuntimeException.class, () -> budget.acquire("late", 0, 1 << 20, () -> false));
      assertEquals(CallStatus.UNAVAILABLE.code(), e.status().code());
    }
  }

  @Test
  void sizes() {
    assertEquals(512L << 20, Sizes.parse("512m"));
    assertEquals(2L << 30, Sizes.parse("2G"));
    assertEquals(3L << 10, Sizes.parse("3KiB"));
    assertEquals(65536, Sizes.parse("65536"));
    for (String bad : new String[] {"1.5g", "g", "", "-1m", "12q", "99999999999999g"}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> Sizes.parse(bad));
      assertTrue(e.getMessage().contains("'" + bad + "'"), e.getMessage());
    }
    assertEquals("1.5 GiB", Sizes.human(3L << 29));
    assertEquals("150 MiB", Sizes.human(150L << 20));
    assertEquals("800 B", Sizes.human(800));
  }
}
