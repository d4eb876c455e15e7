package dev.zaro.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/** Which gRPC/Netty records become one quiet line, and how many lines a minute pass. */
class TransportLogsTest {
  private static LogRecord record(String logger, Level level, String message, Throwable t) {
    LogRecord r = new LogRecord(level, message);
    r.setLoggerName(logger);
    r.setThrown(t);
    return r;
  }

  @Test
  void classifiesClientsLeavingAndTransportFailures() {
    assertEquals(
        TransportLogs.Kind.CLIENT_LEFT,
        TransportLogs.classify(
            record(
                "io.grpc.netty.NettyServerHandler",
                Level.WARNING,
                "Stream Error",
                new IllegalStateException("Stream closed before write could take place"))));
    LogRecord garbage =
        record(
            "io.grpc.netty.NettyServerTransport",
            Level.INFO,
            "Transport failed",
            new IOException("HTTP/2 client preface string missing or corrupt. Hex dump: 474554"));
    assertEquals(TransportLogs.Kind.TRANSPORT, TransportLogs.classify(garbage));
    String line = TransportLogs.line(TransportLogs.Kind.TRANSPORT, garbage);
    assertTrue(line.contains("client preface") && !line.contains("\n"), line);
    // real failures (a call's own code, zaro's loggers) pass unchanged
    assertNull(
        TransportLogs.classify(
            record(
                "io.grpc.internal.SerializingExecutor",
                Level.SEVERE,
                "Exception while executing runnable",
                new IllegalStateException("bug"))));
    assertNull(
        TransportLogs.classify(
            record("dev.zaro.flight", Level.SEVERE, "failed", new IOException())));
  }

  @Test
  void atMostTenLinesAMinuteThenACount() {
    TransportLogs.RateLimit limit = new TransportLogs.RateLimit("transport failures");
    for (int i = 0; i < TransportLogs.LINES_PER_WINDOW; i++) {
      assertNotNull(limit.admit("line " + i));
    }
    for (int i = 0; i < 390; i++) {
      assertNull(limit.admit("more"));
    }
    assertFalse(TransportLogs.LINES_PER_WINDOW > 50);
  }
}
