package dev.zaro.remote.spi;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.remote.HttpStore;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * A ranged reply's {@code Content-Range} header, {@code bytes FIRST-LAST/TOTAL} (TOTAL may be
 * {@code *}), and the one check of a partial reply against the range asked for, used by {@link
 * HttpStore} and by the S3 store (zaro-s3), with the other range helpers both share: the {@code
 * Range} header asked with, where a range lies in a whole value, and zero-length ranges. A plain
 * immutable value: it holds no resources.
 *
 * @param first the first byte's offset in the value
 * @param last the last byte's offset in the value (inclusive)
 * @param total the value's whole length, or -1 for {@code *}
 */
public record ContentRange(long first, long last, long total) {
  private static final Pattern PATTERN =
      Pattern.compile("\\s*bytes\\s+(\\d+)-(\\d+)/(\\d+|\\*)\\s*");

  /** The header's range, or empty when it is not {@code bytes FIRST-LAST/TOTAL}. */
  public static Optional<ContentRange> parse(String header) {
    Matcher m = PATTERN.matcher(header);
    if (!m.matches()) {
      return Optional.empty();
    }
    return Optional.of(
        new ContentRange(
            Long.parseLong(m.group(1)),
            Long.parseLong(m.group(2)),
            m.group(3).equals("*") ? -1 : Long.parseLong(m.group(3))));
  }

  /** How many bytes the range covers ({@code last - first + 1}; negative for a bad header). */
  public long length() {
    return last - first + 1;
  }

  /**
   * Checks a partial reply: its {@code Content-Range} must be the range asked for, and the body as
   * long as that range.
   *
   * @param range the range asked for
   * @param header the reply's {@code Content-Range}, or null when it carried none
   * @param bodyLength the length of the body received
   * @param where what was read, for error messages: {@code key 'a/b' (https://host/a/b)}
   * @return the reply's length (the body's)
   * @throws StoreException naming {@code where}, when the header is missing, malformed or invalid,
   *     says the value ends before the range does ("the value has only N bytes"), or does not match
   *     the range or the body
   */
  public static long check(ByteRange range, String header, long bodyLength, String where) {
    ContentRange reply = header == null ? null : parse(header).orElse(null);
    if (reply == null) {
      throw new StoreException(
          where
              + ": a partial reply (HTTP 206) with "
              + (header == null
                  ? "no Content-Range"
                  : "a malformed Content-Range '" + header + "'"));
    }
    long got = reply.length();
    long total = reply.total;
    if (got < 0 || (total >= 0 && reply.last >= total)) {
      throw new StoreException(where + ": an invalid Content-Range '" + header + "'");
    }
    boolean endsAtTotal = total == reply.last + 1;
    boolean ok;
    if (range instanceof ByteRange.FromStart f) {
      if (reply.first == f.offset() && got < f.length() && endsAtTotal) {
        throw pastTheEnd(range, where, total);
      }
      ok = reply.first == f.offset() && got == f.length();
    } else if (range instanceof ByteRange.Suffix s) {
      if (reply.first == 0 && got < s.length() && endsAtTotal) {
        throw pastTheEnd(range, where, total);
      }
      ok = got == s.length() && (total < 0 || endsAtTotal);
    } else {
      ok = reply.first == 0 && total == got;
    }
    if (!ok || bodyLength != got) {
      throw new StoreException(
          where
              + ": asked for "
              + range
              + " but the server replied with Content-Range '"
              + header
              + "' and "
              + bodyLength
              + " bytes");
    }
    return got;
  }

  /** The request's {@code Range} header for {@code range}, or null for the whole value. */
  public static String requestHeader(ByteRange range) {
    if (range instanceof ByteRange.FromStart f) {
      return "bytes=" + f.offset() + "-" + (f.offset() + f.length() - 1);
    }
    if (range instanceof ByteRange.Suffix s) {
      return "bytes=-" + s.length();
    }
    return null;
  }

  /**
   * How many bytes a partial reply to {@code range} may bring at most: a prefix or suffix range's
   * length; -1 for the whole value (which only a store's cap on whole objects bounds).
   */
  public static long askedLength(ByteRange range) {
    if (range instanceof ByteRange.FromStart f) {
      return f.length();
    }
    return range instanceof ByteRange.Suffix s ? s.length() : -1;
  }

  /**
   * Whether {@code range} asks for no bytes: servers refuse such a {@code Range}, so remote stores
   * learn the value's size (a HEAD request) and answer with {@link #emptyRange}.
   */
  public static boolean isEmpty(ByteRange range) {
    return (range instanceof ByteRange.FromStart f && f.length() == 0)
        || (range instanceof ByteRange.Suffix s && s.length() == 0);
  }

  /**
   * Where {@code range} lies in a whole value of {@code size} bytes: {offset, length}.
   *
   * @param where what was read, for error messages
   * @throws StoreException naming {@code where} if the range lies past the end
   */
  public static long[] resolve(ByteRange range, long size, String where) {
    try {
      return range.resolve(size);
    } catch (IllegalArgumentException e) {
      throw new StoreException("cannot read " + range + " of " + where + ": " + e.getMessage());
    }
  }

  /**
   * The answer to a zero-length range ({@link #isEmpty}) of a value of {@code size} bytes: an empty
   * buffer the caller owns, once the range is checked against the size.
   *
   * @throws StoreException naming {@code where} if the range lies past the end
   */
  public static ArrowBuf emptyRange(
      ByteRange range, long size, String where, BufferAllocator allocator) {
    resolve(range, size, where);
    return allocator.buffer(0);
  }

  private static StoreException pastTheEnd(ByteRange range, String where, long total) {
    return new StoreException(
        "cannot read " + range + " of " + where + ": the value has only " + total + " bytes");
  }
}
