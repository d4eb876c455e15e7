package dev.zaro.arrow.metadata;

/** How a chunk's grid index becomes a store key (relative to the array's path). */
public sealed interface ChunkKeyEncoding {

  /** The key of the chunk at {@code index}, relative to the array node. */
  String encode(long[] index);

  /**
   * The store key of the chunk at {@code index} of the array at {@code arrayPath} (no leading or
   * trailing slash; {@code ""} for a root array): the array's path, then {@link #encode}.
   */
  default String key(String arrayPath, long[] index) {
    String encoded = encode(index);
    return arrayPath.isEmpty() ? encoded : arrayPath + "/" + encoded;
  }

  /** v3 {@code default}: {@code "c"} then separator + index per dimension; 0-d: {@code "c"}. */
  record DefaultEncoding(char separator) implements ChunkKeyEncoding {
    @Override
    public String encode(long[] index) {
      StringBuilder sb = new StringBuilder("c");
      for (long i : index) {
        sb.append(separator).append(i);
      }
      return sb.toString();
    }
  }

  /** v3 {@code v2} and Zarr v2: indices joined by the separator; 0-d: {@code "0"}. */
  record V2Encoding(char separator) implements ChunkKeyEncoding {
    @Override
    public String encode(long[] index) {
      if (index.length == 0) {
        return "0";
      }
      StringBuilder sb = new StringBuilder();
      for (int d = 0; d < index.length; d++) {
        if (d > 0) {
          sb.append(separator);
        }
        sb.append(index[d]);
      }
      return sb.toString();
    }
  }

  /**
   * The v3 drafts of 2019-2022 ({@code chunk_grid.separator}): {@code "c"} then the indices joined
   * by the separator ({@code c0/1}, {@code c0.1}); 0-d: {@code "c"}. The chunks of the array at
   * {@code p} live under {@code data/root/p/}, not beside its metadata.
   */
  record DraftEncoding(char separator) implements ChunkKeyEncoding {
    /** Where a draft store keeps its chunks: the array's path follows. */
    public static final String DATA_ROOT = "data/root/";

    @Override
    public String encode(long[] index) {
      StringBuilder sb = new StringBuilder("c");
      for (int d = 0; d < index.length; d++) {
        if (d > 0) {
          sb.append(separator);
        }
        sb.append(index[d]);
      }
      return sb.toString();
    }

    @Override
    public String key(String arrayPath, long[] index) {
      return DATA_ROOT + (arrayPath.isEmpty() ? "" : arrayPath + "/") + encode(index);
    }
  }
}
