package dev.zaro.remote;

import dev.zaro.arrow.error.StoreException;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * The decoder of a reply body in {@code Transfer-Encoding: chunked} for {@link Http1Client}: fed
 * the bytes as they arrive, in any pieces, it hands each chunk's data on in order and tells when
 * the last chunk and the trailers have ended. Malformed framing (a bad size, a missing CRLF, a size
 * line over 4 KiB) is a {@link StoreException} naming the request. Not thread-safe: one body's
 * bytes arrive on the I/O thread.
 */
final class ChunkedBody {
  private final String where;
  private final Consumer<ByteBuffer> data;
  private final StringBuilder line = new StringBuilder();
  private long left = -1; // data bytes left in this chunk; -1 reading a size line
  private boolean crlf; // the CRLF after a chunk's data
  private boolean trailers;
  private boolean done;

  /**
   * @param where the request, for messages: {@code key 'a/b' (URL)}
   * @param data takes each piece of the chunks' data (its remaining bytes), in order
   */
  ChunkedBody(String where, Consumer<ByteBuffer> data) {
    this.where = where;
    this.data = data;
  }

  /** Whether the body has ended (the last chunk and its trailers). */
  boolean done() {
    return done;
  }

  /** Reads what it can of {@code in}; bytes past the body's end stay in {@code in}. */
  void feed(ByteBuffer in) {
    while (in.hasRemaining() && !done) {
      if (left > 0) {
        int n = (int) Math.min(left, in.remaining());
        ByteBuffer part = in.slice();
        part.limit(n);
        data.accept(part);
        in.position(in.position() + n);
        left -= n;
        if (left == 0) {
          crlf = true;
        }
        continue;
      }
      char c = (char) (in.get() & 0xff);
      if (c != '\n') {
        if (line.length() > 4096) {
          throw new StoreException(where + ": a chunk header line is too long");
        }
        line.append(c);
        continue;
      }
      String text = line.toString().strip();
      line.setLength(0);
      if (crlf) {
        if (!text.isEmpty()) {
          throw new StoreException(where + ": no CRLF after a chunk's data");
        }
        crlf = false;
        left = -1;
      } else if (trailers) {
        done = text.isEmpty();
      } else {
        int semi = text.indexOf(';');
        String size = semi < 0 ? text : text.substring(0, semi).strip();
        try {
          left = Long.parseLong(size, 16);
        } catch (NumberFormatException e) {
          throw new StoreException(where + ": bad chunk size '" + size + "'", e);
        }
        if (left < 0) {
          throw new StoreException(where + ": bad chunk size '" + size + "'");
        }
        if (left == 0) {
          trailers = true;
        }
      }
    }
  }
}
