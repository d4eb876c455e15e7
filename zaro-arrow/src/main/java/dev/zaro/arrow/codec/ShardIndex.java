package dev.zaro.arrow.codec;

import dev.zaro.arrow.error.CodecException;
import java.util.Arrays;

/**
 * A decoded shard index: for each inner chunk (C order over the chunks of one shard) the byte
 * offset and length of its encoded data inside the shard, or absent.
 */
public final class ShardIndex {
  /** Offset and length of an absent inner chunk: both 2^64-1. */
  public static final long ABSENT = -1L;

  private final long[] chunksPerShard;
  private final long[] offsets;
  private final long[] lengths;

  /**
   * An index over {@code chunksPerShard} inner chunks (C order); takes ownership of {@code offsets}
   * and {@code lengths} (one entry per inner chunk, {@link #ABSENT} twice for an absent one), so a
   * {@link PartialDecoder} outside this package can build one.
   */
  public ShardIndex(long[] chunksPerShard, long[] offsets, long[] lengths) {
    this.chunksPerShard = chunksPerShard.clone();
    this.offsets = offsets;
    this.lengths = lengths;
  }

  /** The number of inner chunks the index describes. */
  public int size() {
    return offsets.length;
  }

  /** The C-order position of an inner chunk's grid index. */
  public int position(long[] innerIndex) {
    long p = 0;
    for (int d = 0; d < innerIndex.length; d++) {
      p = p * chunksPerShard[d] + innerIndex[d];
    }
    return (int) p;
  }

  /** Whether the inner chunk at {@code position} (C order) is absent from the shard. */
  public boolean isAbsent(int position) {
    return offsets[position] == ABSENT && lengths[position] == ABSENT;
  }

  /** The byte offset of the inner chunk at {@code position} within the shard. */
  public long offset(int position) {
    return offsets[position];
  }

  /** The byte length of the inner chunk at {@code position}. */
  public long length(int position) {
    return lengths[position];
  }

  /**
   * Checks every present entry lies inside {@code [dataStart, dataEnd)} and no two overlap.
   *
   * @throws CodecException naming the first bad entry
   */
  public void validate(long dataStart, long dataEnd) {
    Integer[] order = new Integer[offsets.length];
    int present = 0;
    for (int i = 0; i < offsets.length; i++) {
      if (isAbsent(i)) {
        continue;
      }
      long off = offsets[i];
      long len = lengths[i];
      if (off == ABSENT || len == ABSENT) {
        throw new CodecException(
            "codec sharding_indexed: index entry "
                + i
                + " has offset "
                + Long.toUnsignedString(off)
                + " and length "
                + Long.toUnsignedString(len)
                + "; an absent chunk needs both to be 2^64-1");
      }
      if (off < dataStart || len < 0 || off > dataEnd || len > dataEnd - off) {
        throw new CodecException(
            "codec sharding_indexed: index entry "
                + i
                + " (offset "
                + Long.toUnsignedString(off)
                + ", length "
                + Long.toUnsignedString(len)
                + ") points outside the shard's data bytes "
                + dataStart
                + ".."
                + (dataEnd == Long.MAX_VALUE ? "end" : String.valueOf(dataEnd)));
      }
      order[present++] = i;
    }
    Integer[] sorted = Arrays.copyOf(order, present);
    Arrays.sort(sorted, (a, b) -> Long.compare(offsets[a], offsets[b]));
    for (int k = 1; k < sorted.length; k++) {
      int prev = sorted[k - 1];
      int cur = sorted[k];
      if (offsets[prev] + lengths[prev] > offsets[cur]) {
        throw new CodecException(
            "codec sharding_indexed: index entries "
                + prev
                + " (bytes "
                + offsets[prev]
                + ".."
                + (offsets[prev] + lengths[prev])
                + ") and "
                + cur
                + " (bytes "
                + offsets[cur]
                + "..) overlap");
      }
    }
  }
}
