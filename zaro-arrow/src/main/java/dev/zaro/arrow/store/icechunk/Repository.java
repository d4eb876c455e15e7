package dev.zaro.arrow.store.icechunk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.store.Store;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The refs of an Icechunk repository, read from its storage: in format 2 (Icechunk 2.x) the repo
 * info file {@code repo} lists branches, tags, deleted tags and every snapshot with its parent; in
 * format 1 (Icechunk 1.x) each branch or tag is {@code refs/branch.NAME/ref.json} or {@code
 * refs/tag.NAME/ref.json} ({@code {"snapshot": "ID"}}), a deleted tag keeps a tombstone {@code
 * ref.json.deleted}, and snapshots name their parents. A format 1 repository upgraded to format 2
 * has a {@code repo} file and format 1 snapshots and manifests; each file's own header says which
 * format it is.
 */
final class Repository {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A snapshot as the repo info file lists it: id, message, index of its parent or -1. */
  private record Info(String id, String message, int parent) {}

  private final Store storage;
  private final String name;

  /** Format 2 only; null in format 1. */
  private final Map<String, Integer> branches;

  private final Map<String, Integer> tags;
  private final List<String> deletedTags;
  private final List<Info> snapshots;

  private Repository(
      Store storage,
      String name,
      Map<String, Integer> branches,
      Map<String, Integer> tags,
      List<String> deletedTags,
      List<Info> snapshots) {
    this.storage = storage;
    this.name = name;
    this.branches = branches;
    this.tags = tags;
    this.deletedTags = deletedTags;
    this.snapshots = snapshots;
  }

  /**
   * Reads the refs of the repository in {@code storage} (which the caller keeps and closes).
   *
   * @param name the repository's location, for messages
   */
  static Repository open(Store storage, String name) {
    Optional<byte[]> repo = storage.getBytes("repo");
    if (repo.isEmpty()) {
      return new Repository(storage, name, null, null, null, null);
    }
    FlatBuffer fb = IcechunkFile.body(repo.get(), "repo", IcechunkFile.REPO_INFO);
    int root = fb.root("repo info");
    List<Info> snapshots = new ArrayList<>();
    int snaps = fb.vector(root, 4, "snapshots");
    int nSnaps = snaps < 0 ? 0 : fb.length(snaps, 4, "snapshots");
    for (int i = 0; i < nSnaps; i++) {
      int s = fb.tableAt(snaps, i, "snapshots");
      String id = ObjectId.encode(fb.bytes(fb.required(s, 0, "SnapshotInfo.id"), 12));
      int parent = fb.i32Field(s, 1, 0); // the schema default is 0; the first snapshot stores -1
      if (parent < -1 || parent >= nSnaps) {
        throw fb.corrupt(
            "snapshot " + id + " has the parent index " + parent + " of " + nSnaps + " snapshots");
      }
      String message = fb.string(s, 3, "SnapshotInfo.message");
      snapshots.add(new Info(id, message == null ? "" : message, parent));
    }
    List<String> deleted = new ArrayList<>();
    int del = fb.vector(root, 3, "deleted_tags");
    for (int i = 0, n = del < 0 ? 0 : fb.length(del, 4, "deleted_tags"); i < n; i++) {
      deleted.add(fb.stringAt(del, i, "deleted_tags"));
    }
    return new Repository(
        storage,
        name,
        refs(fb, root, 2, "branches", nSnaps),
        refs(fb, root, 1, "tags", nSnaps),
        deleted,
        snapshots);
  }

  private static Map<String, Integer> refs(
      FlatBuffer fb, int root, int field, String what, int nSnaps) {
    Map<String, Integer> out = new LinkedHashMap<>();
    int vec = fb.vector(root, field, what);
    for (int i = 0, n = vec < 0 ? 0 : fb.length(vec, 4, what); i < n; i++) {
      int ref = fb.tableAt(vec, i, what);
      String refName = fb.string(ref, 0, "Ref.name");
      long index = fb.u32Field(ref, 1, 0);
      if (refName == null || index >= nSnaps) {
        throw fb.corrupt(
            "an entry of '"
                + what
                + "' has no name or points at snapshot "
                + index
                + " of "
                + nSnaps);
      }
      out.put(refName, (int) index);
    }
    return out;
  }

  /** The format of the repository's refs: 2 with a repo info file, else 1. */
  int format() {
    return branches == null ? 1 : 2;
  }

  /** The snapshot id a branch, tag or snapshot id names. */
  String resolve(IcechunkStore.Version version) {
    String ref = version.name();
    return switch (version.kind()) {
      case SNAPSHOT -> {
        ObjectId.decode12(ref, "snapshot");
        yield ref.toUpperCase(Locale.ROOT);
      }
      case BRANCH -> format() == 2 ? lookup(branches, ref, "branch") : refFile("branch", ref);
      case TAG -> {
        if (format() == 2) {
          if (!tags.containsKey(ref) && deletedTags.contains(ref)) {
            throw new StoreException(
                ErrorKind.NOT_FOUND,
                "Icechunk repository " + name + ": tag '" + ref + "' was deleted");
          }
          yield lookup(tags, ref, "tag");
        }
        yield refFile("tag", ref);
      }
    };
  }

  private String lookup(Map<String, Integer> refs, String ref, String kind) {
    Integer index = refs.get(ref);
    if (index == null) {
      throw unknown(kind, ref, new TreeSet<>(refs.keySet()));
    }
    return snapshots.get(index).id();
  }

  private StoreException unknown(String kind, String ref, Collection<String> known) {
    String plural = kind.equals("branch") ? "branches" : kind + "s";
    return new StoreException(
        ErrorKind.NOT_FOUND,
        "Icechunk repository "
            + name
            + " has no "
            + kind
            + " '"
            + ref
            + "'"
            + (known == null
                ? ""
                : known.isEmpty()
                    ? " (it has no " + plural + ")"
                    : " (" + plural + ": " + String.join(", ", known) + ")"));
  }

