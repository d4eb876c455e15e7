package dev.zaro.arrow.store;

import java.util.Set;

/**
 * Opens stores for URI schemes that live outside zaro-arrow (for example {@code s3://} in the
 * zaro-s3 module), found with {@link java.util.ServiceLoader}: a module lists its provider in
 * {@code META-INF/services/dev.zaro.arrow.store.StoreProvider}, and {@link Stores#open} uses it for
 * the schemes it does not handle itself. zaro-arrow itself needs no cloud SDK.
 */
public interface StoreProvider {
  /** The schemes handled, lower case, without {@code ://} (for example {@code "s3"}). */
  Set<String> schemes();

  /**
   * Opens {@code location}, a URI with one of {@link #schemes}; the caller closes the store.
   *
   * @throws dev.zaro.arrow.error.StoreException if it cannot be opened
   */
  Store open(String location);
}
