package dev.zaro.arrow.store;

import dev.zaro.arrow.error.StoreException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Set;

/**
 * The stores of zaro-arrow's own package, registered like any other {@link StoreProvider}: {@code
 * file://}, {@code http(s)://}, {@code gs://} and {@code reference+json://} (kerchunk JSON).
 */
public final class BuiltInStores implements StoreProvider {
  /** The provider {@link java.util.ServiceLoader} instantiates. */
  public BuiltInStores() {}

  @Override
  public Set<String> schemes() {
    return Set.of("file", "http", "https", "gs", "reference+json");
  }

  @Override
  public Store open(String location) {
    int colon = location.indexOf("://");
    String scheme = Stores.scheme(location);
    return switch (scheme) {
      case "file" -> new FileStore(Path.of(URI.create(location)));
      case "http", "https" -> new HttpStore(uri(location));
      case "gs" -> GcsStore.open(location);
      case "reference+json" -> ReferenceStore.open(location.substring(colon + 3));
      default -> throw new StoreException("store '" + location + "': not a built-in scheme");
    };
  }

  private static URI uri(String location) {
    try {
      return new URI(location);
    } catch (URISyntaxException e) {
      throw new StoreException("store '" + location + "': not a valid URL: " + e.getMessage());
    }
  }
}
