package dev.zaro.remote;

import java.nio.channels.SelectionKey;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * {@link Http1Client}'s keep-alive pool: idle connections by scheme, host and port, at most {@link
 * #MAX_IDLE_PER_HOST} each, the most recently parked reused first. An idle connection waits for
 * reads: one that turns readable was closed by its server or sent bytes nobody asked for, and is
 * dropped. I/O thread only.
 */
final class Http1Pool {
  /** The most idle connections kept per host. */
  static final int MAX_IDLE_PER_HOST = 256;

  private final Map<String, ArrayDeque<Http1Connection>> idle = new HashMap<>();

  /**
   * An idle connection to {@code hostPort} fit for reuse (nothing to read: not closed, no stray
   * bytes), taken out of the pool, or null; those found unfit are closed on the way.
   */
  Http1Connection take(String hostPort) {
    ArrayDeque<Http1Connection> free = idle.get(hostPort);
    Http1Connection c;
    while (free != null && (c = free.pollLast()) != null) {
      if (c.quiet()) {
        return c;
      }
      c.closeChannel(); // closed by the server, or it sent bytes nobody asked for
    }
    return null;
  }

  /** Keeps {@code c}, whose reply is complete, for the next request to its host, or closes it. */
  void park(Http1Connection c, boolean closing) {
    ArrayDeque<Http1Connection> free = idle.computeIfAbsent(c.hostPort, h -> new ArrayDeque<>());
    if (closing || free.size() >= MAX_IDLE_PER_HOST) {
      c.closeChannel();
      return;
    }
    c.key.interestOps(SelectionKey.OP_READ); // an idle connection that turns readable was closed
    free.addLast(c);
  }

  /** Closes {@code c} and forgets it if it was idle. */
  void drop(Http1Connection c) {
    ArrayDeque<Http1Connection> free = idle.get(c.hostPort);
    if (free != null) {
      free.remove(c);
    }
    c.closeChannel();
  }

  /** Forgets every idle connection (the client closes them with its selector). */
  void clear() {
    idle.clear();
  }
}
