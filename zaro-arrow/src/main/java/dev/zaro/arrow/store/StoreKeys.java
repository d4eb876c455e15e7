package dev.zaro.arrow.store;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.StoreException;
import java.nio.charset.StandardCharsets;

/**
 * Checks and joins store keys: what every {@link Store} implementation, here or in another module,
 * does with the keys it is given.
 */
public final class StoreKeys {
  private StoreKeys() {}

  /**
   * Refuses keys that could reach outside the store: absolute keys, {@code ..} or {@code .}
   * segments, backslashes and NUL characters (a {@link StoreException} of kind INVALID_ARGUMENT:
   * the request is wrong, not the store).
   *
   * @return the key, unchanged
   */
  public static String checked(String key, Store store) {
    if (key.startsWith("/") || key.indexOf('\\') >= 0 || key.indexOf('\0') >= 0) {
      throw new StoreException(
          ErrorKind.INVALID_ARGUMENT,
          "refusing key '"
              + key
              + "' in "
              + store.describe()
              + ": keys are relative, '/'-separated paths");
    }
    for (String segment : key.split("/", -1)) {
      if (segment.equals("..") || segment.equals(".")) {
        throw new StoreException(
            ErrorKind.INVALID_ARGUMENT,
            "refusing key '"
                + key
                + "' in "
                + store.describe()
                + ": '"
                + segment
                + "' segments could read outside the store");
      }
    }
    return key;
  }

  /** Joins a node path and a name: {@code ("", "zarr.json") -> "zarr.json"}. */
  public static String join(String path, String name) {
    String p = stripSlashes(path);
    return p.isEmpty() ? name : p + "/" + name;
  }

  /** Removes leading and trailing slashes: {@code "/a/b/" -> "a/b"}. */
  public static String stripSlashes(String path) {
    int start = 0;
    int end = path.length();
    while (start < end && path.charAt(start) == '/') {
      start++;
    }
    while (end > start && path.charAt(end - 1) == '/') {
      end--;
    }
    return path.substring(start, end);
  }

  /**
   * Percent-encodes each segment of a key (keeping {@code /}), for a URL's path: the one encoding
   * of keys in URLs (http stores, references relative to an http location).
   */
  public static String encodePath(String key) {
    StringBuilder sb = new StringBuilder(key.length() + 8);
    for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || "-._~/!$&'()*+,;=:@".indexOf(c) >= 0) {
        sb.append((char) c);
      } else {
        sb.append('%')
            .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
      }
    }
    return sb.toString();
  }
}
