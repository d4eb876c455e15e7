package dev.zaro.arrow.read;

import dev.zaro.arrow.error.MetadataException;
import dev.zaro.arrow.error.NodeNotFoundException;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.GroupMetadata;
import dev.zaro.arrow.metadata.NodeMetadata;
import dev.zaro.arrow.metadata.internal.ConsolidatedMetadata;
import dev.zaro.arrow.metadata.internal.JsonDocument;
import dev.zaro.arrow.metadata.internal.V2Metadata;
import dev.zaro.arrow.metadata.internal.V3DraftMetadata;
import dev.zaro.arrow.metadata.internal.V3Metadata;
import dev.zaro.arrow.store.RemoteLimits;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreKeys;
import dev.zaro.arrow.store.internal.EditDistance;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The nodes of a Zarr v3 or v2 hierarchy in a store: metadata is read once per node and cached.
 *
 * <p>A node is v3 when it has a {@code zarr.json}, v2 when it has a {@code .zarray} or {@code
 * .zgroup} (with its {@code .zattrs}). Groups with no metadata document of their own but with nodes
 * below them (v3 implicit groups) are tolerated.
 *
 * <p>Consolidated metadata is used when the root has it: the inline {@code consolidated_metadata}
 * of a v3 root {@code zarr.json}, or a v2 {@code .zmetadata}. The whole hierarchy is then known
 * from that one document: listing it and opening any node it names read nothing else (no store
 * listing). Nodes it does not name are still looked up in the store. Without consolidated metadata
 * the hierarchy is found by listing the store. A root {@code zarr.json} with the protocol URI of
 * the v3 drafts makes a draft store, whose nodes {@link DraftNodes} reads from {@code meta/} into
 * the same model.
 */
public final class Hierarchy {
  static final String V3_METADATA = "zarr.json";

  private final Store store;
  private final NodeDocuments documents;
  private final Map<String, NodeMetadata> cache = new ConcurrentHashMap<>();
  private final Map<String, String> unreadable = new ConcurrentHashMap<>();
  private final Object rootLock = new Object();

  /** Set once the root has been probed (under rootLock). */
  private volatile boolean rootProbed;

  /** The consolidated metadata, or null when the root has none. */
  private volatile ConsolidatedMetadata consolidated;

  /** The root's metadata error, rethrown when the root is asked for. */
  private volatile RuntimeException rootError;

  /** The format the root was found in (2 or 3), tried first for other nodes; 0 when unknown. */
  private volatile int format;

  /** The nodes of a v3 draft store (set once, with the root), or null for any other store. */
  private volatile DraftNodes draft;

  /** Whether {@link #rootError} fails every node, not only the root. */
  private volatile boolean rootErrorEverywhere;

  /**
   * The hierarchy of {@code store}; nothing is read until asked for (the store is not closed here).
   */
  public Hierarchy(Store store) {
    this(store, RemoteLimits.DEFAULT_MAX_METADATA_SIZE);
  }

  /**
   * The hierarchy of {@code store}, whose metadata documents may be at most {@code maxDocument}
   * bytes each (a larger one fails naming its key and size; see {@link Store#getBytes(String,
   * long)}).
   */
  public Hierarchy(Store store, long maxDocument) {
    this.store = store;
    this.documents = new NodeDocuments(store, maxDocument);
  }

  /** The store the nodes are read from. */
  public Store store() {
    return store;
  }

  /** The consolidated metadata the hierarchy was opened with, if the root has any. */
  Optional<ConsolidatedMetadata> consolidated() {
    probeRoot();
    return Optional.ofNullable(consolidated);
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
    probeRoot();
    cached = cache.get(p);
    if (cached != null) {
      return cached;
    }
    if ((p.isEmpty() || rootErrorEverywhere) && rootError != null) {
      throw rootError;
    }
    NodeMetadata loaded = load(p);
    NodeMetadata previous = cache.putIfAbsent(p, loaded);
    return previous != null ? previous : loaded;
  }

