package dev.zaro.arrow.read;

import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.exec.Futures;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.memory.ArrowBuf;

/**
 * One whole shard arriving in pieces ({@link dev.zaro.arrow.store.Store.Arrivals}): tracks which
 * byte ranges of the body have landed and hands each wanted inner chunk out ({@link #next}) as soon
 * as all of its bytes are there, in the order they complete, not after the last byte of the shard.
 * Pieces may come in any order; a body that fails or ends before a wanted chunk's bytes fails every
 * chunk still waiting with an error naming the shard's key. Retains the body from its first piece
 * and frees it in {@link #close}, which waits for the request to settle. Thread-safe.
 */
final class ShardStream implements AutoCloseable {
  private final String key;
  private final TreeMap<Long, Long> arrived = new TreeMap<>(); // merged [start, end) ranges
  private ArrowBuf body;
  private long[] starts;
  private long[] ends;
  private long[] sortedStarts;
  private int[] order;
  private TreeSet<Integer> pending; // positions in sortedStarts of chunks not yet ready
  private final ArrayDeque<Integer> ready = new ArrayDeque<>();
  private RuntimeException failure;
  private boolean settled;
  private CompletableFuture<Optional<ArrowBuf>> request;
  private long size = -1; // the bytes the index says the shard holds at least
  private ArrowBuf result; // the body, once the request completed with it
  private final CompletableFuture<Void> settledFuture = new CompletableFuture<>();

  ShardStream(String key) {
    this.key = key;
  }

  /** The request bringing the body; {@link #close} waits for it. */
  synchronized void request(CompletableFuture<Optional<ArrowBuf>> request) {
    this.request = request;
  }

  /**
   * Bytes {@code [offset, offset + length)} of {@code buf} (the shard's body) have landed.
   *
   * @return true if a wanted chunk became ready
   */
  synchronized boolean arrived(ArrowBuf buf, long offset, long length) {
    if (body == null) {
      buf.getReferenceManager().retain();
      body = buf;
    }
    if (length <= 0) {
      return false;
    }
    long start = offset;
    long end = offset + length;
    Map.Entry<Long, Long> before = arrived.floorEntry(start);
    if (before != null && before.getValue() >= start) {
      start = before.getKey();
      end = Math.max(end, before.getValue());
      arrived.remove(before.getKey());
    }
    for (Map.Entry<Long, Long> after = arrived.ceilingEntry(start);
        after != null && after.getKey() <= end;
        after = arrived.ceilingEntry(start)) {
      end = Math.max(end, after.getValue());
      arrived.remove(after.getKey());
    }
    arrived.put(start, end);
    return pending != null && release(start, end);
  }

  /** Bytes landed from the start of the body without a gap (an index at the start is there). */
  synchronized long prefix() {
    Map.Entry<Long, Long> first = arrived.firstEntry();
    return first == null || first.getKey() > 0 ? 0 : first.getValue();
  }

  /** A slice of the body (not to be closed: the stream owns the body). */
  synchronized ArrowBuf slice(long offset, long length) {
    ArrowBuf s = body.slice(offset, length);
    s.writerIndex(length);
    return s;
  }

  /**
   * The wanted inner chunks' byte ranges, in the order {@link #next} numbers them; chunks whose
   * bytes have landed are ready at once.
   */
  synchronized void want(long[] offsets, long[] lengths, long size) {
    this.size = size;
    int n = offsets.length;
    starts = offsets;
    ends = new long[n];
    Integer[] byStart = new Integer[n];
    for (int i = 0; i < n; i++) {
      ends[i] = offsets[i] + lengths[i];
      byStart[i] = i;
    }
    Arrays.sort(byStart, (a, b) -> Long.compare(offsets[a], offsets[b]));
    order = new int[n];
    sortedStarts = new long[n];
    pending = new TreeSet<>();
    for (int p = 0; p < n; p++) {
      order[p] = byStart[p];
      sortedStarts[p] = offsets[byStart[p]];
      if (lengths[byStart[p]] == 0) {
        ready.add(byStart[p]);
      } else {
        pending.add(p);
      }
    }
    for (Map.Entry<Long, Long> r : arrived.entrySet()) {
      release(r.getKey(), r.getValue());
    }
    if (settled && failure == null && result != null) {
      checkComplete(result);
    }
    notifyAll();
  }