  /** Format 1: the snapshot in {@code refs/KIND.REF/ref.json}. */
  private String refFile(String kind, String ref) {
    if (ref.isEmpty() || ref.contains("/")) {
      throw new StoreException(
          ErrorKind.INVALID_ARGUMENT,
          "Icechunk repository "
              + name
              + ": '"
              + ref
              + "' is not a valid "
              + kind
              + " name (names are non-empty and contain no '/')");
    }
    String key = "refs/" + kind + "." + ref + "/ref.json";
    if (kind.equals("tag") && storage.getBytes(key + ".deleted").isPresent()) {
      throw new StoreException(
          ErrorKind.NOT_FOUND, "Icechunk repository " + name + ": tag '" + ref + "' was deleted");
    }
    Optional<byte[]> doc = storage.getBytes(key);
    if (doc.isEmpty()) {
      if (storage.getBytes("refs/branch.main/ref.json").isEmpty()) {
        throw new StoreException(
            ErrorKind.NOT_FOUND,
            name
                + " is not an Icechunk repository (it has neither a 'repo' file nor"
                + " 'refs/branch.main/ref.json')");
      }
      throw unknown(kind, ref, storage.capabilities().listable() ? listRefs(kind) : null);
    }
    JsonNode json;
    try {
      json = JSON.readTree(doc.get());
    } catch (IOException e) {
      throw new StoreException(
          ErrorKind.CORRUPT,
          "corrupt Icechunk ref file '"
              + key
              + "' in "
              + name
              + ": not JSON ("
              + e.getMessage()
              + ")");
    }
    if (json == null || !json.path("snapshot").isTextual()) {
      throw new StoreException(
          ErrorKind.CORRUPT,
          "corrupt Icechunk ref file '" + key + "' in " + name + ": no \"snapshot\" string in it");
    }
    String id = json.get("snapshot").asText();
    try {
      ObjectId.decode12(id, "snapshot");
    } catch (StoreException e) {
      throw new StoreException(
          ErrorKind.CORRUPT,
          "corrupt Icechunk ref file '" + key + "' in " + name + ": " + e.getMessage());
    }
    return id;
  }

  /** Format 1: the names of the branches or tags (without deleted tags). */
  private List<String> listRefs(String kind) {
    TreeSet<String> names = new TreeSet<>();
    TreeSet<String> deleted = new TreeSet<>();
    try (var keys = storage.list("refs/" + kind + ".")) {
      keys.forEach(
          k -> {
            int slash = k.indexOf('/', 5);
            if (slash < 0) {
              return;
            }
            String refName = k.substring(5 + kind.length() + 1, slash);
            if (k.endsWith("/ref.json")) {
              names.add(refName);
            } else if (k.endsWith("/ref.json.deleted")) {
              deleted.add(refName);
            }
          });
    }
    names.removeAll(deleted);
    return new ArrayList<>(names);
  }

  /**
   * Reads and parses snapshot {@code id}.
   *
   * @param asked whether the user named the id (a missing file is then NOT_FOUND; a ref or parent
   *     pointing nowhere is CORRUPT)
   */
  Snapshot snapshot(String id, boolean asked) {
    String key = "snapshots/" + id;
    byte[] file =
        storage
            .getBytes(key)
            .orElseThrow(
                () ->
                    new StoreException(
                        asked ? ErrorKind.NOT_FOUND : ErrorKind.CORRUPT,
                        "Icechunk repository "
                            + name
                            + " has no snapshot "
                            + id
                            + " (no file '"
                            + key
                            + "')"));
    return Snapshot.parse(file, key, id);
  }

  /** Reads and parses manifest {@code id}. */
  Manifest manifest(String id) {
    String key = "manifests/" + id;
    byte[] file =
        storage
            .getBytes(key)
            .orElseThrow(
                () ->
                    new StoreException(
                        ErrorKind.CORRUPT,
                        "Icechunk repository "
                            + name
                            + " has no manifest "
                            + id
                            + " (no file '"
                            + key
                            + "'), which the snapshot refers to"));
    return Manifest.parse(file, key, id);
  }

  /**
   * The history of snapshot {@code id}, newest first: {id, commit message} pairs, from the repo
   * info file (format 2) or the snapshots' parent links (format 1).
   */
  List<String[]> ancestry(String id) {
    List<String[]> out = new ArrayList<>();
    if (format() == 2) {
      int index = -1;
      for (int i = 0; i < snapshots.size(); i++) {
        if (snapshots.get(i).id().equals(id)) {
          index = i;
        }
      }
      if (index < 0) {
        throw new StoreException(
            ErrorKind.NOT_FOUND, "Icechunk repository " + name + " does not list snapshot " + id);
      }
      for (int steps = 0; index >= 0; steps++) {
        if (steps > snapshots.size()) {
          throw new StoreException(
              ErrorKind.CORRUPT,
              "corrupt Icechunk file 'repo' in " + name + ": the snapshot parents form a cycle");
        }
        Info info = snapshots.get(index);
        out.add(new String[] {info.id(), info.message()});
        index = info.parent();
      }
      return out;
    }
    Set<String> seen = new HashSet<>();
    for (String next = id; next != null; ) {
      if (!seen.add(next)) {
        throw new StoreException(
            ErrorKind.CORRUPT,
            "corrupt Icechunk repository " + name + ": the snapshot parents form a cycle");
      }
      Snapshot s = snapshot(next, false);
      out.add(new String[] {s.id, s.message});
      next = s.parentId;
    }
    return out;
  }
}
