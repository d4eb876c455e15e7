package dev.zaro.arrow.read;

import dev.zaro.arrow.error.NodeNotFoundException;
import dev.zaro.arrow.metadata.GroupMetadata;
import dev.zaro.arrow.metadata.NodeMetadata;
import dev.zaro.arrow.metadata.internal.DraftLayout;
import dev.zaro.arrow.metadata.internal.JsonDocument;
import dev.zaro.arrow.metadata.internal.V3DraftMetadata;
import dev.zaro.arrow.store.Store;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The nodes of a v3 draft store ({@code meta/} and {@code data/root/}) as {@link Hierarchy} reads
 * them: each node's document by key, implicit groups by listing, the hierarchy by listing {@code
 * meta/}. The documents go through {@link V3DraftMetadata} into the one model.
 */
final class DraftNodes {
  /** Where zarr-python keeps a draft store's consolidated metadata. */
  static final String CONSOLIDATED = "meta/root/consolidated/.zmetadata";

  private final Store store;
  private final DraftLayout layout;

  /** The consolidated node documents by key, or null when the store has none. */
  private final Map<String, JsonDocument> consolidated;

  /** Reads the store's consolidated metadata, if it has any. */
  DraftNodes(Store store, DraftLayout layout) {
    this.store = store;
    this.layout = layout;
    this.consolidated =
        store
            .getBytes(CONSOLIDATED)
            .map(b -> V3DraftMetadata.consolidated(CONSOLIDATED, b))
            .orElse(null);
  }

  /** Whether the hierarchy is known without listing: the store has consolidated metadata. */
  boolean isConsolidated() {
    return consolidated != null;
  }

  /**
   * The node whose own document is there, at the first of its keys that the consolidated metadata
   * or the store holds.
   */
  Optional<NodeMetadata> load(String path) {
    for (String key : layout.nodeKeys(path)) {
      JsonDocument doc = consolidated == null ? null : consolidated.get(key);
      if (doc == null) {
        doc = store.getBytes(key).map(b -> JsonDocument.parse(key, b)).orElse(null);
      }
      if (doc != null) {
        return Optional.of(
            layout.isArrayKey(key)
                ? V3DraftMetadata.parseArray(doc)
                : V3DraftMetadata.parseGroup(doc));
      }
    }
    return Optional.empty();
  }

  /** The root: its document, else an implicit group (the entry point says a hierarchy is there). */
  NodeMetadata root() {
    return load("").orElseGet(GroupMetadata::implicitDraftGroup);
  }

  /** Whether the store lists any document below {@code path} (an implicit group there). */
  boolean hasChildren(String path) {
    for (String prefix : layout.childPrefixes(path)) {
      if (consolidated != null
          && consolidated.keySet().stream()
              .anyMatch(k -> k.startsWith(prefix) && layout.nodePath(k) != null)) {
        return true;
      }
      try (Stream<String> keys = store.list(prefix)) {
        if (keys.anyMatch(k -> layout.nodePath(k) != null)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * The paths of every node document the consolidated metadata names, else that the store lists
   * (none when it cannot list).
   */
  List<String> listedPaths() {
    List<String> paths = new ArrayList<>();
    try (Stream<String> keys =
        consolidated != null ? consolidated.keySet().stream() : store.list(DraftLayout.META)) {
      keys.forEach(
          k -> {
            String p = layout.nodePath(k);
            if (p != null) {
              paths.add(p);
            }
          });
    }
    return paths;
  }

  /**
   * The implicit group at {@code path}, which has no document of its own: there when the store
   * lists documents below it.
   *
   * @param hint the arrays that are there, for the message when nothing is
   * @throws NodeNotFoundException naming the keys looked for when nothing is below it either
   */
  GroupMetadata implicitGroup(String path, Supplier<String> hint) {
    if (hasChildren(path)) {
      return GroupMetadata.implicitDraftGroup();
    }
    throw new NodeNotFoundException(
        "no array or group at '/"
            + path
            + "' in "
            + store.describe()
            + " (a v3 draft store: no key '"
            + String.join("', '", layout.nodeKeys(path))
            + "')"
            + hint.get());
  }
}
