package dev.zaro.arrow.store;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * A store whose keys are references into other stores (kerchunk JSON and Parquet references,
 * Icechunk manifests): the Store contract for such keys lives here once, in terms of {@link
 * #reference} and {@link #targets}. Implementations say how a key maps to a reference.
 */
public interface ReferenceBackedStore extends Store {
  /** The reference behind {@code key}, or null when the key is absent. */
  ReferenceTargets.Reference reference(String key);

  /** Where references resolve and are read. */
  ReferenceTargets targets();

  @Override
  default Optional<ArrowBuf> get(String key, ByteRange range, BufferAllocator allocator) {
    return targets().find(key, reference(key), range, allocator);
  }

  @Override
  default Optional<List<ArrowBuf>> getRanges(
      String key, List<ByteRange.FromStart> ranges, BufferAllocator allocator) {
    return targets().findRanges(key, reference(key), ranges, allocator);
  }

  @Override
  default CompletableFuture<Optional<ArrowBuf>> getAsync(
      String key, ByteRange range, BufferAllocator allocator, Executor executor) {
    return targets().findAsync(key, () -> reference(key), range, allocator, executor);
  }

  @Override
  default Optional<byte[]> getBytes(String key) {
    return targets().findBytes(key, reference(key));
  }
}
