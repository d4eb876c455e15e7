package dev.zaro.flight;

import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Where a read's batches go: a Flight do_get or an HTTP response. The producer loads each batch
 * into the root it gave {@link #start}, waits for {@link #awaitReady}, then calls {@link #putNext};
 * memory stays in the read's lease until the sink lets go of it.
 */
interface ReadSink {
  /** Sends the schema; from now on batches are unloaded from {@code root}. */
  void start(VectorSchemaRoot root, WireCompression compression);

  /** Whether {@link #start} was called (something may be on its way to the client). */
  boolean started();

  /** Sends what {@code root} holds now. */
  void putNext();

  /** Ends the stream successfully. */
  void completed();

  /** Ends the stream with a Flight status (the HTTP sink maps it to a status code). */
  void error(FlightRuntimeException status);

  /** Whether the client went away. */
  boolean cancelled();

  /** What the stream sends, for the log line when its client leaves early. */
  String what();

  /** Waits until the client can take a batch; false when it left or {@link #stop} was called. */
  boolean awaitReady();

  /** Whether shutdown asked the stream to stop. */
  boolean stopped();

  /** Asks the stream to stop before its next batch, waking a wait for the client. */
  void stop();

  /** Called when the client leaves, so a request waiting for memory stops waiting. */
  default boolean gone() {
    return stopped() || cancelled();
  }

  /**
   * Waits for the client: true once it can take a batch; false when it left or shutdown stopped the
   * stream (then says so: a log line for a client that left, UNAVAILABLE for a stopped stream).
   */
  default boolean readyForNext() {
    if (awaitReady()) {
      return true;
    }
    if (cancelled()) {
      TransportLogs.clientLeft(what());
    }
    if (stopped() && !cancelled()) {
      error(
          CallStatus.UNAVAILABLE
              .withDescription(
                  "the server is shutting down and its grace period for running streams is over")
              .toRuntimeException());
    }
    return false;
  }
}
