package dev.zaro.remote;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * The TLS layer of a connection (its state machine: the handshake, records in and out, messages
 * after the handshake, the close): records read from the socket wait in {@link #in} until the
 * engine decrypts them (straight into a Content-Length body where the record fits in what is left
 * of it, else into the client's scratch buffer); records to send wait in {@link #out}. Both buffers
 * stay flipped (ready to be read) between calls. I/O thread only.
 */
final class Http1Tls {
  private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);

  private final Http1Connection conn;
  private final ByteBuffer scratch; // the client's
  final SSLEngine engine;
  final ByteBuffer in;
  final ByteBuffer out;
  boolean shaken; // the handshake is complete
  boolean released; // the engine was freed: the connection is closed

  Http1Tls(Http1Connection conn, SSLEngine engine) throws SSLException {
    this.conn = conn;
    this.scratch = conn.client().scratch;
    this.engine = engine;
    engine.beginHandshake();
    int packet = engine.getSession().getPacketBufferSize();
    this.in = ByteBuffer.allocateDirect(Math.max(Http1Client.SCRATCH_BYTES, 2 * packet)).flip();
    this.out = ByteBuffer.allocateDirect(2 * packet).flip();
  }

  /**
   * Advances the handshake as far as the socket allows: true once it is complete, false when it
   * waits for the socket (the key then waits for what the handshake needs).
   */
  boolean handshake() throws IOException {
    while (true) {
      if (!flush()) {
        conn.key.interestOps(SelectionKey.OP_WRITE);
        return false;
      }
      switch (engine.getHandshakeStatus()) {
        case NEED_TASK -> runTasks();
        case NEED_WRAP -> wrap(NOTHING);
        case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
          scratch.clear();
          SSLEngineResult r = engine.unwrap(in, scratch);
          boolean closed = r.getStatus() == SSLEngineResult.Status.CLOSED;
          if (!closed && (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW || idle(r))) {
            int n = fill();
            if (n == 0) {
              conn.key.interestOps(SelectionKey.OP_READ);
              return false;
            }
            closed = n < 0;
          }
          if (closed) {
            throw new EOFException(
                conn.ex.where
                    + ": "
                    + conn.hostPort
                    + " closed the connection during the TLS handshake");
          }
        }
        default -> { // NOT_HANDSHAKING, FINISHED
          shaken = true;
          return true;
        }
      }
    }
  }

  /** Encrypts as much of {@code request} as the socket takes now. */
  void send(ByteBuffer request) throws IOException {
    while (flush() && request.hasRemaining()) {
      wrap(request);
    }
  }

  /** Reads and decrypts the reply's bytes the socket has. */
  void read() throws IOException {
    Http1Exchange x = conn.ex;
    while (conn.ex == x) {
      ByteBuffer direct = x.direct();
      boolean toBody = direct != null;
      SSLEngineResult r = null;
      if (toBody) {
        r = engine.unwrap(in, direct);
        if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
          r = null; // the record holds more than the body's rest: through the scratch buffer
          toBody = false;
        }
      }
      if (r == null) {
        scratch.clear();
        r = engine.unwrap(in, scratch);
      }
      switch (idle(r) ? SSLEngineResult.Status.BUFFER_UNDERFLOW : r.getStatus()) {
        case BUFFER_UNDERFLOW -> {
          int n = fill();
          if (n < 0) {
            conn.ended(x);
            return;
          }
          if (n == 0) {
            return;
          }
        }
        case CLOSED -> { // the server's close_notify
          conn.ended(x);
          return;
        }
        case OK -> {
          int n = r.bytesProduced();
          if (n > 0) {
            if (toBody) {
              x.wroteDirect(n);
            } else {
              scratch.flip();
              x.feed(scratch);
            }
          }
          afterHandshakeMessage();
          if (conn.settled(x)) {
            return;
          }
        }
        default ->
            throw new SSLException(
                "a TLS record larger than " + Http1Client.SCRATCH_BYTES + " bytes");
      }
    }
  }

  /** An idle connection: consumes records with no data (session tickets); false on any other. */
  boolean quiet() throws IOException {
    if (fill() < 0) {
      return false;
    }
    while (in.hasRemaining()) {
      scratch.clear();
      SSLEngineResult r = engine.unwrap(in, scratch);
      if (r.getStatus() != SSLEngineResult.Status.OK || r.bytesProduced() > 0) {
        return r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW && r.bytesProduced() == 0;
      }
      afterHandshakeMessage();
    }
    return true;
  }

  /** Answers what a message after the handshake asks for (a key update's reply). */
  private void afterHandshakeMessage() throws IOException {
    while (true) {
      switch (engine.getHandshakeStatus()) {
        case NEED_TASK -> runTasks();
        case NEED_WRAP -> {
          wrap(NOTHING);
          flush(); // a few bytes; any not taken now go before the next request
        }
        default -> {
          return;
        }
      }
    }
  }

  /**
   * Whether an unwrap did nothing at all (neither read nor wrote a byte) though it said OK: it
   * needs more bytes from the socket, as an underflow does (never a reason to call it again).
   */
  private boolean idle(SSLEngineResult r) {
    return r.getStatus() == SSLEngineResult.Status.OK
        && r.bytesConsumed() == 0
        && r.bytesProduced() == 0
        && r.getHandshakeStatus() != SSLEngineResult.HandshakeStatus.NEED_TASK
        && r.getHandshakeStatus() != SSLEngineResult.HandshakeStatus.NEED_WRAP;
  }

  /** Reads what the socket has into {@link #in}: the bytes read, or -1 at its end. */
  private int fill() throws IOException {
    in.compact();
    try {
      return conn.ch.read(in);
    } finally {
      in.flip();
    }
  }

  /** Writes {@link #out}'s records: true when none is left. */
  private boolean flush() throws IOException {
    if (out.hasRemaining()) {
      conn.ch.write(out);
    }
    return !out.hasRemaining();
  }

  private void wrap(ByteBuffer from) throws SSLException {
    out.compact();
    try {
      SSLEngineResult r = engine.wrap(from, out);
      if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
        throw new SSLException("the TLS connection is closed");
      }
    } finally {
      out.flip();
    }
  }

  private void runTasks() {
    Runnable task;
    while ((task = engine.getDelegatedTask()) != null) {
      task.run();
    }
  }

  /** Frees the engine's state outside the heap, once. */
  void release() {
    if (!released) {
      released = true;
      conn.client().engines().release(engine);
    }
  }

  /** Tells the server the connection closes (best effort: one write, never waiting). */
  void closeNotify() {
    if (!shaken || released || !conn.ch.isOpen()) {
      return;
    }
    try {
      engine.closeOutbound();
      wrap(NOTHING);
      flush();
    } catch (IOException | RuntimeException e) {
      // closing anyway
    }
  }
}
