package dev.zaro.arrow.store.icechunk;

import dev.zaro.arrow.store.ReferenceTargets.Reference;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * One Icechunk chunk manifest ({@code manifests/ID}, FlatBuffers table {@code Manifest}): for each
 * array (by node id, sorted) its chunk references (sorted by chunk index), each native (a range of
 * a chunk file in the repository), inline (the chunk's bytes) or virtual (a range of a file
 * elsewhere, at a URL stored plainly or zstd-compressed with the manifest's dictionary). Lookups
 * are binary searches in the FlatBuffers body; nothing is copied out until asked for.
 */
final class Manifest {
  /** The most bytes a compressed virtual chunk location may decompress to. */
  private static final int MAX_LOCATION = 64 * 1024;

  private final FlatBuffer fb;
  private final String key;
  private final int arrays;
  private final int nArrays;
  private final byte[] dictionary;
  private final int compression;

  private Manifest(
      FlatBuffer fb, String key, int arrays, int nArrays, byte[] dictionary, int compression) {
    this.fb = fb;
    this.key = key;
    this.arrays = arrays;
    this.nArrays = nArrays;
    this.dictionary = dictionary;
    this.compression = compression;
  }

  /**
   * Parses the manifest file {@code file}, stored at {@code key} for the id {@code expectedId}.
   *
   * @throws dev.zaro.arrow.error.StoreException if it is not a well-formed manifest of that id
   */
  static Manifest parse(byte[] file, String key, String expectedId) {
    FlatBuffer fb = IcechunkFile.body(file, key, IcechunkFile.MANIFEST);
    int root = fb.root("manifest");
    String id = ObjectId.encode(fb.bytes(fb.required(root, 0, "id"), 12));
    if (!id.equals(expectedId)) {
      throw fb.corrupt("it holds manifest " + id + ", not " + expectedId);
    }
    int arrays = fb.vector(root, 1, "arrays");
    if (arrays < 0) {
      throw fb.corrupt("the required field 'arrays' is missing");
    }
    int n = fb.length(arrays, 4, "arrays");
    return new Manifest(
        fb, key, arrays, n, fb.byteVector(root, 2, "location_dictionary"), fb.u8Field(root, 3, 1));
  }

  /** The refs vector of the array with node id {@code node}, or -1. */
  private int refsOf(byte[] node) {
    int lo = 0;
    int hi = nArrays - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int array = fb.tableAt(arrays, mid, "arrays");
      int c = fb.compare(fb.required(array, 0, "ArrayManifest.node_id"), node);
      if (c == 0) {
        int refs = fb.vector(array, 1, "ArrayManifest.refs");
        if (refs < 0) {
          throw fb.corrupt("an array has no 'refs'");
        }
        return refs;
      }
      if (c < 0) {
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return -1;
  }

  /** Compares the chunk index of {@code ref} with {@code index}, lexicographically, unsigned. */
  private int compareIndex(int ref, int[] index) {
    int vec = fb.vector(ref, 0, "ChunkRef.index");
    if (vec < 0) {
      throw fb.corrupt("a chunk reference has no index");
    }
    int n = fb.length(vec, 4, "ChunkRef.index");
    for (int d = 0; d < Math.min(n, index.length); d++) {
      int c = Integer.compareUnsigned(fb.i32(vec + 4 + 4 * d), index[d]);
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(n, index.length);
  }

  /**
   * Where chunk {@code index} of the array with node id {@code node} is, or null: a native chunk is
   * a {@link Reference.Stored} range of the repository's {@code chunks/ID}, an inline one a {@link
   * Reference.Inline}, a virtual one a {@link Reference.Part} of its URL.
   */
  Reference find(byte[] node, int[] index, String chunkKey) {
    int refs = refsOf(node);
    if (refs < 0) {
      return null;
    }
    int lo = 0;
    int hi = fb.length(refs, 4, "ArrayManifest.refs") - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int ref = fb.tableAt(refs, mid, "ArrayManifest.refs");
      int c = compareIndex(ref, index);
      if (c == 0) {
        return chunkRef(ref, chunkKey);
      }
      if (c < 0) {
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return null;
  }

  /** Calls {@code action} with the index of every chunk of the array with node id {@code node}. */
  void forEachIndex(byte[] node, Consumer<int[]> action) {
    int refs = refsOf(node);
    if (refs < 0) {
      return;
    }
    int n = fb.length(refs, 4, "ArrayManifest.refs");
    for (int i = 0; i < n; i++) {
      int vec = fb.vector(fb.tableAt(refs, i, "ArrayManifest.refs"), 0, "ChunkRef.index");
      if (vec < 0) {
        throw fb.corrupt("a chunk reference has no index");
      }
      int[] index = new int[fb.length(vec, 4, "ChunkRef.index")];
      for (int d = 0; d < index.length; d++) {
        index[d] = fb.i32(vec + 4 + 4 * d);
      }
      action.accept(index);
    }
  }

  private Reference chunkRef(int ref, String chunkKey) {
    long offset = fb.u64Field(ref, 2, 0);
    long length = fb.u64Field(ref, 3, 0);
    if (offset < 0 || length < 0) {
      throw fb.corrupt("the reference of chunk '" + chunkKey + "' has a range beyond 2^63 bytes");
    }
    int chunkId = fb.field(ref, 4);
    if (chunkId >= 0) {
      return new Reference.Stored(
          "chunks/" + ObjectId.encode(fb.bytes(chunkId, 12)), offset, length);
    }
    String location = fb.string(ref, 5, "ChunkRef.location");
    if (location == null) {
      byte[] compressed = fb.byteVector(ref, 8, "ChunkRef.compressed_location");
      if (compressed != null) {
        location = decompressLocation(compressed, chunkKey);
      }
    }
    if (location != null) {
      if (location.isEmpty()) {
        throw fb.corrupt("the virtual chunk '" + chunkKey + "' has an empty location");
      }
      return new Reference.Part(location, offset, length);
    }
    byte[] inline = fb.byteVector(ref, 1, "ChunkRef.inline");
    if (inline != null) {
      return new Reference.Inline(inline);
    }
    throw fb.corrupt(
        "the reference of chunk '" + chunkKey + "' is neither native, inline nor virtual");
  }

  private String decompressLocation(byte[] compressed, String chunkKey) {
    if (compression != 1) {
      throw fb.corrupt(
          "chunk '"
              + chunkKey
              + "' has a compressed location but the manifest's compression is "
              + compression);
    }
    if (dictionary == null) {
      throw fb.corrupt(
          "chunk '" + chunkKey + "' has a compressed location but the manifest has no dictionary");
    }
    byte[] utf8 =
        IcechunkFile.unzstd(
            compressed,
            0,
            compressed.length,
            dictionary,
            MAX_LOCATION,
            "corrupt Icechunk file '" + key + "': the location of chunk '" + chunkKey + "'");
    return new String(utf8, StandardCharsets.UTF_8);
  }
}