  /** Makes ready every pending chunk inside the landed range {@code [start, end)}: true if any. */
  private boolean release(long start, long end) {
    int from = lowerBound(sortedStarts, start);
    int to = lowerBound(sortedStarts, end);
    List<Integer> done = new ArrayList<>();
    for (int p : pending.subSet(from, to)) {
      if (ends[order[p]] <= end) {
        done.add(p);
      }
    }
    for (int p : done) {
      pending.remove(p);
      ready.add(order[p]);
    }
    if (!done.isEmpty()) {
      notifyAll();
    }
    return !done.isEmpty();
  }

  private static int lowerBound(long[] sorted, long value) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] < value) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /**
   * The request settled: with the body ({@code error} null, {@code body} present), absent, or
   * failed. Wanted chunks whose bytes never landed fail, naming the key.
   */
  void settle(Optional<ArrowBuf> result, Throwable error) {
    settleState(result, error);
    settledFuture.complete(null); // outside the lock: a prefetch window moves on from here
  }

  /** Completes once the request has settled (whatever its outcome). */
  CompletableFuture<Void> settled() {
    return settledFuture;
  }

  private synchronized void settleState(Optional<ArrowBuf> result, Throwable error) {
    settled = true;
    if (error != null) {
      Throwable e = Futures.unwrap(error);
      failure =
          e instanceof ZaroException z
              ? new StoreException(
                  "shard '" + key + "' failed while arriving: " + z.getMessage(), z)
              : new StoreException("shard '" + key + "' failed while arriving: " + e, e);
    } else if (result == null || result.isEmpty()) {
      failure = new StoreException("shard '" + key + "' disappeared while being read");
    } else {
      this.result = result.get();
      if (pending != null) {
        checkComplete(this.result);
      }
    }
    notifyAll();
  }

  /** Fails the stream if the body ended before a wanted chunk's bytes or the shard's end. */
  private void checkComplete(ArrowBuf body) {
    if (!pending.isEmpty()) {
      int chunk = order[pending.first()];
      failure =
          new CodecException(
              "codec sharding_indexed: the index points at bytes that the shard does not hold:"
                  + " shard '"
                  + key
                  + "' arrived with "
                  + body.writerIndex()
                  + " bytes, inner chunk bytes ["
                  + starts[chunk]
                  + ", "
                  + ends[chunk]
                  + ") are not all among them");
    } else if (body.writerIndex() < size) {
      failure =
          new CodecException(
              "codec sharding_indexed: shard '"
                  + key
                  + "' arrived with "
                  + body.writerIndex()
                  + " bytes, fewer than the "
                  + size
                  + " its index accounts for (the shard is truncated?)");
    }
  }

  /**
   * Waits for the request to settle (after the wanted chunks are decoded), so that a shard whose
   * request failed or ended short fails its read even when every wanted chunk had landed.
   *
   * @throws ZaroException naming the key, if the request failed or the body ended short
   */
  synchronized void awaitSettled() {
    while (!settled) {
      try {
        wait();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ZaroException("interrupted while shard '" + key + "' was arriving", e);
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** The failure that ends the stream, or null. */
  synchronized RuntimeException failure() {
    return failure;
  }

  /**
   * Waits for the next wanted chunk whose bytes have all landed and returns its number (in the
   * order of {@link #want}); each chunk is handed out once.
   *
   * @throws ZaroException naming the key, if the body failed or ended before the chunk's bytes
   */
  synchronized int next() {
    while (ready.isEmpty()) {
      if (failure != null) {
        throw failure;
      }
      try {
        wait();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ZaroException("interrupted while shard '" + key + "' was arriving", e);
      }
    }
    return ready.poll();
  }

  /** Whether the request has settled (whatever its outcome). */
  synchronized boolean isSettled() {
    return settled;
  }

  /** What {@link #poll} returns once the stream has failed ({@link #failure}). */
  static final int FAILED = -2;

  /**
   * The next wanted chunk whose bytes have all landed, without waiting (each handed out once, by
   * this or {@link #next}); -1 if none is ready now, {@link #FAILED} if none will be.
   */
  synchronized int poll() {
    if (!ready.isEmpty()) {
      return ready.poll();
    }
    return failure != null ? FAILED : -1;
  }

  /** Waits for the request to settle, then frees the body. */
  @Override
  public void close() {
    CompletableFuture<Optional<ArrowBuf>> r;
    synchronized (this) {
      r = request;
      request = null;
    }
    Optional<ArrowBuf> result = Optional.empty();
    if (r != null) {
      try {
        result = r.join();
      } catch (RuntimeException e) {
        // a failed request freed its body; the read reports the failure
      }
    }
    result.ifPresent(ArrowBuf::close);
    ArrowBuf b;
    synchronized (this) {
      b = body;
      body = null;
    }
    if (b != null) {
      b.getReferenceManager().release();
    }
  }
}
