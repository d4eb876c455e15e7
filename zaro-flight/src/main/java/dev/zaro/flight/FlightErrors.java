package dev.zaro.flight;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import io.grpc.Status;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.memory.OutOfMemoryException;

/**
 * How a failure becomes a Flight status, in one place for every call of the Flight and Flight SQL
 * services and the HTTP port's error answers: zaro errors by their {@link ErrorKind}, memory
 * exhaustion as RESOURCE_EXHAUSTED naming the limits, the rest INTERNAL.
 */
public final class FlightErrors {
  private FlightErrors() {}

  /**
   * The Flight status of a zaro error, by its {@link dev.zaro.arrow.error.ErrorKind}: NOT_FOUND,
   * INVALID_ARGUMENT, UNIMPLEMENTED (unsupported), UNAVAILABLE (a store failure), else INTERNAL.
   * Corrupt data is INTERNAL here, Arrow Flight's vocabulary having no DATA_LOSS; {@link #onWire}
   * sends it as gRPC's DATA_LOSS. The zaro error is the status's cause.
   */
  public static FlightRuntimeException status(ZaroException e) {
    CallStatus status =
        switch (e.kind()) {
          case NOT_FOUND -> CallStatus.NOT_FOUND;
          case INVALID_ARGUMENT -> CallStatus.INVALID_ARGUMENT;
          case UNSUPPORTED -> CallStatus.UNIMPLEMENTED;
          case IO -> CallStatus.UNAVAILABLE;
          case CORRUPT, MISSING_CHUNK, INTERNAL -> CallStatus.INTERNAL;
        };
    return status.withDescription(e.getMessage()).withCause(e).toRuntimeException();
  }

  /**
   * What a gRPC call sends for {@code status}: the status itself, except corrupt data (a zaro error
   * of kind CORRUPT as its cause), which goes out as gRPC's DATA_LOSS with the same message, as
   * docs/contracts.md states ("Flight contract"). Flight's clients read DATA_LOSS as INTERNAL
   * (Java) or an internal/IO error (C++, pyarrow); the message names the chunk key either way.
   * Arrow's transport passes a gRPC status exception through unchanged.
   */
  public static RuntimeException onWire(FlightRuntimeException status) {
    if (status.status().cause() instanceof ZaroException z && z.kind() == ErrorKind.CORRUPT) {
      return Status.DATA_LOSS
          .withDescription(status.status().description())
          .withCause(z)
          .asRuntimeException();
    }
    return status;
  }

  /**
   * The Flight status of any failure of a call (zaro errors by kind, memory, the rest INTERNAL).
   */
  public static FlightRuntimeException translate(RuntimeException e) {
    if (e instanceof FlightRuntimeException f) {
      return f;
    }
    if (e instanceof ZaroException z) {
      return status(z);
    }
    if (e instanceof OutOfMemoryException) {
      return CallStatus.RESOURCE_EXHAUSTED
          .withDescription(
              "the request ran out of memory: "
                  + e.getMessage()
                  + " (its limit is --max-request-bytes, all requests together share --max-memory)")
          .toRuntimeException();
    }
    return CallStatus.INTERNAL.withDescription(e.toString()).withCause(e).toRuntimeException();
  }
}
