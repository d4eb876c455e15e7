package dev.zaro.flight;

import java.util.Locale;
import java.util.logging.Filter;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.StreamHandler;

/**
 * Keeps the server's log small when clients misbehave. gRPC and Netty log through {@code
 * java.util.logging}: a client that closes a stream early makes gRPC log a "Stream Error" warning
 * with a stack trace, and every garbage connection (random bytes, a bad HTTP/2 preface, an HTTP/1
 * request, a port scan) a "Transport failed" one. Installed on the root logger's handlers, this
 * filter turns such records of the {@code io.grpc.netty} and {@code io.netty} loggers into one line
 * each without a stack trace, on the {@code dev.zaro.flight.transport} logger, at most {@link
 * #LINES_PER_WINDOW} lines a minute per kind (then one line counting the ones left out), so a port
 * scan cannot fill a disk. gRPC's records of a client leaving are dropped: the producer that served
 * the stream logs that once ({@link #clientLeft}), at INFO, as transport failures are. Other
 * records, including gRPC's errors from a call's own code ({@code io.grpc.internal}), pass
 * unchanged: real failures keep their error logs.
 */
public final class TransportLogs {
  /** Lines per kind (a client leaving, a transport failure) and minute. */
  public static final int LINES_PER_WINDOW = 10;

  private static final long WINDOW_NANOS = 60_000_000_000L;

  /** The logger of the one-line replacements; it writes straight to stderr, one line a record. */
  private static final Logger QUIET = Logger.getLogger("dev.zaro.flight.transport");

  private static final RateLimit LEFT = new RateLimit("client stream endings");
  private static final RateLimit FAILED = new RateLimit("transport failures");
  private static final RateLimit CLOSED = new RateLimit("HTTP connections closed by the server");
  private static boolean installed;

  private TransportLogs() {}

