package dev.zaro.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Error kinds map to the Flight status codes the design names, message kept. */
class FlightStatusTest {
  @ParameterizedTest
  @CsvSource({
    "NOT_FOUND, NOT_FOUND",
    "INVALID_ARGUMENT, INVALID_ARGUMENT",
    "UNSUPPORTED, UNIMPLEMENTED",
    "CORRUPT, INTERNAL", // Flight has no DATA_LOSS
    "MISSING_CHUNK, INTERNAL",
    "IO, UNAVAILABLE",
    "INTERNAL, INTERNAL",
  })
  void mapsEveryKind(ErrorKind kind, FlightStatusCode code) {
    FlightRuntimeException e =
        ZaroFlightProducer.status(new ZaroException(kind, "chunk key 'a/c/0' broke"));
    assertEquals(code, e.status().code());
    assertEquals("chunk key 'a/c/0' broke", e.status().description());
  }
}