  /**
   * Reads the root once: {@code zarr.json} (with any inline consolidated metadata), else {@code
   * .zmetadata}, else {@code .zarray} / {@code .zgroup}.
   */
  private void probeRoot() {
    if (rootProbed) {
      return;
    }
    synchronized (rootLock) {
      if (rootProbed) {
        return;
      }
      try {
        Optional<byte[]> v3 = documents.get(V3_METADATA);
        if (v3.isPresent()) {
          format = 3;
          JsonDocument doc = JsonDocument.parse(V3_METADATA, v3.get());
          if (V3DraftMetadata.isEntryPoint(doc)) {
            rootErrorEverywhere = true; // an entry point zaro cannot read: no node is readable
            draft = new DraftNodes(store, V3DraftMetadata.entryPoint(doc));
            rootErrorEverywhere = false;
            cache.put("", draft.root());
          } else {
            cache.put("", V3Metadata.parse(doc));
            consolidated = ConsolidatedMetadata.v3Inline(doc).orElse(null);
          }
        } else {
          Optional<byte[]> zmetadata = documents.get(V2Metadata.ZMETADATA);
          if (zmetadata.isPresent()) {
            format = 2;
            consolidated = ConsolidatedMetadata.v2(V2Metadata.ZMETADATA, zmetadata.get());
            ConsolidatedMetadata.Entry root = consolidated.entries().get("");
            if (root != null) {
              cache.put("", root.parse());
            }
          } else {
            documents
                .v2("")
                .ifPresent(
                    root -> {
                      format = 2;
                      cache.put("", root);
                    });
          }
        }
      } catch (MetadataException e) {
        rootError = e;
      }
      // a store failure leaves the root unprobed, so the next call tries again
      rootProbed = true;
    }
  }

  /** Set while a hint lists the hierarchy, so that the listing's own misses add none. */
  private static final ThreadLocal<Boolean> HINTING = ThreadLocal.withInitial(() -> false);

  private NodeMetadata load(String path) {
    DraftNodes d = draft;
    if (d != null) {
      Optional<NodeMetadata> found = d.load(path);
      if (found.isEmpty()) {
        checkNotInsideAnArray(path);
      }
      return found.orElseGet(() -> d.implicitGroup(path, () -> arraysHint(path)));
    }
    ConsolidatedMetadata c = consolidated;
    if (c != null) {
      ConsolidatedMetadata.Entry entry = c.entries().get(path);
      if (entry != null) {
        return entry.parse();
      }
      if (c.hasDescendants(path)) {
        return implicitGroup(path);
      }
    }
    if (!path.isEmpty()) {
      Optional<NodeMetadata> found = loadExplicit(path);
      if (found.isPresent()) {
        return found.get();
      }
    }
    checkNotInsideAnArray(path); // before listing what may be an array's chunks
    String prefix = path.isEmpty() ? "" : path + "/";
    try (var keys = store.list(prefix)) {
      if (keys.findAny().isPresent()) {
        return implicitGroup();
      }
    }
    String tried =
        "no key '"
            + StoreKeys.join(path, V3_METADATA)
            + "', '"
            + StoreKeys.join(path, V2Metadata.ZARRAY)
            + "' or '"
            + StoreKeys.join(path, V2Metadata.ZGROUP)
            + "'";
    throw new NodeNotFoundException(
        path.isEmpty()
            ? "no Zarr hierarchy in " + store.describe() + " (" + tried + ")"
            : "no array or group at '/"
                + path
                + "' in "
                + store.describe()
                + " ("
                + tried
                + ")"
                + arraysHint(path));
  }

  /** The implicit group at {@code path}: a path with nodes below it and no metadata of its own. */
  private GroupMetadata implicitGroup(String path) {
    checkNotInsideAnArray(path);
    return implicitGroup();
  }

  /**
   * Fails for a path below an array: what lies there is the array's chunks, never a node (nor an
   * implicit group made of its chunk keys).
   */
  private void checkNotInsideAnArray(String path) {
    String array = arrayAbove(path);
    if (array != null) {
      throw new NodeNotFoundException(
          "no array or group at '/"
              + path
              + "' in "
              + store.describe()
              + ": '/"
              + array
              + "' is an array, and what lies below an array is its chunks, not nodes");
    }
  }

  /**
   * The nearest array above {@code path} (the root included), or null: each ancestor's metadata as
   * already known, else read ({@code zarr.json}, {@code .zarray}); an ancestor with none is no
   * array.
   */
  private String arrayAbove(String path) {
    if (path.isEmpty()) {
      return null;
    }
    String above = "";
    while (true) {
      NodeMetadata node = cache.get(above);
      if (node == null && consolidated != null) {
        ConsolidatedMetadata.Entry entry = consolidated.entries().get(above);
        node = entry == null ? null : entry.parse();
      }
      if (node == null && !above.isEmpty()) {
        try {
          node = loadExplicit(above).orElse(null);
        } catch (MetadataException e) {
          node = null; // unreadable: not known to be an array
        }
        if (node != null) {
          cache.putIfAbsent(above, node); // read once, as holdsArray keeps what it reads
        }
      }
      if (node instanceof ArrayMetadata) {
        return above;
      }
      int next = path.indexOf('/', above.isEmpty() ? 0 : above.length() + 1);
      if (next < 0) {
        return null;
      }
      above = path.substring(0, next);
    }
  }

