package dev.zaro.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.zaro.arrow.error.ZaroException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.HexFormat;

/**
 * The parsers of zaro's HTTP/1.1 client on any bytes a server may send: the reply head ({@link
 * ReplyHead}: status line, header fields, the body's length and framing) and the chunked body
 * decoder ({@link ChunkedBody}). Each input must end in a result or a typed {@link ZaroException}
 * naming the request, never another exception; the chunked decoder must give the same outcome
 * however the bytes are split across reads (a server chooses the split, not the content).
 */
class Http1ReplyFuzzTest {
  private static final String WHERE = "key 'fuzz' (http://fuzz/)";

  @FuzzTest
  void head(byte[] input) {
    try {
      ReplyHead head = ReplyHead.parse(input, input.length, WHERE);
      head.interim();
      head.keepAlive();
      head.chunked();
      head.header("content-range");
      long length = head.contentLength(WHERE);
      if (length < -1) {
        throw new AssertionError("a negative Content-Length was taken: " + length);
      }
    } catch (ZaroException expected) {
      if (!expected.getMessage().startsWith(WHERE)) {
        throw new AssertionError("the error does not name the request: " + expected.getMessage());
      }
    }
  }

  /**
   * Input: one byte choosing where to split the rest, then the bytes of a chunked body (and
   * whatever follows it).
   */
  @FuzzTest
  void chunked(byte[] input) {
    if (input.length < 1) {
      return;
    }
    int split = (input[0] & 0xff) % input.length;
    String whole = decode(input, 1, input.length);
    String pieces = decode(input, 1, Math.max(1, split), input.length);
    assertEquals(whole, pieces, "the outcome depends on how the bytes were split");
  }

  /** The decoded data and end state, or the error, of {@code input[from, to)} fed at once. */
  private static String decode(byte[] input, int from, int to) {
    return decode(input, from, to, to);
  }

  /** As {@link #decode(byte[], int, int)}, fed as {@code [from, at)} then {@code [at, to)}. */
  private static String decode(byte[] input, int from, int at, int to) {
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    ChunkedBody body =
        new ChunkedBody(
            WHERE,
            part -> {
              byte[] b = new byte[part.remaining()];
              part.get(b);
              data.write(b, 0, b.length);
            });
    int left = 0;
    try {
      for (int[] piece : new int[][] {{from, Math.max(from, at)}, {Math.max(from, at), to}}) {
        ByteBuffer in = ByteBuffer.wrap(input, piece[0], piece[1] - piece[0]);
        body.feed(in);
        left = in.remaining();
        if (body.done()) {
          left += to - piece[1];
          break;
        }
      }
    } catch (ZaroException e) {
      if (!e.getMessage().startsWith(WHERE)) {
        throw new AssertionError("the error does not name the request: " + e.getMessage());
      }
      return "error after " + data.size() + " bytes";
    }
    return (body.done() ? "done, " + left + " bytes past the end, " : "open, ")
        + HexFormat.of().formatHex(data.toByteArray());
  }
}
