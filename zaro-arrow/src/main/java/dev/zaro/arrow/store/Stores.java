package dev.zaro.arrow.store;

import dev.zaro.arrow.error.StoreException;
import java.net.URI;
import java.nio.file.Path;

/** Opens a store from the STORE forms of the CLI contract. */
public final class Stores {
  private Stores() {}

  /**
   * Opens {@code location}: a local path or {@code file://} URL. The caller closes the store.
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
    String scheme = location.substring(0, colon);
    return switch (scheme) {
      case "file" -> new FileStore(Path.of(URI.create(location)));
      case "http", "https", "s3", "gs", "reference+json", "reference+parquet" ->
          throw new StoreException("store '" + location + "': " + scheme
              + ":// stores are not available in this build yet; local paths and file:// are");
      default -> throw new StoreException("store '" + location + "': unknown scheme '" + scheme
          + "' (use a local path, file://, http(s)://, s3://, gs://, reference+json:// or reference+parquet://)");
    };
  }
}
