package dev.zaro.arrow.store;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The one place that merges nearby byte ranges of one stored value into fewer requests: ranges
 * closer than {@link #MAX_GAP} join one request of at most {@link #MAX_REQUEST} bytes (a lone
 * larger range is its own request). {@link Store#getRanges} uses it for every store; callers (shard
 * readers, reference stores) never coalesce themselves.
 */
public final class RangeCoalescer {
  /** Ranges this close are fetched together: cheaper than a second request on any store. */
  public static final long MAX_GAP = 64 << 10;

  /** Upper bound of one merged request. */
  public static final long MAX_REQUEST = 16 << 20;

  private RangeCoalescer() {}

  /** A merged request: {@code length} bytes at {@code offset}, serving the listed input ranges. */
  public record Group(long offset, long length, List<Integer> members) {}

  /** Groups {@code ranges} (any order, overlaps allowed) into requests, in offset order. */
  public static List<Group> plan(List<ByteRange.FromStart> ranges, long maxGap, long maxRequest) {
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < ranges.size(); i++) {
      order.add(i);
    }
    order.sort(Comparator.comparingLong(i -> ranges.get(i).offset()));
    List<Group> groups = new ArrayList<>();
    int i = 0;
    while (i < order.size()) {
      ByteRange.FromStart first = ranges.get(order.get(i));
      long start = first.offset();
      long end = start + first.length();
      List<Integer> members = new ArrayList<>(List.of(order.get(i)));
      int j = i + 1;
      while (j < order.size()) {
        ByteRange.FromStart r = ranges.get(order.get(j));
        long newEnd = Math.max(end, r.offset() + r.length());
        if (r.offset() - end > maxGap || newEnd - start > maxRequest) {
          break;
        }
        end = newEnd;
        members.add(order.get(j));
        j++;
      }
      groups.add(new Group(start, end - start, List.copyOf(members)));
      i = j;
    }
    return groups;
  }

  /**
   * Reads {@code ranges} of {@code key} with as few requests as {@link #plan} allows. On a remote
   * store the requests are all in flight at once (through {@link Store#getAsync}), so a shard's
   * scattered inner chunks cost one round trip, not one per request.
   *
   * @return one buffer per range, in the order asked, each owned (closed) by the caller; empty if
   *     the key is absent
   */
  public static Optional<List<ArrowBuf>> fetch(
      Store store, String key, List<ByteRange.FromStart> ranges, BufferAllocator allocator) {
    ArrowBuf[] out = new ArrowBuf[ranges.size()];
    List<Group> groups = plan(ranges, MAX_GAP, MAX_REQUEST);
    List<java.util.concurrent.CompletableFuture<Optional<ArrowBuf>>> pending = new ArrayList<>();
    if (groups.size() > 1 && store.capabilities().isRemote()) {
      for (Group g : groups) {
        // the store's own async path (HTTP: non-blocking); a blocking store runs it right here
        pending.add(
            store.getAsync(key, ByteRange.of(g.offset(), g.length()), allocator, Runnable::run));
      }
    }
    int next = 0;
    try {
      for (Group g : groups) {
        Optional<ArrowBuf> fetched =
            pending.isEmpty()
                ? store.get(key, ByteRange.of(g.offset(), g.length()), allocator)
                : await(pending.get(next));
        next++;
        if (fetched.isEmpty()) {
          closeAll(out);
          return Optional.empty();
        }
        try (ArrowBuf buf = fetched.get()) {
          if (buf.writerIndex() < g.length()) {
            throw new dev.zaro.arrow.error.StoreException(
                "key '"
                    + key
                    + "' in "
                    + store.describe()
                    + ": asked for "
                    + g.length()
                    + " bytes at "
                    + g.offset()
                    + ", got "
                    + buf.writerIndex());
          }
          for (int m : g.members()) {
            ByteRange.FromStart r = ranges.get(m);
            ArrowBuf slice = buf.slice(r.offset() - g.offset(), r.length());
            slice.getReferenceManager().retain();
            slice.writerIndex(r.length());
            out[m] = slice;
          }
        }
      }
      return Optional.of(List.of(out));
    } catch (RuntimeException | Error e) {
      closeAll(out);
      throw e;
    } finally {
      // requests not consumed (a failure or an absent key stopped early): wait, free their bodies
      for (int i = next; i < pending.size(); i++) {
        try {
          await(pending.get(i)).ifPresent(ArrowBuf::close);
        } catch (RuntimeException e) {
          // the read already fails or reports the key absent
        }
      }
    }
  }

  private static Optional<ArrowBuf> await(
      java.util.concurrent.CompletableFuture<Optional<ArrowBuf>> f) {
    try {
      return f.join();
    } catch (java.util.concurrent.CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
  }

  private static void closeAll(ArrowBuf[] bufs) {
    for (ArrowBuf b : bufs) {
      if (b != null) {
        b.close();
      }
    }
  }
}
