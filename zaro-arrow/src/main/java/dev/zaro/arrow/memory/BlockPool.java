package dev.zaro.arrow.memory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ForeignAllocation;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Large native blocks kept after their last buffer is freed and handed out again for a buffer of
 * the same size, so a read's output is written into memory that is already mapped. A fresh block
 * above glibc's mmap threshold (32 MiB at most) is a fresh mapping: the kernel zeroes every page on
 * its first write, about a fifth of a whole local read of a 256 MiB array, on every read.
 *
 * <p>A buffer from {@link #buffer} belongs to the caller's allocator like any other ({@link
 * BufferAllocator#wrapForeignAllocation}): it counts against that allocator's limit while it lives,
 * moves between allocators of one root as usual, and its memory comes back here only when its last
 * reference is released. A block is never handed out while a buffer over it lives. A reused block
 * holds whatever its last user wrote: only callers that write every byte of the buffer before
 * reading it may use this pool (a read's output: see {@code ZarrArray}).
 *
 * <p>Bounded: at most {@link #capacity()} bytes are kept, the oldest block goes first, and a block
 * unused for {@link #idleMillis()} is freed, so an idle process gives its memory back. Blocks below
 * {@link #MIN_BYTES} are left to the allocator (malloc reuses those itself). Thread-safe.
 *
 * <p>{@link #shared()} is the process's pool, used by every read whatever allocator the caller
 * passes (libraries, the server, Spark executors, the CLI). Its size is the system property {@code
 * zaro.blockpool} (bytes, with an optional k/m/g suffix; 0 turns reuse off), by default 1 GiB or an
 * eighth of physical memory, whichever is smaller.
 */
public final class BlockPool implements AutoCloseable {
  /** Buffers smaller than this come from the caller's allocator directly. */
  public static final long MIN_BYTES = 1L << 20;

  private static final long DEFAULT_IDLE_MILLIS = 5_000;
  private static final BlockPool SHARED =
      new BlockPool(configuredCapacity(System.getProperty("zaro.blockpool")), DEFAULT_IDLE_MILLIS);

  private final long capacity;
  private final long idleMillis;
  // size -> idle blocks of that size, most recently freed last
  private final Map<Long, ArrayDeque<Idle>> idle = new HashMap<>();
  // every idle block, oldest first (the first to go when room is needed)
  private final ArrayDeque<Idle> byAge = new ArrayDeque<>();
  private long idleBytes;
  private long reused;
  private long fresh;
  private boolean trimScheduled;
  private boolean closed;

  /**
   * A freed block kept for reuse. A class, not a record: blocks are told apart by identity, and a
   * record's equals is linked through {@code ObjectMethods} at its first call, a few milliseconds
   * of a one-query process (docs/startup.md, "Start-up").
   */
  private static final class Idle {
    private final long address;
    private final long size;
    private final long since;

    Idle(long address, long size, long since) {
      this.address = address;
      this.size = size;
      this.since = since;
    }

    long address() {
      return address;
    }

    long size() {
      return size;
    }

    long since() {
      return since;
    }
  }

  /**
   * A pool keeping at most {@code capacity} bytes of freed blocks, each for at most {@code
   * idleMillis} after it was freed. Close it to free what it holds; blocks freed after that are
   * freed at once.
   */
  public BlockPool(long capacity, long idleMillis) {
    if (capacity < 0 || idleMillis <= 0) {
      throw new IllegalArgumentException(
          "capacity must not be negative and idleMillis positive: " + capacity + ", " + idleMillis);
    }
    this.capacity = capacity;
    this.idleMillis = idleMillis;
  }

  /** The process's pool (see the class comment); never closed. */
  public static BlockPool shared() {
    return SHARED;
  }

  /**
   * The shared pool's size from {@code zaro.blockpool}'s value ({@code null}: the default). A value
   * that is not a size leaves the default.
   */
  static long configuredCapacity(String value) {
    long byDefault = 1L << 30;
    if (value == null || value.isBlank()) {
      return byDefault;
    }
    String v = value.trim().toLowerCase(Locale.ROOT);
    int shift =
        switch (v.charAt(v.length() - 1)) {
          case 'k' -> 10;
          case 'm' -> 20;
          case 'g' -> 30;
          default -> 0;
        };
    try {
      long n = Long.parseLong(shift == 0 ? v : v.substring(0, v.length() - 1));
      return n < 0 ? byDefault : Math.multiplyExact(n, 1L << shift);
    } catch (NumberFormatException | ArithmeticException e) {
      return byDefault;
    }
  }

  /**
   * A buffer of {@code size} bytes under {@code allocator}, over a block freed earlier when one of
   * that size is idle here (its contents are the last user's: write every byte before reading),
   * over fresh memory otherwise (huge pages advised: {@link HugePages}). Sizes below {@link
   * #MIN_BYTES}, or past the capacity, come from {@code allocator.buffer(size)}. The caller owns
   * the buffer.
   *
   * @throws org.apache.arrow.memory.OutOfMemoryException past the allocator's limit (no memory is
   *     taken)
   */
  public ArrowBuf buffer(BufferAllocator allocator, long size) {
    if (size < MIN_BYTES || size > capacity || size > allocator.getHeadroom()) {
      // past the allocator's limit the allocator refuses it as usual, before any memory is taken
      ArrowBuf buf = allocator.buffer(size);
      HugePages.advise(buf.memoryAddress(), size);
      return buf;
    }
    long address = take(size);
    if (address == 0) {
      address = MemoryUtil.allocateMemory(size);
      HugePages.advise(address, size);
    }
    Block block = new Block(address, size);
    try {
      return allocator.wrapForeignAllocation(block);
    } catch (RuntimeException | Error e) {
      block.release0(); // once: wrapForeignAllocation may have released it already
      throw e;
    }
  }

  /** The most this pool keeps, in bytes. */
  public long capacity() {
    return capacity;
  }

  /** How long a freed block is kept unused before it is freed, in milliseconds. */
  public long idleMillis() {
    return idleMillis;
  }

  /** Bytes of freed blocks held now, waiting to be handed out again. */
  public synchronized long idleBytes() {
    return idleBytes;
  }

  /** Buffers handed out over a reused block so far. */
  public synchronized long reused() {
    return reused;
  }

  /** Buffers handed out over freshly allocated memory so far. */
  public synchronized long fresh() {
    return fresh;
  }

  /** Frees every idle block now; the pool stays usable. */
  public void trim() {
    free(evict(0));
  }

  /** Frees what the pool holds; blocks freed later are freed at once. */
  @Override
  public void close() {
    List<Idle> gone;
    synchronized (this) {
      closed = true;
      gone = evict(0);
    }
    free(gone);
  }

  private synchronized long take(long size) {
    ArrayDeque<Idle> same = idle.get(size);
    Idle block = same == null ? null : same.pollLast();
    if (block == null) {
      fresh++;
      return 0;
    }
    if (same.isEmpty()) {
      idle.remove(size);
    }
    byAge.remove(block);
    idleBytes -= size;
    reused++;
    return block.address();
  }

  /** A block whose last buffer was released: kept if there is room (oldest go first), or freed. */
  private void give(long address, long size) {
    List<Idle> gone;
    boolean schedule;
    synchronized (this) {
      if (closed || size > capacity) {
        gone = List.of(new Idle(address, size, 0));
        schedule = false;
      } else {
        gone = evict(capacity - size);
        Idle block = new Idle(address, size, System.nanoTime());
        idle.computeIfAbsent(size, s -> new ArrayDeque<>()).addLast(block);
        byAge.addLast(block);
        idleBytes += size;
        schedule = !trimScheduled;
        trimScheduled = true;
      }
    }
    free(gone);
    if (schedule) {
      scheduleTrim();
    }
  }

  /** Takes the oldest idle blocks out until at most {@code keep} bytes stay; the caller frees. */
  private synchronized List<Idle> evict(long keep) {
    List<Idle> gone = new ArrayList<>();
    while (idleBytes > keep) {
      gone.add(forget(byAge.pollFirst()));
    }
    return gone;
  }

  /** Takes a block already out of {@link #byAge} out of the by-size lists; returns it. */
  private Idle forget(Idle block) {
    ArrayDeque<Idle> same = idle.get(block.size());
    same.remove(block);
    if (same.isEmpty()) {
      idle.remove(block.size());
    }
    idleBytes -= block.size();
    return block;
  }

  /** Frees the blocks unused for {@link #idleMillis}; runs again while any are left. */
  private void expire() {
    List<Idle> gone = new ArrayList<>();
    boolean again;
    synchronized (this) {
      long now = System.nanoTime();
      for (Iterator<Idle> it = byAge.iterator(); it.hasNext(); ) {
        Idle b = it.next();
        if (now - b.since() < TimeUnit.MILLISECONDS.toNanos(idleMillis)) {
          break;
        }
        it.remove();
        gone.add(forget(b));
      }
      again = !byAge.isEmpty();
      trimScheduled = again;
    }
    free(gone);
    if (again) {
      scheduleTrim();
    }
  }

  private void scheduleTrim() {
    // the JDK's one daemon delay thread runs it (a few frees): no thread of this pool's own
    CompletableFuture.delayedExecutor(idleMillis, TimeUnit.MILLISECONDS, Runnable::run)
        .execute(this::expire);
  }

  private static void free(List<Idle> blocks) {
    for (Idle b : blocks) {
      MemoryUtil.freeMemory(b.address());
    }
  }

  /** One block lent to an allocator; back to the pool when Arrow releases its last buffer. */
  private final class Block extends ForeignAllocation {
    private final AtomicBoolean released = new AtomicBoolean();

    Block(long address, long size) {
      super(size, address);
    }

    @Override
    protected void release0() {
      if (released.compareAndSet(false, true)) {
        give(memoryAddress(), getSize());
      }
    }
  }
}
