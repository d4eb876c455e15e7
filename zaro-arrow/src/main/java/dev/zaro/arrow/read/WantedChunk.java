package dev.zaro.arrow.read;

import dev.zaro.arrow.codec.PartialDecoder;
import dev.zaro.arrow.codec.Scratch;
import dev.zaro.arrow.codec.ShardIndex;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.codec.internal.ChunkPart;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.store.ByteRange;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * One inner chunk of a shard that a read needs: its index in the shard, the part of the read's view
 * it fills and where its bytes lie in the shard. The range planning of a shard read: which inner
 * chunks a view needs, and the byte ranges that fetch them.
 */
@SuppressWarnings("ArrayRecordComponent") // a read's private carrier, never compared
record WantedChunk(long[] innerIndex, SlabView view, long offset, long length) {

  /** The inner chunks {@code view} needs: present ones into {@code wanted}, absent ones' views. */
  static void plan(
      PartialDecoder codec,
      ShardIndex index,
      SlabView view,
      List<WantedChunk> wanted,
      List<SlabView> absent) {
    ChunkPart.forEachChunk(
        view,
        codec.innerShape(),
        (innerIndex, innerView) -> {
          int p = index.position(innerIndex);
          if (index.isAbsent(p)) {
            absent.add(innerView);
          } else {
            wanted.add(new WantedChunk(innerIndex, innerView, index.offset(p), index.length(p)));
          }
        });
  }

  /** The byte ranges of {@code wanted} in {@code source}'s key. */
  static List<ByteRange.FromStart> ranges(ShardSource source, List<WantedChunk> wanted) {
    return wanted.stream()
        .map(w -> (ByteRange.FromStart) source.range(w.offset(), w.length()))
        .toList();
  }

  /** Counts the bytes of {@code wanted} as fetched. */
  static void fetchedStats(ReadStats stats, List<WantedChunk> wanted) {
    if (stats != null && !wanted.isEmpty()) {
      stats.fetched(wanted.stream().mapToLong(WantedChunk::length).sum());
    }
  }

  /** Decodes this inner chunk from its bytes into its view. */
  void decode(PartialDecoder codec, ArrowBuf chunk, BufferAllocator allocator, Scratch scratch) {
    try {
      codec.decodeInner(chunk, view, allocator, scratch);
    } catch (CodecException e) {
      throw failed(e);
    }
  }

  /** {@code e}, a failure of this inner chunk, with the chunk's index in its message. */
  CodecException failed(CodecException e) {
    return new CodecException(
        "inner chunk " + Arrays.toString(innerIndex) + ": " + e.getMessage(), e);
  }
}
