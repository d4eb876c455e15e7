package dev.zaro.arrow.store.icechunk;

import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreLocation;
import dev.zaro.arrow.store.StoreProvider;
import java.util.Set;

/**
 * Registers Icechunk repositories: {@code icechunk://PATH}, {@code icechunk+s3://}, {@code
 * icechunk+gs://} and {@code icechunk+http(s)://} (see {@link IcechunkStore#open}).
 */
public final class IcechunkStoreProvider implements StoreProvider {
  /** The provider {@link java.util.ServiceLoader} instantiates. */
  public IcechunkStoreProvider() {}

  @Override
  public Set<String> schemes() {
    return IcechunkStore.SCHEMES;
  }

  @Override
  public Store open(StoreLocation location) {
    return IcechunkStore.open(location);
  }
}
