package dev.zaro.remote;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;

/**
 * One connection of {@link Http1Client}, plain or TLS ({@link Http1Tls}), carrying at most one
 * {@link Http1Http1Exchange} at a time: sends the request, reads the reply's bytes into it, and
 * when the reply is complete parks itself in the client's {@link Http1Pool} or closes. What goes
 * wrong is sorted by {@link Http1Failures}; a stale keep-alive connection is replaced once. I/O
 * thread only.
 */
final class Http1Connection {
  private final Http1Client client;
  final SocketChannel ch;
  final String hostPort;
  final Http1Tls tls; // null for plain http
  SelectionKey key;
  Http1Exchange ex;
  boolean reused;
  long connectDeadline; // System.nanoTime() by which a pending connect must finish

  /** The client whose I/O thread serves this connection. */
  Http1Client client() {
    return client;
  }

  Http1Connection(Http1Client client, SocketChannel ch, String hostPort, SSLEngine engine)
      throws SSLException {
    this.client = client;
    this.ch = ch;
    this.hostPort = hostPort;
    this.tls = engine == null ? null : new Http1Tls(this, engine);
  }

  /** An idle connection with nothing to read (not closed, no stray bytes): fit for reuse. */
  boolean quiet() {
    try {
      if (tls != null) {
        return tls.quiet();
      }
      client.scratch.clear();
      return ch.read(client.scratch) == 0;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  void begin(Http1Exchange e, boolean reusing) {
    ex = e;
    e.conn = this;
    reused = reusing;
    e.request.rewind();
    if (ch.isConnected()) {
      write();
    }
  }

  void ready(SelectionKey k) {
    if (ex == null) { // idle: closed by the server, stray bytes, or TLS records with no data
      if (!quiet()) {
        client.pool.drop(this);
      }
      return;
    }
    if (ex.limit != null) {
      ex.limit.touch(); // the no-progress clock of the request policy
    }
    try {
      if (k.isConnectable()) {
        ch.finishConnect();
        write();
        return;
      }
      if (k.isWritable() || (tls != null && !tls.shaken)) {
        write();
        return;
      }
      if (k.isReadable()) {
        if (tls != null) {
          tls.read();
        } else {
          read();
        }
      }
    } catch (SSLException | RuntimeException e) {
      failWith(e);
    } catch (IOException e) {
      broken(e);
    }
  }

  /**
   * Closes the connection and fails its exchange with what {@code e} means for it: a TLS failure
   * ({@link Http1Failures#tls}) or a runtime one ({@link Http1Failures#unexpected}). Never retried
   * here.
   */
  private void failWith(Exception e) {
    Http1Exchange x = ex;
    ex = null;
    closeChannel();
    if (x != null) {
      x.fail(
          e instanceof SSLException tlsError
              ? Http1Failures.tls(x, hostPort, tlsError)
              : Http1Failures.unexpected(x, tls != null, hostPort, (RuntimeException) e));
    }
  }

  /** Sends what is left of the request (over TLS, after the handshake); then waits to read. */
  private void write() {
    try {
      if (tls != null) {
        if (!tls.shaken && !tls.handshake()) {
          return; // waiting for the socket; the handshake chose what to wait for
        }
        tls.send(ex.request);
        key.interestOps(
            ex.request.hasRemaining() || tls.out.hasRemaining()
                ? SelectionKey.OP_WRITE
                : SelectionKey.OP_READ);
        return;
      }
      ch.write(ex.request);
    } catch (SSLException | RuntimeException e) {
      failWith(e);
      return;
    } catch (IOException e) {
      broken(e);
      return;
    }
    key.interestOps(ex.request.hasRemaining() ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
  }

  private void read() throws IOException {
    Http1Exchange x = ex;
    while (ex == x) {
      ByteBuffer direct = x.direct();
      int n;
      if (direct != null) {
        n = ch.read(direct);
        if (n > 0) {
          x.wroteDirect(n);
        }
      } else {
        client.scratch.clear();
        n = ch.read(client.scratch);
        if (n > 0) {
          client.scratch.flip();
          x.feed(client.scratch);
        }
      }
      if (n < 0) {
        ended(x);
        return;
      }
      if (settled(x) || n == 0) {
        return;
      }
    }
  }

  /** The server closed the connection: ends a close-delimited reply, else fails it (throws). */
  void ended(Http1Exchange x) throws IOException {
    x.endOfStream(); // throws unless the body was close-delimited
    ex = null;
    closeChannel();
    x.finish();
  }

  /** If {@code x}'s reply is complete: parks or closes the connection and hands it over. */
  boolean settled(Http1Exchange x) {
    if (!x.complete()) {
      return false;
    }
    ex = null;
    if (x.keepAlive) {
      client.park(this);
    } else {
      closeChannel();
    }
    x.finish();
    return true;
  }

  /** The connection broke: replace a stale keep-alive one once, else fail the request. */
  private void broken(IOException e) {
    Http1Exchange x = ex;
    ex = null;
    closeChannel();
    if (x == null) {
      return;
    }
    if (reused && !x.replyStarted && !x.replaced) {
      x.replaced = true;
      x.release();
      x.conn = null;
      client.start(x);
      return;
    }
    boolean named = e.getMessage() != null && e.getMessage().startsWith(x.where);
    x.fail(named ? e : new IOException(x.where + ": " + e, e));
  }

  void fail(IOException e) {
    Http1Exchange x = ex;
    ex = null;
    closeChannel();
    if (x != null) {
      x.fail(e);
    }
  }

  /**
   * Handling this connection threw {@code t} (an {@link Error} such as an {@link OutOfMemoryError}
   * too): closes it and fails its request, if any, naming it; the I/O thread goes on with the other
   * connections.
   */
  void crashed(Throwable t) {
    Http1Exchange x = ex;
    ex = null;
    try {
      client.pool.drop(this);
    } catch (Throwable ignored) {
      // closing anyway
    }
    if (x != null) {
      x.crashed(t, hostPort);
    }
  }

  void closeChannel() {
    if (key != null) {
      key.cancel();
    }
    if (tls != null) {
      tls.closeNotify();
      tls.release();
    }
    try {
      ch.close();
    } catch (IOException e) {
      // already gone
    }
  }
}
