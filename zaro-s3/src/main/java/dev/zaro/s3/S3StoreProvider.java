package dev.zaro.s3;

import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreLocation;
import dev.zaro.arrow.store.StoreProvider;
import java.util.Set;

/** Registers {@code s3://} with {@link dev.zaro.arrow.store.Stores#open}. */
public final class S3StoreProvider implements StoreProvider {
  @Override
  public Set<String> schemes() {
    return Set.of("s3", "s3a");
  }

  @Override
  public Store open(StoreLocation location) {
    return S3Store.open(location);
  }
}
