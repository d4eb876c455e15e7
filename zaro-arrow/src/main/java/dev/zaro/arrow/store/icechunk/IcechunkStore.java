package dev.zaro.arrow.store.icechunk;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.store.FileStore;
import dev.zaro.arrow.store.ReferenceBackedStore;
import dev.zaro.arrow.store.ReferenceTargets;
import dev.zaro.arrow.store.ReferenceTargets.Reference;
import dev.zaro.arrow.store.RemoteLimits;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreCapabilities;
import dev.zaro.arrow.store.StoreKeys;
import dev.zaro.arrow.store.StoreLocation;
import dev.zaro.arrow.store.Stores;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * One snapshot of an Icechunk repository, read-only, seen as a Zarr v3 store: key {@code
 * a/b/zarr.json} is the metadata of node {@code /a/b}, key {@code a/b/c/0/1} its chunk (0, 1)
 * (chunk keys are Icechunk's: {@code c} then {@code /}-separated indices). Chunks come from the
 * manifests the snapshot names: native chunks from the repository's {@code chunks/}, inline chunks
 * from the manifest, virtual chunks from their URL. A chunk no manifest holds is absent (it reads
 * as the fill value). The snapshot is fixed when the store opens; manifests are read when a chunk
 * of theirs is first asked for, and kept.
 *
 * <p>Locations: {@code icechunk://PATH} (a local directory), {@code icechunk+s3://bucket/prefix},
 * {@code icechunk+gs://bucket/prefix}, {@code icechunk+https://host/path} (and {@code
 * icechunk+http://}), with at most one of {@code ?branch=NAME} (default {@code main}), {@code
 * ?tag=NAME} or {@code ?snapshot=ID}. Other query options pass to the storage's own store (for
 * example {@code endpoint=} for S3). Format 1 (Icechunk 1.x) and format 2 (Icechunk 2.x)
 * repositories are read, including format 1 repositories upgraded to format 2.
 *
 * <p>Virtual chunks follow the rules of kerchunk references ({@link ReferenceTargets}): any URL
 * zaro can open ({@code s3://} with zaro-s3, {@code gs://}, {@code http(s)://}, local files), but a
 * repository reached over the network may not point at local files. Icechunk's own
 * virtual-chunk-container settings and the checksums stored with virtual references are not
 * consulted.
 */
public final class IcechunkStore implements ReferenceBackedStore {
  /** The schemes of Icechunk locations ({@link IcechunkStoreProvider} registers them). */
  static final Set<String> SCHEMES =
      Set.of("icechunk", "icechunk+s3", "icechunk+gs", "icechunk+http", "icechunk+https");

  /** Which snapshot to open. */
  public record Version(Kind kind, String name) {
    public enum Kind {
      BRANCH,
      TAG,
      SNAPSHOT
    }

    public static final Version MAIN = new Version(Kind.BRANCH, "main");

    @Override
    public String toString() {
      return kind.name().toLowerCase(Locale.ROOT) + " '" + name + "'";
    }
  }

  private final Store storage;
  private final Repository repository;
  private final String name;
  private final Snapshot snapshot;

  /** Nodes by path ("" for the root, "a/b"). */
  private final Map<String, Snapshot.Node> nodes = new HashMap<>();

  private final Map<String, Manifest> manifests = new ConcurrentHashMap<>();
  private final ReferenceTargets targets;

  private IcechunkStore(
      Store storage, String location, Version version, boolean remote, RemoteLimits limits) {
    this.storage = storage;
    this.repository = Repository.open(storage, location);
    String id = repository.resolve(version);
    this.snapshot = repository.snapshot(id, version.kind() == Version.Kind.SNAPSHOT);
    this.name =
        location
            + (version.kind() == Version.Kind.SNAPSHOT ? "" : " (" + version + ")")
            + " at snapshot "
            + id;
    for (Snapshot.Node n : snapshot.nodes) {
      nodes.put(n.path(), n);
    }
    this.targets = new ReferenceTargets(name, null, remote, storage, limits);
  }

  /**
   * Opens the repository in {@code storage} at {@code version}. The returned store owns {@code
   * storage} and closes it.
   *
   * @param location the repository's location, for messages
   * @param remote whether the repository came over the network (virtual chunks in local files are
   *     then refused)
   */
  public static IcechunkStore open(
      Store storage, String location, Version version, boolean remote) {
    return open(storage, location, version, remote, RemoteLimits.DEFAULT);
  }

  /**
   * {@link #open(Store, String, Version, boolean)}, virtual chunks' targets opened with {@code
   * limits} (the timeouts, retries and caps given for the repository).
   */
  public static IcechunkStore open(
      Store storage, String location, Version version, boolean remote, RemoteLimits limits) {
    try {
      return new IcechunkStore(storage, location, version, remote, limits);
    } catch (RuntimeException e) {
      storage.close();
      throw e;
    }
  }

  /**
   * Opens an {@code icechunk://}, {@code icechunk+s3://}, {@code icechunk+gs://} or {@code
   * icechunk+http(s)://} location (see the class comment). The caller closes the store.
   *
   * @throws StoreException if the location is malformed, the repository or the ref is missing, or
   *     its files are corrupt or of an unsupported format version
   */
  public static IcechunkStore open(String location) {
    return open(StoreLocation.parse(location));
  }

  /** {@link #open(String)} of a location already taken apart. */
  public static IcechunkStore open(StoreLocation location) {
    String scheme = location.scheme();
    if (!SCHEMES.contains(scheme)) {
      throw new StoreException(
          ErrorKind.INVALID_ARGUMENT,
          scheme.isEmpty()
              ? "'"
                  + location
                  + "' is not an Icechunk location (use"
                  + " icechunk://PATH, icechunk+s3://, icechunk+gs:// or icechunk+https://)"
              : "store '"
                  + location
                  + "': not an Icechunk location (use icechunk://PATH,"
                  + " icechunk+s3://, icechunk+gs:// or icechunk+https://)");
    }
    Version version = null;
    List<StoreLocation.Option> passed = new ArrayList<>();
    for (StoreLocation.Option o : location.options()) {
      Version.Kind kind =
          switch (o.key()) {
            case "branch" -> Version.Kind.BRANCH;
            case "tag" -> Version.Kind.TAG;
            case "snapshot" -> Version.Kind.SNAPSHOT;
            default -> null;
          };
      if (kind == null) {
        passed.add(o);
        continue;
      }
      if (o.value() == null || o.value().isEmpty()) {
        throw location.error("'" + o.key() + "' needs a value");
      }
      if (version != null) {
        throw location.error("give one of branch=, tag= or snapshot=, not several");
      }
      version = new Version(kind, o.value());
    }
    if (version == null) {
      version = Version.MAIN;
    }
    String rest = location.rest();
    if (rest.isEmpty()) {
      throw location.error("no repository given");
    }
    Store storage;
    boolean remote = true;
    String where = scheme + "://" + rest;
    if (scheme.equals("icechunk")) {
      if (!passed.isEmpty()) {
        throw location.unknownOption(passed.get(0).written(), "branch, tag, snapshot");
      }
      Path dir = StoreLocation.parse(rest).localPath();
      try {
        storage = new FileStore(dir);
      } catch (StoreException e) {
        throw new StoreException(
            ErrorKind.NOT_FOUND,
            "store '" + location + "': no Icechunk repository there (" + e.getMessage() + ")",
            e);
      }
      remote = false;
    } else {
      String inner = StoreLocation.of(scheme.substring("icechunk+".length()), rest, passed);
      try {
        storage = Stores.open(StoreLocation.parse(inner).withLimits(location.limits()));
      } catch (ZaroException e) {
        throw new StoreException("store '" + location + "': " + e.getMessage(), e);
      }
    }
    return open(storage, where, version, remote, location.limits());
  }

  /** The id of the snapshot this store shows. */
  public String snapshotId() {
    return snapshot.id;
  }

  /** The commit message of the snapshot. */
  public String message() {
    return snapshot.message;
  }

  /** The snapshot's history, newest first (itself first): {id, commit message} pairs. */
  public List<String[]> ancestry() {
    return repository.ancestry(snapshot.id);
  }

  /** The format of the repository's refs: 1 (Icechunk 1.x) or 2 (Icechunk 2.x). */
  public int format() {
    return repository.format();
  }

  // ---- keys ----

  /** What a key holds: a node's metadata, a chunk, or null for nothing. */
  @Override
  public ReferenceTargets targets() {
    return targets;
  }

  @Override
  public Reference reference(String key) {
    StoreKeys.checked(key, this);
    if (key.equals("zarr.json") || key.endsWith("/zarr.json")) {
      Snapshot.Node n = nodes.get(key.length() == 9 ? "" : key.substring(0, key.length() - 10));
      return n == null ? null : new Reference.Inline(n.zarrJson());
    }
    String[] segments = key.split("/", -1);
    StringBuilder path = new StringBuilder();
    for (int i = 0; i < segments.length; i++) {
      if (segments[i].equals("c")) {
        Snapshot.Node n = nodes.get(path.toString());
        if (n != null && n.isArray()) {
          int[] index = index(segments, i + 1, n.ndim());
          return index == null ? null : chunk(n, index, key);
        }
      }
      if (i > 0) {
        path.append('/');
      }
      path.append(segments[i]);
    }
    return null;
  }

  /** The chunk index in {@code segments[from..]}, or null if they are not {@code ndim} integers. */
  private static int[] index(String[] segments, int from, int ndim) {
    if (segments.length - from != ndim) {
      return null;
    }
    int[] index = new int[ndim];
    for (int d = 0; d < ndim; d++) {
      String s = segments[from + d];
      if (s.isEmpty()
          || s.length() > 10
          || !s.chars().allMatch(c -> c >= '0' && c <= '9')
          || (s.length() > 1 && s.charAt(0) == '0')) {
        return null;
      }
      long v = Long.parseLong(s);
      if (v > 0xffffffffL) {
        return null;
      }
      index[d] = (int) v;
    }
    return index;
  }

  private Reference chunk(Snapshot.Node node, int[] index, String key) {
    for (Snapshot.ManifestRef m : node.manifests()) {
      if (m.covers(index)) {
        return manifest(m.id()).find(node.id(), index, key);
      }
    }
    return null;
  }

  private Manifest manifest(String id) {
    Manifest m = manifests.get(id);
    if (m == null) {
      m = repository.manifest(id);
      Manifest earlier = manifests.putIfAbsent(id, m);
      m = earlier != null ? earlier : m;
    }
    return m;
  }

  private static String chunkKey(String dir, int[] index) {
    StringBuilder k = new StringBuilder(dir.isEmpty() ? "c" : dir + "/c");
    for (int i : index) {
      k.append('/').append(Integer.toUnsignedString(i));
    }
    return k.toString();
  }

  // ---- the Store contract ----

  @Override
  public Stream<String> list(String prefix) {
    return list(prefix, dir -> false);
  }

  /**
   * Every node's {@code zarr.json} and every chunk key the manifests hold (not below skipped
   * arrays).
   */
  @Override
  public Stream<String> list(String prefix, Predicate<String> skipBelow) {
    TreeSet<String> keys = new TreeSet<>();
    for (Snapshot.Node n : new TreeMap<>(nodes).values()) {
      String meta = StoreKeys.join(n.path(), "zarr.json");
      if (meta.startsWith(prefix)) {
        keys.add(meta);
      }
      String chunks = n.path().isEmpty() ? "c" : n.path() + "/c";
      if (n.isArray()
          && (chunks.startsWith(prefix) || prefix.startsWith(chunks))
          && !skipBelow.test(n.path())) {
        for (Snapshot.ManifestRef m : n.manifests()) {
          manifest(m.id())
              .forEachIndex(
                  n.id(),
                  index -> {
                    String k = chunkKey(n.path(), index);
                    if (m.covers(index) && k.startsWith(prefix)) {
                      keys.add(k);
                    }
                  });
        }
      }
    }
    return keys.stream();
  }

  /**
   * Always listable (the snapshot lists every node, the manifests every chunk); ranged reads and
   * latency are those of the repository's storage, where native chunks are read.
   */
  @Override
  public StoreCapabilities capabilities() {
    StoreCapabilities s = storage.capabilities();
    return new StoreCapabilities(true, s.partialReads(), s.latency());
  }

  /**
   * A constant for native and inline chunks and for metadata, which never change within the
   * snapshot (named by {@link #describe}); empty for virtual chunks, whose files live outside the
   * repository and may be rewritten.
   */
  @Override
  public Optional<String> version(String key) {
    Reference r = reference(key);
    return r instanceof Reference.Stored || r instanceof Reference.Inline
        ? Optional.of("")
        : Optional.empty();
  }

  @Override
  public String describe() {
    return name;
  }

  @Override
  public void close() {
    targets.close();
    storage.close();
  }

  @Override
  public String toString() {
    return name + " (" + nodes.size() + " nodes, format " + repository.format() + ")";
  }
}
