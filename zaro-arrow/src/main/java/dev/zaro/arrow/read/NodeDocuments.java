package dev.zaro.arrow.read;

import dev.zaro.arrow.metadata.NodeMetadata;
import dev.zaro.arrow.metadata.internal.V2Metadata;
import dev.zaro.arrow.metadata.internal.V3Metadata;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreKeys;
import java.util.Optional;

/**
 * The metadata documents of one node of a v3 or v2 store, as {@link Hierarchy} reads them: a v3
 * {@code zarr.json}, or a v2 {@code .zarray} or {@code .zgroup} with its {@code .zattrs}, parsed
 * into the one model. Each document is at most {@code maxDocument} bytes (a larger one fails naming
 * its key and size; see {@link Store#getBytes(String, long)}). Nothing is cached here.
 */
final class NodeDocuments {
  private final Store store;
  private final long maxDocument;

  NodeDocuments(Store store, long maxDocument) {
    this.store = store;
    this.maxDocument = maxDocument;
  }

  /** A metadata document, at most {@code maxDocument} bytes; empty if absent. */
  Optional<byte[]> get(String key) {
    return store.getBytes(key, maxDocument);
  }

  /** The v3 array or group at {@code path}, from its {@code zarr.json}. */
  Optional<NodeMetadata> v3(String path) {
    String key = StoreKeys.join(path, Hierarchy.V3_METADATA);
    return get(key).map(doc -> V3Metadata.parse(key, doc));
  }

  /** A v2 array or group at {@code path}, with its {@code .zattrs}. */
  Optional<NodeMetadata> v2(String path) {
    String attrsKey = StoreKeys.join(path, V2Metadata.ZATTRS);
    String arrayKey = StoreKeys.join(path, V2Metadata.ZARRAY);
    Optional<byte[]> array = get(arrayKey);
    if (array.isPresent()) {
      return Optional.of(
          V2Metadata.parseArray(arrayKey, array.get(), attrsKey, get(attrsKey).orElse(null)));
    }
    String groupKey = StoreKeys.join(path, V2Metadata.ZGROUP);
    Optional<byte[]> group = get(groupKey);
    if (group.isPresent()) {
      return Optional.of(
          V2Metadata.parseGroup(groupKey, group.get(), attrsKey, get(attrsKey).orElse(null)));
    }
    return Optional.empty();
  }
}