  /**
   * For a path that is not there: the arrays that are (up to 20) and the nearest by edit distance
   * when it is close, as "; arrays: /a, /b; did you mean '/a'?", or "" when the store cannot be
   * listed.
   */
  private String arraysHint(String missing) {
    if (HINTING.get()) {
      return "";
    }
    List<String> arrays = new ArrayList<>();
    HINTING.set(true);
    try {
      for (Node n : list()) {
        if (n.isArray()) {
          arrays.add(n.path());
        }
      }
    } catch (RuntimeException e) {
      return ""; // the hint is a courtesy: a store that cannot list (HTTP) gives none
    } finally {
      HINTING.set(false);
    }
    if (arrays.isEmpty()) {
      return "";
    }
    String near = null;
    int best = Integer.MAX_VALUE;
    for (String a : arrays) {
      int d = EditDistance.of(missing.toLowerCase(Locale.ROOT), a.toLowerCase(Locale.ROOT));
      if (d < best) {
        best = d;
        near = a;
      }
    }
    List<String> shown = arrays.subList(0, Math.min(20, arrays.size()));
    return "; arrays: /"
        + String.join(", /", shown)
        + (arrays.size() > shown.size() ? ", ..." : "")
        + (near != null && best <= Math.max(1, missing.length() / 3)
            ? "; did you mean '/" + near + "'?"
            : "");
  }

  /**
   * The node whose own metadata document is at {@code path} (the hierarchy's format tried first).
   */
  private Optional<NodeMetadata> loadExplicit(String path) {
    if (draft != null) {
      return draft.load(path);
    }
    return format == 2
        ? documents.v2(path).or(() -> documents.v3(path))
        : documents.v3(path).or(() -> documents.v2(path));
  }

  private GroupMetadata implicitGroup() {
    return format == 2 ? new GroupMetadata(2, null, true) : GroupMetadata.implicitGroup();
  }

  /**
   * Every node, parents before children, in path order. A node whose metadata zaro cannot read (an
   * unsupported data type, say) is left out rather than failing the whole listing; see {@link
   * #unreadable()}. The root's own errors still fail. A store that cannot list its keys (HTTP)
   * without consolidated metadata lists its root alone; {@link #listsEverything()} says so.
   */
  public List<Node> list() {
    probeRoot();
    TreeMap<String, Boolean> paths = new TreeMap<>();
    ConsolidatedMetadata c = consolidated;
    if (c != null) {
      paths.put("", true);
      c.entries().keySet().forEach(p -> paths.put(p, true));
    } else if (draft != null) {
      paths.put("", true); // a draft's root: its entry point is there
      draft.listedPaths().forEach(p -> paths.put(p, true));
    } else {
      // chunks live below arrays: a store with directories need not walk them
      try (var keys = store.list("", this::holdsArray)) {
        keys.forEach(
            k -> {
              String p = nodePath(k);
              if (p != null) {
                paths.put(p, true);
              }
            });
      }
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
      node(""); // fails if there is no root
      paths.put("", true); // a store that cannot list (HTTP) and has no consolidated metadata
    }
    List<Node> nodes = new ArrayList<>();
    for (String p : paths.keySet()) {
      if (isInsideArray(p, nodes)) {
        continue;
      }
      try {
        nodes.add(new Node(p, node(p)));
      } catch (MetadataException e) {
        if (p.isEmpty()) {
          throw e;
        }
        unreadable.put(p, e.getMessage());
      }
    }
    return nodes;
  }

  /**
   * Whether {@link #list()} finds every node: the store lists its keys, or the root holds
   * consolidated metadata. Otherwise (HTTP without consolidated metadata) only the root and the
   * nodes asked for by path are known.
   */
  public boolean listsEverything() {
    probeRoot();
    return consolidated != null
        || (draft != null && draft.isConsolidated())
        || store.capabilities().listable();
  }

  /** Nodes the last listings left out, by path, with why. */
  public Map<String, String> unreadable() {
    return Map.copyOf(unreadable);
  }

  /**
   * Whether directory {@code dir} is an array (v2 .zarray or v3 array zarr.json). The metadata read
   * to find out is kept, so the listing does not read it again.
   */
  private boolean holdsArray(String dir) {
    NodeMetadata node = cache.get(dir);
    if (node == null) {
      try {
        node = loadExplicit(dir).orElse(null);
      } catch (RuntimeException e) {
        return false; // unreadable here: walk it, and the listing reports the node as it always did
      }
      if (node == null) {
        return false;
      }
      cache.putIfAbsent(dir, node);
    }
    return node instanceof ArrayMetadata;
  }

  private static String nodePath(String key) {
    for (String name : new String[] {V3_METADATA, V2Metadata.ZARRAY, V2Metadata.ZGROUP}) {
      if (key.equals(name)) {
        return "";
      }
      if (key.endsWith("/" + name)) {
        return key.substring(0, key.length() - name.length() - 1);
      }
    }
    return null;
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
