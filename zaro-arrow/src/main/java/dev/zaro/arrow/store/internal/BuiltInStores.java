package dev.zaro.arrow.store.internal;

import dev.zaro.arrow.store.FileStore;
import dev.zaro.arrow.store.ReferenceStore;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreLocation;
import dev.zaro.arrow.store.StoreProvider;
import java.util.Set;

/**
 * The stores of zaro-arrow's own package, registered like any other {@link StoreProvider}: {@code
 * file://} and {@code reference+json://} (kerchunk JSON). The remote schemes ({@code http(s)://},
 * {@code gs://}) are the zaro-remote module's, found the same way.
 */
public final class BuiltInStores implements StoreProvider {
  /** The provider {@link java.util.ServiceLoader} instantiates. */
  public BuiltInStores() {}

  @Override
  public Set<String> schemes() {
    return Set.of("file", "reference+json");
  }

  @Override
  public Store open(StoreLocation location) {
    return switch (location.scheme()) {
      case "file" -> new FileStore(location.localPath());
      case "reference+json" -> ReferenceStore.open(location.inner(), location.limits());
      default -> throw location.error("not a built-in scheme");
    };
  }
}
