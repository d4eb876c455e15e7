package dev.zaro.arrow.metadata;

/** How a chunk's grid index becomes a store key (relative to the array's path). */
public sealed interface ChunkKeyEncoding {

  /** The key of the chunk at {@code index}, relative to the array node. */
  String encode(long[] index);

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
}
