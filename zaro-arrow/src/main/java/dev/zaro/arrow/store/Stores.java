package dev.zaro.arrow.store;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.store.internal.BuiltInStores;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Opens a store from the STORE forms of the CLI contract: a local path, or a URI whose scheme a
 * {@link StoreProvider} registers (the built-ins too: {@link BuiltInStores}, Icechunk's provider).
 */
public final class Stores {
  private Stores() {}

  /**
   * Opens {@code location}: a local path, {@code file://}, {@code http(s)://}, {@code gs://},
   * {@code reference+json://}, an Icechunk repository ({@code icechunk://PATH}, {@code
   * icechunk+s3://}, {@code icechunk+gs://}, {@code icechunk+https://}, with {@code ?branch=},
   * {@code ?tag=} or {@code ?snapshot=}), or a scheme of a {@link StoreProvider} on the class path
   * ({@code s3://}, {@code reference+parquet://}). The caller closes the store.
   *
   * @throws StoreException for an unknown scheme or a location that does not exist
   */
  public static Store open(String location) {
    return open(StoreLocation.parse(location));
  }

  /** {@link #open(String)} of a location already taken apart. */
  public static Store open(StoreLocation location) {
    if (location.scheme().isEmpty()) {
      return new FileStore(location.localPath());
    }
    return provided(location);
  }

  /**
   * The {@link StoreProvider}s: those beside this class (the built-ins first), then those the
   * context class loader sees (other modules' stores, where a container loads them apart).
   */
  private static List<StoreProvider> providers() {
    List<StoreProvider> all = new ArrayList<>();
    ServiceLoader.load(StoreProvider.class, Stores.class.getClassLoader()).forEach(all::add);
    ServiceLoader.load(StoreProvider.class).forEach(all::add);
    return all;
  }

  /** A store from a {@link StoreProvider}: built-in, or on the class path (s3:// in zaro-s3...). */
  private static Store provided(StoreLocation where) {
    String scheme = where.scheme();
    String location = where.location();
    for (StoreProvider provider : providers()) {
      if (provider.schemes().contains(scheme)) {
        return provider.open(where);
      }
    }
    String module =
        switch (scheme) {
          case "http", "https", "gs" -> "zaro-remote";
          case "s3" -> "zaro-s3";
          case "reference+parquet" -> "zaro-parquet";
          default -> null;
        };
    if (module != null) {
      throw new StoreException(
          "store '"
              + location
              + "': "
              + scheme
              + ":// stores need the "
              + module
              + " module on the class path");
    }
    throw new StoreException(
        "store '"
            + location
            + "': unknown scheme '"
            + scheme
            + "' (use a local path, file://, http(s)://, s3://, gs://, reference+json://, reference+parquet:// or icechunk://)");
  }
}
