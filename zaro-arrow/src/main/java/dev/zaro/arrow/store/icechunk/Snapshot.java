package dev.zaro.arrow.store.icechunk;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One parsed Icechunk snapshot file ({@code snapshots/ID}, FlatBuffers table {@code Snapshot}): its
 * nodes (path, Zarr metadata, and for arrays the manifests holding their chunk references, each
 * with the region of the chunk grid it covers), commit message and, in format 1, parent. Format 1
 * and 2 share the table; format 2 only appended fields zaro does not need.
 */
final class Snapshot {
  /** A manifest holding the chunk references of one region of an array's chunk grid. */
  @SuppressWarnings("ArrayRecordComponent") // parsed snapshot contents, never compared
  record ManifestRef(String id, int[] from, int[] to) {
    /** Whether chunk {@code index} lies in this region (from inclusive, to exclusive). */
    boolean covers(int[] index) {
      if (index.length != from.length) {
        return false;
      }
      for (int d = 0; d < index.length; d++) {
        if (Integer.compareUnsigned(index[d], from[d]) < 0
            || Integer.compareUnsigned(index[d], to[d]) >= 0) {
          return false;
        }
      }
      return true;
    }
  }

  /**
   * A group or array.
   *
   * @param id the 8-byte node id (the key of its chunk references in manifests)
   * @param path the node path without its leading '/': "" for the root, "a/b"
   * @param zarrJson the node's {@code zarr.json} document
   * @param manifests null for a group
   */
  @SuppressWarnings("ArrayRecordComponent") // parsed snapshot contents, never compared
  record Node(byte[] id, String path, byte[] zarrJson, int ndim, List<ManifestRef> manifests) {
    boolean isArray() {
      return manifests != null;
    }
  }

  final String id;

  /** Format 1 only (format 2 keeps parents in the repo info file); null for the first. */
  final String parentId;

  final String message;
  final List<Node> nodes;

  private Snapshot(String id, String parentId, String message, List<Node> nodes) {
    this.id = id;
    this.parentId = parentId;
    this.message = message;
    this.nodes = nodes;
  }

  /**
   * Parses the snapshot file {@code file}, stored at {@code key} for the id {@code expectedId}.
   *
   * @throws dev.zaro.arrow.error.StoreException if it is not a well-formed snapshot of that id
   */
  static Snapshot parse(byte[] file, String key, String expectedId) {
    FlatBuffer fb = IcechunkFile.body(file, key, IcechunkFile.SNAPSHOT);
    int root = fb.root("snapshot");
    String id = ObjectId.encode(fb.bytes(fb.required(root, 0, "id"), 12));
    if (!id.equals(expectedId)) {
      throw fb.corrupt("it holds snapshot " + id + ", not " + expectedId);
    }
    int parentPos = fb.field(root, 1);
    String parent = parentPos < 0 ? null : ObjectId.encode(fb.bytes(parentPos, 12));
    String message = fb.string(root, 4, "message");
    int nodesVec = fb.vector(root, 2, "nodes");
    if (nodesVec < 0) {
      throw fb.corrupt("the required field 'nodes' is missing");
    }
    int n = fb.length(nodesVec, 4, "nodes");
    List<Node> nodes = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      nodes.add(node(fb, fb.tableAt(nodesVec, i, "nodes")));
    }
    return new Snapshot(
        id, parent, message == null ? "" : message, Collections.unmodifiableList(nodes));
  }

  private static Node node(FlatBuffer fb, int t) {
    byte[] id = fb.bytes(fb.required(t, 0, "NodeSnapshot.id"), 8);
    String path = fb.string(t, 1, "NodeSnapshot.path");
    if (path == null) {
      throw fb.corrupt("a node has no path");
    }
    String relative = relativePath(fb, path);
    byte[] zarrJson = fb.byteVector(t, 2, "NodeSnapshot.user_data");
    if (zarrJson == null) {
      throw fb.corrupt("node '" + path + "' has no Zarr metadata (user_data)");
    }
    int type = fb.u8Field(t, 3, 0);
    int data = fb.table(t, 4, "NodeSnapshot.node_data");
    if (type == 2) {
      return new Node(id, relative, zarrJson, 0, null);
    }
    if (type != 1 || data < 0) {
      throw fb.corrupt(
          "node '" + path + "' is neither an array nor a group (node_data type " + type + ")");
    }
    int ndim;
    int shapeV2 = fb.vector(data, 3, "ArrayNodeData.shape_v2");
    if (shapeV2 >= 0) {
      ndim = fb.length(shapeV2, 4, "ArrayNodeData.shape_v2");
    } else {
      int shape = fb.vector(data, 0, "ArrayNodeData.shape");
      if (shape < 0) {
        throw fb.corrupt("array '" + path + "' has no shape");
      }
      ndim = fb.length(shape, 16, "ArrayNodeData.shape");
    }
    int refsVec = fb.vector(data, 2, "ArrayNodeData.manifests");
    List<ManifestRef> refs = new ArrayList<>();
    int nRefs = refsVec < 0 ? 0 : fb.length(refsVec, 4, "ArrayNodeData.manifests");
    for (int i = 0; i < nRefs; i++) {
      int m = fb.tableAt(refsVec, i, "ArrayNodeData.manifests");
      String manifest = ObjectId.encode(fb.bytes(fb.required(m, 0, "ManifestRef.object_id"), 12));
      int extents = fb.vector(m, 1, "ManifestRef.extents");
      if (extents < 0 || fb.length(extents, 8, "ManifestRef.extents") != ndim) {
        throw fb.corrupt(
            "array '"
                + path
                + "': manifest "
                + manifest
                + " does not give one extent per dimension");
      }
      int[] from = new int[ndim];
      int[] to = new int[ndim];
      for (int d = 0; d < ndim; d++) {
        from[d] = fb.i32(extents + 4 + 8 * d);
        to[d] = fb.i32(extents + 8 + 8 * d);
      }
      refs.add(new ManifestRef(manifest, from, to));
    }
    return new Node(id, relative, zarrJson, ndim, Collections.unmodifiableList(refs));
  }

  /** "/" -> "", "/a/b" -> "a/b"; refuses paths that are not canonical. */
  private static String relativePath(FlatBuffer fb, String path) {
    if (path.equals("/")) {
      return "";
    }
    if (!path.startsWith("/")
        || path.endsWith("/")
        || path.indexOf('\\') >= 0
        || path.indexOf('\0') >= 0) {
      throw fb.corrupt("the node path '" + path + "' is not a canonical absolute path");
    }
    for (String segment : path.substring(1).split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
        throw fb.corrupt("the node path '" + path + "' is not a canonical absolute path");
      }
    }
    return path.substring(1);
  }
}
