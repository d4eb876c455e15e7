package dev.zaro.arrow.read;

import dev.zaro.arrow.error.NodeNotFoundException;
import dev.zaro.arrow.metadata.GroupMetadata;
import dev.zaro.arrow.metadata.NodeMetadata;
import dev.zaro.arrow.metadata.V3Metadata;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The nodes of a Zarr hierarchy in a store: metadata is read once per node and cached.
 * Groups without a {@code zarr.json} of their own (implicit groups) are tolerated.
 */
public final class Hierarchy {
  static final String V3_METADATA = "zarr.json";

  private final Store store;
  private final Map<String, NodeMetadata> cache = new ConcurrentHashMap<>();

  public Hierarchy(Store store) {
    this.store = store;
  }

  public Store store() {
    return store;
  }

  /**
   * The metadata of the node at {@code path} ({@code ""} or {@code "/"} for the root).
   *
   * @throws NodeNotFoundException if nothing is there
   * @throws dev.zaro.arrow.error.MetadataException if its metadata is invalid
   */
  public NodeMetadata node(String path) {
    String p = StoreKeys.stripSlashes(path);
    NodeMetadata cached = cache.get(p);
    if (cached != null) {
      return cached;
    }
    NodeMetadata loaded = load(p);
    cache.put(p, loaded);
    return loaded;
  }

  private NodeMetadata load(String path) {
    String key = StoreKeys.join(path, V3_METADATA);
    Optional<byte[]> doc = store.getBytes(key);
    if (doc.isPresent()) {
      return V3Metadata.parse(key, doc.get());
    }
    String prefix = path.isEmpty() ? "" : path + "/";
    if (store.list(prefix).findAny().isPresent()) {
      return GroupMetadata.implicitGroup();
    }
    throw new NodeNotFoundException(path.isEmpty()
        ? "no Zarr hierarchy in " + store.describe() + " (no key '" + key + "')"
        : "no array or group at '/" + path + "' in " + store.describe() + " (no key '" + key + "')");
  }

  /** Every node, parents before children, in path order. */
  public List<Node> list() {
    TreeMap<String, Boolean> paths = new TreeMap<>();
    try (var keys = store.list("")) {
      keys.forEach(k -> {
        if (k.equals(V3_METADATA) || k.endsWith("/" + V3_METADATA)) {
          String p = k.substring(0, Math.max(0, k.length() - V3_METADATA.length() - 1));
          paths.put(p, true);
        }
      });
    }
    for (String p : new ArrayList<>(paths.keySet())) {
      String parent = p;
      while (!parent.isEmpty()) {
        int slash = parent.lastIndexOf('/');
        parent = slash < 0 ? "" : parent.substring(0, slash);
        paths.putIfAbsent(parent, false);
      }
    }
    if (paths.isEmpty()) {
      node("");
    }
    List<Node> nodes = new ArrayList<>();
    for (String p : paths.keySet()) {
      if (isInsideArray(p, nodes)) {
        continue;
      }
      nodes.add(new Node(p, node(p)));
    }
    return nodes;
  }

  private static boolean isInsideArray(String path, List<Node> earlier) {
    for (Node n : earlier) {
      if (n.isArray() && (n.path().isEmpty() || path.startsWith(n.path() + "/"))) {
        return true;
      }
    }
    return false;
  }

  /** The direct children of the group at {@code path}. */
  public List<Node> children(String path) {
    String p = StoreKeys.stripSlashes(path);
    List<Node> out = new ArrayList<>();
    for (Node n : list()) {
      if (n.path().isEmpty()) {
        continue;
      }
      int slash = n.path().lastIndexOf('/');
      String parent = slash < 0 ? "" : n.path().substring(0, slash);
      if (parent.equals(p)) {
        out.add(n);
      }
    }
    return out;
  }
}