  /**
   * Installs the filter on every handler of the root logger (once per JVM; later calls do nothing).
   */
  public static synchronized void install() {
    if (installed) {
      return;
    }
    installed = true;
    StreamHandler err = new StreamHandler(System.err, new OneLine());
    err.setLevel(Level.ALL);
    QUIET.setUseParentHandlers(false);
    QUIET.addHandler(
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            err.publish(record);
            err.flush();
          }

          @Override
          public void flush() {
            err.flush();
          }

          @Override
          public void close() {
            err.flush();
          }
        });
    for (Handler h : Logger.getLogger("").getHandlers()) {
      h.setFilter(new Quiet(h.getFilter()));
    }
  }

  /**
   * Logs that the client of {@code what} (e.g. {@code do_get '/t2m' [0:24]}) closed or cancelled
   * its stream before the end: one INFO line, rate-limited.
   */
  public static void clientLeft(String what) {
    String text = LEFT.admit(what + ": the client closed the stream before its end");
    if (text != null) {
      QUIET.log(Level.INFO, text);
    }
  }

  /**
   * Logs that the HTTP port closed a client's connection (a request head too slow in coming, a
   * reply its client stopped reading, a head too large): one INFO line, rate-limited, so many bad
   * connections at once cost a few lines.
   */
  public static void connectionClosed(String why) {
    String text = CLOSED.admit("closed an HTTP connection: " + why);
    if (text != null) {
      QUIET.log(Level.INFO, text);
    }
  }

  /**
   * Whether {@code record} reaches the log as it is (it is not transport noise, which becomes one
   * rate-limited line on the {@code dev.zaro.flight.transport} logger, or nothing).
   */
  static boolean passesUnchanged(LogRecord record) {
    return classify(record) == null;
  }

  /** What a gRPC/Netty record is about, or null for one to pass unchanged. */
  enum Kind {
    /** A client closed or cancelled its stream, or reset it. */
    CLIENT_LEFT,
    /** A connection failed below the calls (garbage, a port scan, a dropped socket). */
    TRANSPORT
  }

  /** The kind of {@code record}, or null when it is not transport noise. */
  static Kind classify(LogRecord record) {
    String name = record.getLoggerName();
    if (name == null || !(name.startsWith("io.grpc.netty") || name.startsWith("io.netty"))) {
      return null;
    }
    String message = String.valueOf(record.getMessage());
    Throwable t = record.getThrown();
    if (message.contains("Stream Error") || cancelled(t)) {
      return Kind.CLIENT_LEFT;
    }
    if (t != null
        || message.contains("Transport failed")
        || message.contains("Connection Error")
        || message.contains("exceptionCaught")) {
      return Kind.TRANSPORT;
    }
    return null;
  }

  /** Whether {@code t} (or a cause) says a stream was closed, reset or cancelled by its client. */
  private static boolean cancelled(Throwable t) {
    for (int depth = 0; t != null && depth < 10; t = t.getCause(), depth++) {
      String m = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
      if (t.getClass().getName().endsWith("Http2Exception$StreamException")
          || m.contains("rst_stream")
          || m.contains("stream closed")
          || m.contains("cancelled")) {
        return true;
      }
    }
    return false;
  }

  /** The one line that stands for {@code record}. */
  static String line(Kind kind, LogRecord record) {
    Throwable t = record.getThrown();
    String cause = t == null ? String.valueOf(record.getMessage()) : describe(t);
    return kind == Kind.CLIENT_LEFT
        ? "a client closed a stream before its end (" + cause + ")"
        : "a client connection failed: " + cause;
  }

  private static String describe(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String m = root.getMessage();
    String text = root.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    text = text.replaceAll("\\s+", " ");
    return text.length() > 200 ? text.substring(0, 200) + "..." : text;
  }

  /** The handler filter: transport noise becomes rate-limited single lines, the rest passes. */
  private static final class Quiet implements Filter {
    private final Filter previous;

    Quiet(Filter previous) {
      this.previous = previous;
    }

    @Override
    public boolean isLoggable(LogRecord record) {
      Kind kind = classify(record);
      if (kind == null) {
        return previous == null || previous.isLoggable(record);
      }
      if (record.getLevel().intValue() < Level.INFO.intValue() || kind == Kind.CLIENT_LEFT) {
        // gRPC's own quiet levels (FINE for a reset connection) stay quiet; a stream's end is
        // logged by the producer that served it (clientLeft), once
        return false;
      }
      String text = FAILED.admit(line(kind, record));
      if (text != null) {
        QUIET.log(Level.INFO, text);
      }
      return false;
    }
  }

  /** At most {@link #LINES_PER_WINDOW} lines a minute; the next line counts what was left out. */
  static final class RateLimit {
    private final String what;
    private long windowStart = Long.MIN_VALUE;
    private int lines;
    private long suppressed;

    RateLimit(String what) {
      this.what = what;
    }

    /** The line to log (with a count of the lines left out before it), or null to leave it out. */
    synchronized String admit(String line) {
      long now = System.nanoTime();
      if (windowStart == Long.MIN_VALUE || now - windowStart > WINDOW_NANOS) {
        windowStart = now;
        lines = 0;
      }
      if (lines >= LINES_PER_WINDOW) {
        suppressed++;
        return null;
      }
      lines++;
      if (suppressed > 0) {
        line +=
            " ("
                + suppressed
                + " more "
                + what
                + " not logged; at most "
                + LINES_PER_WINDOW
                + " a minute)";
        suppressed = 0;
      }
      return line;
    }
  }

  /** {@code <time> <LEVEL> <logger>: <message>} on one line. */
  private static final class OneLine extends Formatter {
    @Override
    public String format(LogRecord record) {
      return String.format(
          Locale.ROOT,
          "%1$tF %1$tT %2$s %3$s: %4$s%n",
          record.getMillis(),
          record.getLevel().getName(),
          record.getLoggerName(),
          formatMessage(record));
    }
  }
}
