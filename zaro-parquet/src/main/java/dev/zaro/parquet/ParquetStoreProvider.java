package dev.zaro.parquet;

import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreLocation;
import dev.zaro.arrow.store.StoreProvider;
import java.util.Set;

/** Registers {@code reference+parquet://} with {@link dev.zaro.arrow.store.Stores#open}. */
public final class ParquetStoreProvider implements StoreProvider {
  static final String SCHEME = "reference+parquet";

  @Override
  public Set<String> schemes() {
    return Set.of(SCHEME);
  }

  @Override
  public Store open(StoreLocation location) {
    return ParquetReferenceStore.open(location.inner(), location.limits());
  }
}
