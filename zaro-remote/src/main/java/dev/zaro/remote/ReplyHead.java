package dev.zaro.remote;

import dev.zaro.arrow.error.StoreException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A reply's head as {@link Http1Client} reads it: the status line and the header fields (names
 * lower-cased, repeated ones in order), and the checks of RFC 9112 on how long its body is. A
 * malformed head is a {@link StoreException} naming the request.
 *
 * @param version the protocol of the status line ({@code HTTP/1.1})
 * @param status the status code
 * @param headers the header fields
 */
record ReplyHead(String version, int status, Map<String, List<String>> headers) {
  /**
   * Parses a head: {@code length} bytes of {@code head}, without the empty line that ends it.
   *
   * @param where the request, for messages: {@code key 'a/b' (URL)}
   */
  static ReplyHead parse(byte[] head, int length, String where) {
    String text = new String(head, 0, length, StandardCharsets.ISO_8859_1);
    // by hand: String.split on a two-character separator compiles a regex for every reply
    List<String> lines = new ArrayList<>(12);
    for (int from = 0; ; ) {
      int at = text.indexOf("\r\n", from);
      if (at < 0) {
        lines.add(text.substring(from));
        break;
      }
      lines.add(text.substring(from, at));
      from = at + 2;
    }
    String[] statusLine = lines.get(0).split(" ", 3);
    if (statusLine.length < 2 || !statusLine[0].startsWith("HTTP/1.")) {
      throw new StoreException(where + ": not an HTTP/1.x reply: '" + lines.get(0) + "'");
    }
    int code;
    try {
      code = Integer.parseInt(statusLine[1]);
    } catch (NumberFormatException e) {
      throw new StoreException(where + ": bad status line '" + lines.get(0) + "'", e);
    }
    Map<String, List<String>> map = new HashMap<>();
    for (int i = 1; i < lines.size(); i++) {
      String line = lines.get(i);
      int colon = line.indexOf(':');
      if (colon <= 0) {
        throw new StoreException(where + ": bad header line '" + line + "'");
      }
      map.computeIfAbsent(
              line.substring(0, colon).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>(1))
          .add(line.substring(colon + 1).trim());
    }
    return new ReplyHead(statusLine[0], code, map);
  }

  /** The first value of header {@code name} (any case). */
  Optional<String> header(String name) {
    List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
    return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
  }

  /** An interim reply ({@code 1xx}, such as {@code 100 Continue}): the real one follows. */
  boolean interim() {
    return status >= 100 && status < 200;
  }

  /** Whether the connection may carry another request after this reply. */
  boolean keepAlive() {
    String connection = header("connection").orElse("").toLowerCase(Locale.ROOT);
    return version.equals("HTTP/1.1")
        ? !connection.contains("close")
        : connection.contains("keep-alive");
  }

  /** Whether the body is in {@code Transfer-Encoding: chunked}. */
  boolean chunked() {
    return header("transfer-encoding").orElse("").toLowerCase(Locale.ROOT).contains("chunked");
  }

  /**
   * The body's length as {@code Content-Length} says, or -1 without one. Every value the reply
   * gives (repeated fields, or a list in one field) must be the same number: conflicting or
   * malformed lengths are refused, as RFC 9112 (section 6.3) says, since which one frames the body
   * cannot be known.
   *
   * @throws StoreException naming the request and the values
   */
  long contentLength(String where) {
    List<String> fields = headers.get("content-length");
    if (fields == null || fields.isEmpty()) {
      return -1;
    }
    long length = -1;
    for (String field : fields) {
      for (String value : field.split(",", -1)) {
        long n;
        try {
          n = Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
          throw new StoreException(where + ": bad Content-Length '" + field + "'", e);
        }
        if (n < 0) {
          throw new StoreException(where + ": bad Content-Length '" + field + "'");
        }
        if (length >= 0 && n != length) {
          throw new StoreException(
              where
                  + ": conflicting Content-Length headers "
                  + fields
                  + " (RFC 9112 refuses a reply whose body length is ambiguous)");
        }
        length = n;
      }
    }
    return length;
  }
}
