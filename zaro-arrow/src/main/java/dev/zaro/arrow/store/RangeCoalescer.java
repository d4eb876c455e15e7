package dev.zaro.arrow.store;

import dev.zaro.arrow.error.StoreException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The one place that merges nearby byte ranges of one stored value into fewer requests: ranges
 * closer than {@link #MAX_GAP} join one request of at most {@link #MAX_REQUEST} bytes (a lone
 * larger range is its own request). {@link Store#getRanges} uses it for every store; callers (shard
 * readers, reference stores) never coalesce themselves.
 */
final class RangeCoalescer {
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
    List<Group> groups = plan(ranges, MAX_GAP, MAX_REQUEST);
    if (groups.size() > 1 && store.capabilities().isRemote()) {
      // the store's own async path (HTTP: non-blocking); a blocking store runs it right here
      return await(fetchAsync(store, key, ranges, allocator, Runnable::run));
    }
    ArrowBuf[] bodies = new ArrowBuf[groups.size()];
    try {
      for (int i = 0; i < groups.size(); i++) {
        Group g = groups.get(i);
        Optional<ArrowBuf> fetched =
            store.get(key, ByteRange.of(g.offset(), g.length()), allocator);
        if (fetched.isEmpty()) {
          closeAll(bodies);
          return Optional.empty();
        }
        bodies[i] = fetched.get();
      }
    } catch (RuntimeException | Error e) {
      closeAll(bodies);
      throw e;
    }
    return Optional.of(slice(store, key, ranges, groups, bodies));
  }

  /**
   * {@link #fetch} without blocking: every merged request goes out at once through {@link
   * Store#getAsync}; the future completes when all have, with every range or none (a failure or an
   * absent key frees what arrived).
   */
  public static CompletableFuture<Optional<List<ArrowBuf>>> fetchAsync(
      Store store,
      String key,
      List<ByteRange.FromStart> ranges,
      BufferAllocator allocator,
      Executor executor) {
    List<Group> groups = plan(ranges, MAX_GAP, MAX_REQUEST);
    @SuppressWarnings("unchecked")
    CompletableFuture<Optional<ArrowBuf>>[] pending =
        (CompletableFuture<Optional<ArrowBuf>>[]) new CompletableFuture<?>[groups.size()];
    for (int i = 0; i < pending.length; i++) {
      Group g = groups.get(i);
      try {
        pending[i] = store.getAsync(key, ByteRange.of(g.offset(), g.length()), allocator, executor);
      } catch (RuntimeException e) {
        pending[i] = CompletableFuture.failedFuture(e);
      }
    }
    return CompletableFuture.allOf(pending)
        .handle(
            (ignored, error) -> {
              // every request has completed: keep all bodies or free all of them
              ArrowBuf[] bodies = new ArrowBuf[pending.length];
              Throwable failure = null;
              boolean absent = false;
              for (int i = 0; i < pending.length; i++) {
                try {
                  Optional<ArrowBuf> body = pending[i].join();
                  if (body.isPresent()) {
                    bodies[i] = body.get();
                  } else {
                    absent = true;
                  }
                } catch (CompletionException | CancellationException e) {
                  if (failure == null) {
                    failure = e.getCause() != null ? e.getCause() : e;
                  }
                }
              }
              if (failure != null || absent) {
                closeAll(bodies);
                if (failure != null) {
                  throw failure instanceof CompletionException c
                      ? c
                      : new CompletionException(failure);
                }
                return Optional.empty();
              }
              return Optional.of(slice(store, key, ranges, groups, bodies));
            });
  }

  /**
   * The asked ranges as slices of the merged bodies (each slice holds its own reference); the
   * bodies are released here, on success or failure.
   */
  static List<ArrowBuf> slice(
      Store store,
      String key,
      List<ByteRange.FromStart> ranges,
      List<Group> groups,
      ArrowBuf[] bodies) {
    ArrowBuf[] out = new ArrowBuf[ranges.size()];
    try {
      for (int i = 0; i < groups.size(); i++) {
        Group g = groups.get(i);
        ArrowBuf buf = bodies[i];
        if (buf.writerIndex() < g.length()) {
          throw new StoreException(
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
      return List.of(out);
    } catch (RuntimeException | Error e) {
      closeAll(out);
      throw e;
    } finally {
      closeAll(bodies);
    }
  }

  private static <T> T await(CompletableFuture<T> f) {
    try {
      return f.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
  }

  static void closeAll(ArrowBuf[] bufs) {
    for (ArrowBuf b : bufs) {
      if (b != null) {
        b.close();
      }
    }
  }
}
