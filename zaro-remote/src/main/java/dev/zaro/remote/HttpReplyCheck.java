package dev.zaro.remote;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.remote.spi.ContentRange;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.Locale;
import java.util.Optional;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * What an {@link HttpStore}'s last reply to a read means: absent ({@code 404}/{@code 410}), the
 * bytes asked for (a {@code 206} checked against its {@code Content-Range}, a {@code 200} sliced),
 * or an error naming the key, the URL and what the server said (a denial, a range past the end,
 * retries used up, anything else through the store's {@link HttpStore.Signer#unexpected}).
 */
final class HttpReplyCheck {
  private final String name;
  private final HttpStore.Signer signer; // or null
  private final int maxAttempts;

  /**
   * @param name how messages name the store
   * @param signer the store's signer, or null
   * @param maxAttempts the store's attempts per request, for messages
   */
  HttpReplyCheck(String name, HttpStore.Signer signer, int maxAttempts) {
    this.name = name;
    this.signer = signer;
    this.maxAttempts = maxAttempts;
  }

  static boolean absent(HttpResponse<?> r) {
    return r.statusCode() == 404 || r.statusCode() == 410;
  }

  void checkStatus(String key, URI url, HttpResponse<?> r) {
    int status = r.statusCode();
    if (status == 200 || status == 206) {
      return;
    }
    if (status == 401 || status == 403) {
      throw new StoreException(
          "access denied (HTTP "
              + status
              + ") to "
              + url
              + " (key '"
              + key
              + "' in "
              + name
              + "): "
              + (signer == null ? "the URL needs credentials or is not public" : signer.denied())
              + serverSays(r));
    }
    if (status == 416) {
      throw new StoreException(
          "cannot read key '"
              + key
              + "' ("
              + url
              + "): the range lies past the end of the value (HTTP 416)");
    }
    if (status == 429 || status >= 500) {
      throw new StoreException(
          "cannot read key '"
              + key
              + "' ("
              + url
              + "): HTTP "
              + status
              + " after "
              + maxAttempts
              + (maxAttempts == 1 ? " attempt" : " attempts")
              + serverSays(r));
    }
    String message =
        "cannot read key '" + key + "' (" + url + "): unexpected HTTP " + status + serverSays(r);
    StoreException special =
        signer == null ? null : signer.unexpected(status, r.headers()::firstValue, message);
    throw special != null ? special : new StoreException(message);
  }

  /** The most characters of a server's error text a message quotes. */
  private static final int SERVER_SAYS_CHARS = 200;

  /**
   * What the server said in an error reply's body, for messages ({@code "; the server says: ..."}):
   * an S3-style error's {@code Code} and {@code Message} (why a signed request was refused: {@code
   * SignatureDoesNotMatch}, {@code ExpiredToken}, {@code SlowDown}...), else the start of a text,
   * XML or JSON body on one line. Empty when the reply kept no text ({@code java.net.http} replies,
   * bodiless or binary ones).
   */
  static String serverSays(HttpResponse<?> r) {
    String text = r instanceof ArrowBody.ErrorText e ? e.errorText() : null;
    if (text == null || text.isBlank()) {
      return "";
    }
    String type = r.headers().firstValue("Content-Type").orElse("").toLowerCase(Locale.ROOT);
    if (!(type.isEmpty()
        || type.startsWith("text/plain")
        || type.contains("xml")
        || type.contains("json"))) {
      return "";
    }
    String code = xmlElement(text, "Code");
    String message = xmlElement(text, "Message");
    String said = code == null ? text : message == null ? code : code + ": " + message;
    StringBuilder out = new StringBuilder(Math.min(said.length(), SERVER_SAYS_CHARS + 3));
    boolean space = false;
    for (int i = 0; i < said.length() && out.length() < SERVER_SAYS_CHARS; i++) {
      char c = said.charAt(i);
      if (Character.isWhitespace(c) || Character.isISOControl(c)) {
        space = out.length() > 0;
      } else {
        if (space) {
          out.append(' ');
          space = false;
        }
        out.append(c);
      }
    }
    if (out.length() >= SERVER_SAYS_CHARS) {
      out.append("...");
    }
    return out.length() == 0 ? "" : "; the server says: " + out;
  }

  /** The text of the first {@code <name>...</name>} element in {@code xml}, or null. */
  static String xmlElement(String xml, String name) {
    int start = xml.indexOf("<" + name + ">");
    int end = start < 0 ? -1 : xml.indexOf("</" + name + ">", start);
    return end < 0 ? null : xml.substring(start + name.length() + 2, end).strip();
  }

  /** The reply as the caller's buffer: owns {@code r}'s body, which it frees if it throws. */
  Optional<ArrowBuf> toBuffer(
      String key, URI url, ByteRange range, HttpResponse<ArrowBuf> r, BufferAllocator allocator) {
    ArrowBuf body = r.body();
    try {
      if (absent(r)) {
        return Optional.empty();
      }
      long[] slice = slice(key, url, range, r);
      if (slice[0] == 0 && slice[1] == body.writerIndex()) {
        ArrowBuf out = body;
        body = null;
        return Optional.of(out);
      }
      // a server that ignored Range sent the whole value: keep the part asked for
      ArrowBuf out = allocator.buffer(slice[1]);
      out.setBytes(0, body, slice[0], slice[1]);
      out.writerIndex(slice[1]);
      return Optional.of(out);
    } finally {
      if (body != null) {
        body.close();
      }
    }
  }

  /**
   * Where the asked-for bytes lie in the reply's body: {offset, length}. A partial reply is checked
   * by {@link ContentRange#check}; its body's length already matches what the headers announce
   * ({@link ArrowBody} checks it).
   */
  private long[] slice(String key, URI url, ByteRange range, HttpResponse<ArrowBuf> r) {
    checkStatus(key, url, r);
    if (r.statusCode() == 200) {
      return ContentRange.resolve(range, r.body().writerIndex(), HttpStore.where(key, url));
    }
    String header = r.headers().firstValue("Content-Range").orElse(null);
    long got =
        ContentRange.check(
            range, header, r.body().writerIndex(), "key '" + key + "' (" + url + ")");
    return new long[] {0, got};
  }
}
