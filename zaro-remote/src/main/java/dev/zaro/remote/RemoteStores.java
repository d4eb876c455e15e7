package dev.zaro.remote;

import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreLocation;
import dev.zaro.arrow.store.StoreProvider;
import java.util.Set;

/**
 * The remote stores of this module, registered like any other {@link StoreProvider} (so that {@code
 * Stores.open}, kerchunk references and Icechunk repositories over http find them through {@link
 * java.util.ServiceLoader}, never by name): {@code http(s)://} ({@link HttpStore}) and {@code
 * gs://} ({@link GcsStore}), each with the location's {@link dev.zaro.arrow.store.RemoteLimits}.
 */
public final class RemoteStores implements StoreProvider {
  /** The provider {@link java.util.ServiceLoader} instantiates. */
  public RemoteStores() {}

  @Override
  public Set<String> schemes() {
    return Set.of("http", "https", "gs");
  }

  @Override
  public Store open(StoreLocation location) {
    HttpOptions options = HttpOptions.DEFAULT.withLimits(location.limits());
    return switch (location.scheme()) {
      case "http", "https" -> new HttpStore(location.uri(), options);
      case "gs" -> GcsStore.open(location, options);
      default -> throw location.error("not a remote scheme");
    };
  }
}
