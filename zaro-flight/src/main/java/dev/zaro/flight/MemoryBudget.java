package dev.zaro.flight;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;

/**
 * One memory budget and one stream count shared by all requests of a server. The budget is an Arrow
 * allocator with a limit; each request gets a {@link Lease}: a child allocator that reserves the
 * request's expected peak up front (so a running stream does not find the budget gone halfway) and
 * is capped at the per-request limit. A request whose reservation does not fit, or that finds every
 * stream slot taken, waits until leases are returned; after the admission wait it fails
 * RESOURCE_EXHAUSTED naming the budget. Thread-safe.
 *
 * <p>The budget sees what requests allocate from their lease's allocator: decoded blocks, batch
 * vectors, compressed chunk bytes, decode scratch, and the buffers gRPC still holds for zero-copy
 * writes. It does not see zstd's native decoder state, gRPC's and Netty's own buffers, or the JVM
 * heap.
 */
final class MemoryBudget implements AutoCloseable {
  private final BufferAllocator budget;
  private final long maxMemory;
  private final int maxStreams;
  private final long waitNanos;
  private final Object lock = new Object();
  private int active;
  private int queued;
  private boolean closed;

  /** A budget of {@code maxMemory} bytes under {@code parent} (not closed here). */
  MemoryBudget(BufferAllocator parent, long maxMemory, int maxStreams, Duration wait) {
    this.budget = parent.newChildAllocator("budget", 0, maxMemory);
    this.maxMemory = maxMemory;
    this.maxStreams = maxStreams;
    this.waitNanos = wait.toNanos();
  }

  /** For small requests that need no admission (schemas); still inside the budget. */
  BufferAllocator allocator() {
    return budget;
  }

  long maxMemory() {
    return maxMemory;
  }

  /**
   * Waits (up to the admission wait) for a stream slot and {@code reservation} bytes, then returns
   * a lease whose allocator may grow to {@code limit}. Fails CANCELLED when {@code cancelled} turns
   * true while waiting, UNAVAILABLE once the budget is closed.
   */
  Lease acquire(String name, long reservation, long limit, BooleanSupplier cancelled) {
    long cap = Math.min(limit, maxMemory);
    long reserve = Math.max(0, Math.min(reservation, cap));
    long deadline = System.nanoTime() + waitNanos;
    synchronized (lock) {
      queued++;
      try {
        while (true) {
          if (closed) {
            throw CallStatus.UNAVAILABLE
                .withDescription("the server is shutting down")
                .toRuntimeException();
          }
          if (cancelled.getAsBoolean()) {
            throw CallStatus.CANCELLED
                .withDescription("the client left while the request waited")
                .toRuntimeException();
          }
          boolean slot = active < maxStreams;
          if (slot) {
            Lease lease = new Lease();
            try {
              lease.allocator = budget.newChildAllocator(name, lease, reserve, cap);
              active++;
              return lease;
            } catch (OutOfMemoryException e) {
              // the reservation does not fit now: wait for a lease to come back
            }
          }
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            throw CallStatus.RESOURCE_EXHAUSTED
                .withDescription(
                    slot
                        ? "waited "
                            + seconds(waitNanos)
                            + " for "
                            + Sizes.human(reserve)
                            + " of the server's memory budget"
                            + " (--max-memory "
                            + Sizes.human(maxMemory)
                            + ", "
                            + Sizes.human(budget.getAllocatedMemory())
                            + " in use by "
                            + active
                            + " streams, "
                            + (queued - 1)
                            + " others waiting); try again later"
                        : "waited "
                            + seconds(waitNanos)
                            + " for one of the server's "
                            + maxStreams
                            + " stream slots (--max-streams); try again later")
                .toRuntimeException();
          }
          try {
            lock.wait(Math.max(1, left / 1_000_000));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw CallStatus.UNAVAILABLE
                .withDescription("the server is shutting down")
                .toRuntimeException();
          }
        }
      } finally {
        queued--;
      }
    }
  }

  private static String seconds(long nanos) {
    return Duration.ofNanos(nanos).toMillis() / 1000.0 + " s";
  }

  /** Wakes waiting requests (a client left, or memory came back). */
  void wake() {
    synchronized (lock) {
      lock.notifyAll();
    }
  }

  /**
   * {@code "budget_bytes", "in_use_bytes", "queued", "active_streams", "max_streams"} as JSON
   * members.
   */
  String statsJson() {
    synchronized (lock) {
      return "\"budget_bytes\":"
          + maxMemory
          + ",\"in_use_bytes\":"
          + budget.getAllocatedMemory()
          + ",\"peak_in_use_bytes\":"
          + budget.getPeakMemoryAllocation()
          + ",\"queued\":"
          + queued
          + ",\"active_streams\":"
          + active
          + ",\"max_streams\":"
          + maxStreams;
    }
  }

  /** Refuses new and waiting requests from now on. */
  void stopAdmitting() {
    synchronized (lock) {
      closed = true;
      lock.notifyAll();
    }
  }

  @Override
  public void close() {
    stopAdmitting();
    budget.close();
  }

  /**
   * One request's share of the budget. Closing it waits until every buffer of its allocator is
   * released (gRPC holds zero-copy batches until they are written or the call ends), then gives the
   * reservation and the stream slot back.
   */
  final class Lease implements AllocationListener, AutoCloseable {
    private BufferAllocator allocator;
    private boolean closed;

    /** The request's allocator: owned by the lease, closed by {@link #close()}. */
    BufferAllocator allocator() {
      return allocator;
    }

    @Override
    public void onRelease(long size) {
      synchronized (this) {
        notifyAll();
      }
    }

    /** Waits until gRPC has let go of every buffer; false if interrupted first. */
    boolean awaitDrained() {
      synchronized (this) {
        while (allocator.getAllocatedMemory() != 0) {
          try {
            wait(1000);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
          }
        }
      }
      return true;
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      try {
        awaitDrained();
        allocator.close();
      } finally {
        synchronized (lock) {
          active--;
          lock.notifyAll();
        }
      }
    }
  }
}
