package dev.zaro.arrow.read;

import dev.zaro.arrow.codec.Scratch;
import dev.zaro.arrow.error.ZaroException;
import java.util.ArrayList;
import java.util.List;

/**
 * The streamed shards of one read ({@link ShardStream}) and their inner chunks whose bytes have
 * landed. A thread of the read that waits for its own shard's next chunk decodes whichever shard's
 * landed chunk is there instead ({@link #decodeAll}), so chunks are decoded as their bytes arrive
 * across all the shards in flight, not shard after shard in the read's order: over a link slower
 * than the decoders, the shards the read's threads have not reached yet would otherwise arrive
 * whole and be decoded only after the last byte (benchmarks/README, "Streamed shards").
 *
 * <p>Each chunk is claimed by one thread. A shard is done when every chunk of it has been claimed
 * and decoded, or when its stream failed (or its read gave up on it) and the chunks already claimed
 * are decoded: only then may its body be freed ({@link #retire}). A failure decoding another
 * shard's chunk goes to that shard, whose own thread reports it under its own key. Thread-safe.
 */
final class LandedChunks {
  /** Decodes chunk {@code k} (numbered as {@link ShardStream#want} numbers them). */
  @FunctionalInterface
  interface ChunkDecode {
    void decode(int k, Scratch scratch);
  }

  /** One streamed shard of the read: its chunks, claimed one at a time. */
  final class Shard {
    private final ShardStream stream;
    private final int total;
    private final ChunkDecode decode;
    private int claimed; // handed to a thread
    private int done; // decoded (or failed) after being claimed
    private RuntimeException failure; // set once: no chunk of it is claimed after that

    private Shard(ShardStream stream, int total, ChunkDecode decode) {
      this.stream = stream;
      this.total = total;
      this.decode = decode;
    }

    /** A landed chunk to decode, claimed; -1 when none is ready now (or none will be). */
    private int claim() {
      if (failure != null || claimed == total) {
        return -1;
      }
      int k = stream.poll();
      if (k >= 0) {
        claimed++;
      } else if (k == ShardStream.FAILED) {
        failure = stream.failure();
      }
      return k;
    }

    /**
     * Every chunk decoded and the request settled (so the caller's {@link ShardStream#awaitSettled}
     * does not wait), or failed: no claimed decode still running.
     */
    private boolean finished() {
      return (failure != null || (claimed == total && stream.isSettled())) && done == claimed;
    }

    /** {@link LandedChunks#decodeAll} for this shard. */
    void decodeAll(Scratch scratch) {
      LandedChunks.this.decodeAll(this, scratch);
    }

    /** {@link LandedChunks#retire} of this shard. */
    void retire() {
      LandedChunks.this.retire(this);
    }
  }

  private final List<Shard> open = new ArrayList<>();

  /**
   * Adds a shard whose {@code total} wanted chunks come by {@code stream} (its {@link
   * ShardStream#want} already called), each decoded by {@code decode}.
   */
  synchronized Shard add(ShardStream stream, int total, ChunkDecode decode) {
    Shard s = new Shard(stream, total, decode);
    open.add(s);
    notifyAll(); // some of its chunks may have landed already
    return s;
  }

  /** Bytes landed (or a stream settled): waiting threads look again. */
  synchronized void landed() {
    notifyAll();
  }

  /**
   * Decodes landed chunks, {@code own}'s first and any other shard's while none of {@code own}'s is
   * ready, until every chunk of {@code own} is decoded and its request has settled, then returns;
   * waits while no chunk of any shard has landed. Several threads may work for the same shard.
   *
   * @throws RuntimeException the first failure of {@code own}: its stream's (naming its key), or
   *     one of its chunks' decodes
   */
  void decodeAll(Shard own, Scratch scratch) {
    boolean interrupted = false;
    while (true) {
      Shard from = null;
      int k = -1;
      synchronized (this) {
        while (!own.finished()) {
          k = own.claim();
          from = own;
          for (int i = 0; k < 0 && i < open.size(); i++) {
            from = open.get(i);
            k = from == own ? -1 : from.claim();
          }
          if (k >= 0) {
            break;
          }
          try {
            wait();
          } catch (InterruptedException e) {
            // the chunks others have claimed are still decoding into this shard's body: no new
            // claims, then wait for those (they are short) before the caller may free it
            interrupted = true;
            if (own.failure == null) {
              own.failure = new ZaroException("interrupted while a shard was arriving", e);
            }
          }
        }
        if (k < 0) {
          open.remove(own);
          // another thread working for the same shard may be waiting: a claim here (its stream's
          // failure taken up) can have finished the shard without a decode ending
          notifyAll();
          if (interrupted) {
            Thread.currentThread().interrupt();
          }
          if (own.failure != null) {
            throw own.failure;
          }
          return;
        }
      }
      decode(from, k, scratch);
    }
  }

  private void decode(Shard from, int k, Scratch scratch) {
    Throwable failed = null;
    try {
      from.decode.decode(k, scratch);
    } catch (RuntimeException | Error e) {
      failed = e;
    } finally {
      synchronized (this) {
        if (failed != null && from.failure == null) {
          from.failure =
              failed instanceof RuntimeException r
                  ? r
                  : new ZaroException("decoding an inner chunk failed: " + failed, failed);
        }
        from.done++;
        notifyAll();
      }
    }
  }

  /**
   * Stops handing out {@code shard}'s chunks and waits until those already claimed are decoded:
   * after this its body may be freed. For a shard whose read ends before decoding it all (a failure
   * elsewhere); a no-op once {@link #decodeAll} has returned for it.
   */
  synchronized void retire(Shard shard) {
    if (shard.failure == null && shard.claimed < shard.total) {
      shard.failure = new ZaroException("the read ended before this shard was decoded");
    }
    boolean interrupted = false;
    while (shard.done < shard.claimed) {
      try {
        wait();
      } catch (InterruptedException e) {
        interrupted = true; // claimed decodes are short and must end before the body is freed
      }
    }
    open.remove(shard);
    notifyAll();
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
