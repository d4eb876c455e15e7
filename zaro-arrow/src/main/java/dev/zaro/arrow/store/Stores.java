package dev.zaro.arrow.store;

import dev.zaro.arrow.error.StoreException;
import java.net.URI;
import java.nio.file.Path;

/** Opens a store from the STORE forms of the CLI contract. */
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
    if (location == null || location.isBlank()) {
      throw new StoreException("no store given");
    }
    int colon = location.indexOf("://");
    if (colon < 0) {
      return new FileStore(Path.of(location));
    }
    String scheme = location.substring(0, colon).toLowerCase(java.util.Locale.ROOT);
    return switch (scheme) {
      case "file" -> new FileStore(Path.of(URI.create(location)));
      case "http", "https" -> new HttpStore(uri(location));
      case "gs" -> GcsStore.open(location);
      case "reference+json" -> ReferenceStore.open(location.substring(colon + 3));
      case "icechunk", "icechunk+s3", "icechunk+gs", "icechunk+http", "icechunk+https" ->
          dev.zaro.arrow.store.icechunk.IcechunkStore.open(location);
      default -> provided(scheme, location);
    };
  }

  private static URI uri(String location) {
    try {
      return new URI(location);
    } catch (java.net.URISyntaxException e) {
      throw new StoreException("store '" + location + "': not a valid URL: " + e.getMessage());
    }
  }

  /** A store from a {@link StoreProvider} on the class path (s3:// in zaro-s3, ...). */
  private static Store provided(String scheme, String location) {
    for (StoreProvider provider : java.util.ServiceLoader.load(StoreProvider.class)) {
      if (provider.schemes().contains(scheme)) {
        return provider.open(location);
      }
    }
    String module =
        switch (scheme) {
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
