package dev.zaro.arrow.store;

import dev.zaro.arrow.store.internal.BuiltInStores;
import java.util.Set;

/**
 * Opens stores for URI schemes, found with {@link java.util.ServiceLoader}: every scheme, built-ins
 * included ({@link BuiltInStores}, Icechunk's), and those of other modules (for example {@code
 * s3://} in the zaro-s3 module). A module lists its provider in {@code
 * META-INF/services/dev.zaro.arrow.store.StoreProvider} (and a {@code provides} line in its
 * module-info), and {@link Stores#open} uses it for its schemes. zaro-arrow itself needs no cloud
 * SDK.
 */
public interface StoreProvider {
  /** The schemes handled, lower case, without {@code ://} (for example {@code "s3"}). */
  Set<String> schemes();

  /**
   * Opens {@code location}, a URI with one of {@link #schemes} (its parts and options read through
   * {@link StoreLocation}); the caller closes the store.
   *
   * @throws dev.zaro.arrow.error.StoreException if it cannot be opened
   */
  Store open(StoreLocation location);
}
