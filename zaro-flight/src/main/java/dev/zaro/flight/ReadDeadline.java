package dev.zaro.flight;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A read request's own deadline ({@code "timeout": S} in a Flight command or ticket, {@code
 * ?timeout=S} over HTTP): the whole read, from the request's arrival to its last batch, waiting for
 * memory and the store included. Past it the client gets {@code TIMED_OUT} (HTTP: 503, or a stream
 * cut short once it has begun) naming the array, the slice, the store and the timeout, at once,
 * even while the read's thread is still held by a store that does not answer; that thread ends when
 * the store's own limits ({@code --timeout}, {@code --request-timeout}) end its request, and frees
 * its memory then.
 *
 * <p>A sink wrapper: every call that sends something to the client, and the deadline's error, take
 * one lock, so the client gets either the read's end or the deadline's error, never both, and
 * nothing after either.
 */
final class ReadDeadline implements ReadSink {
  private static final ScheduledExecutorService TIMER = timer();

  private final ReadSink sink;
  private final Object lock = new Object();
  private boolean ended; // under lock: completed, failed, or past the deadline
  private volatile boolean expired;
  private final ScheduledFuture<?> timer;

  private ReadDeadline(ReadSink sink, ReadRequest request, String store) {
    this.sink = sink;
    String message =
        "the read of "
            + ZaroFlightProducer.describe(request)
            + " from "
            + store
            + " did not finish within its timeout of "
            + seconds(request.timeout())
            + " s (the request's \"timeout\")";
    this.timer =
        TIMER.schedule(
            () -> expire(CallStatus.TIMED_OUT.withDescription(message).toRuntimeException()),
            request.timeout().toNanos(),
            TimeUnit.NANOSECONDS);
  }

  /** {@code sink} bounded by the request's timeout, or {@code sink} itself when it has none. */
  static ReadSink of(ReadSink sink, ReadRequest request, String store) {
    return request.timeout() == null ? sink : new ReadDeadline(sink, request, store);
  }

  private static ScheduledExecutorService timer() {
    ScheduledThreadPoolExecutor t =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread thread = new Thread(r, "zaro-read-deadline");
              thread.setDaemon(true);
              return thread;
            });
    t.setRemoveOnCancelPolicy(true); // a finished read's timer goes at once, not at its time
    return t;
  }

  static String seconds(Duration d) {
    return BigDecimal.valueOf(d.toNanos(), 9).stripTrailingZeros().toPlainString();
  }

  private void expire(FlightRuntimeException status) {
    synchronized (lock) {
      if (ended) {
        return;
      }
      ended = true;
      expired = true;
      sink.error(status);
    }
    sink.stop(); // wakes a wait for the client or for memory; the read stops at its next step
  }

  @Override
  public void start(VectorSchemaRoot root, WireCompression compression) {
    synchronized (lock) {
      if (!ended) {
        sink.start(root, compression);
      }
    }
  }

  @Override
  public boolean started() {
    return sink.started();
  }

  @Override
  public void putNext() {
    synchronized (lock) {
      if (!ended) {
        sink.putNext();
      }
    }
  }

  @Override
  public void completed() {
    synchronized (lock) {
      if (!ended) {
        ended = true;
        timer.cancel(false);
        sink.completed();
      }
    }
  }

  @Override
  public void error(FlightRuntimeException status) {
    synchronized (lock) {
      if (!ended) {
        ended = true;
        timer.cancel(false);
        sink.error(status);
      }
    }
  }

  @Override
  public boolean cancelled() {
    return sink.cancelled();
  }

  @Override
  public String what() {
    return sink.what();
  }

  @Override
  public boolean awaitReady() {
    return !expired && sink.awaitReady() && !expired;
  }

  @Override
  public boolean stopped() {
    return expired || sink.stopped();
  }

  @Override
  public void stop() {
    sink.stop();
  }
}
