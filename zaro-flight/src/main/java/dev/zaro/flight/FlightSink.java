package dev.zaro.flight;

import java.util.concurrent.atomic.LongAdder;
import org.apache.arrow.flight.BackpressureStrategy;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.vector.VectorSchemaRoot;

/** One do_get: its listener, its backpressure wait, and whether shutdown asked it to stop. */
final class FlightSink extends BackpressureStrategy.CallbackBackpressureStrategy
    implements ReadSink {
  final ServerStreamListener listener;
  private final String what;
  volatile boolean stopped;
  private volatile boolean started;

  private final LongAdder wireBytes;
  private final MemoryBudget budget;

  /**
   * @param wireBytes where the bytes sent are counted
   * @param budget woken when the stream stops or its client leaves
   */
  FlightSink(ServerStreamListener listener, String what, LongAdder wireBytes, MemoryBudget budget) {
    this.listener = listener;
    this.what = what;
    this.wireBytes = wireBytes;
    this.budget = budget;
    register(listener);
  }

  @Override
  public void start(VectorSchemaRoot root, WireCompression compression) {
    started = true;
    listener.start(root);
    compression.install(listener, root, wireBytes);
  }

  @Override
  public boolean started() {
    return started;
  }

  @Override
  public void putNext() {
    listener.putNext();
  }

  @Override
  public void completed() {
    listener.completed();
  }

  @Override
  public void error(FlightRuntimeException status) {
    listener.error(FlightErrors.onWire(status));
  }

  @Override
  public boolean cancelled() {
    return listener.isCancelled();
  }

  @Override
  public String what() {
    return what;
  }

  @Override
  public boolean stopped() {
    return stopped;
  }

  /** Waits (woken by gRPC's ready and cancel callbacks) until the client can take a batch. */
  @Override
  public boolean awaitReady() {
    return !stopped && waitForListener(0) == WaitResult.READY && !stopped;
  }

  @Override
  protected boolean shouldContinueWaiting(ServerStreamListener l, long remaining) {
    return !stopped;
  }

  @Override
  protected void cancelCallback() {
    budget.wake();
  }

  @Override
  public void stop() {
    stopped = true;
    interruptWait();
    budget.wake();
  }
}
