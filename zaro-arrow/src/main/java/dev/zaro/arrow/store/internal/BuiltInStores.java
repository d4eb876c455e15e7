package dev.zaro.arrow.store.internal;

import dev.zaro.arrow.store.FileStore;
import dev.zaro.arrow.store.GcsStore;
import dev.zaro.arrow.store.HttpOptions;
import dev.zaro.arrow.store.HttpStore;
import dev.zaro.arrow.store.ReferenceStore;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreLocation;
import dev.zaro.arrow.store.StoreProvider;
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
  public Store open(StoreLocation location) {
    return switch (location.scheme()) {
      case "file" -> new FileStore(location.localPath());
      case "http", "https" ->
          new HttpStore(location.uri(), HttpOptions.DEFAULT.withLimits(location.limits()));
      case "gs" -> GcsStore.open(location, HttpOptions.DEFAULT.withLimits(location.limits()));
      case "reference+json" -> ReferenceStore.open(location.inner(), location.limits());
      default -> throw location.error("not a built-in scheme");
    };
  }
}
