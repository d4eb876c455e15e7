package dev.zaro.arrow.store;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.StoreException;

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
}
