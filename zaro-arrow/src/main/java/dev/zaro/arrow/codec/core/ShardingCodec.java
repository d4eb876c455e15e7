package dev.zaro.arrow.codec.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.codec.ArrayToBytesCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecCapability;
import dev.zaro.arrow.codec.CodecChain;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.codec.PartialDecoder;
import dev.zaro.arrow.codec.Scratch;
import dev.zaro.arrow.codec.ShardIndex;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.codec.internal.ChunkPart;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.error.MetadataException;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import dev.zaro.arrow.metadata.internal.JsonDocument;
import dev.zaro.arrow.metadata.internal.V3Metadata;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * {@code sharding_indexed}: a chunk (the shard) holds inner chunks, each encoded with its own
 * chain, plus an index of (offset, length) pairs encoded with the index chain, at the start or the
 * end. Given a whole shard it decodes the inner chunks a view needs; it states {@link
 * CodecCapability#PARTIAL_DECODE} and is its own {@link PartialDecoder}, so readers that can fetch
 * byte ranges fetch only the index and the needed inner chunks.
 */
public final class ShardingCodec implements ArrayToBytesCodec, PartialDecoder {
  private final int[] innerShape;
  private final long[] chunksPerShard;
  private final CodecChain inner;
  private final CodecChain index;
  private final boolean indexAtEnd;
  private final long indexSize;
  private final FillValue fill;

  private ShardingCodec(
      int[] innerShape,
      long[] chunksPerShard,
      CodecChain inner,
      CodecChain index,
      boolean indexAtEnd,
      FillValue fill) {
    this.innerShape = innerShape;
    this.chunksPerShard = chunksPerShard;
    this.inner = inner;
    this.index = index;
    this.indexAtEnd = indexAtEnd;
    this.fill = fill;
    this.indexSize = index.encodedSize();
  }

  static ShardingCodec create(CodecSpec spec, ChunkSpec shard, CodecRegistry registry) {
    CodecConfig config =
        new CodecConfig(spec).only("chunk_shape", "codecs", "index_codecs", "index_location");
    JsonNode shapeNode = config.node("chunk_shape");
    if (shapeNode == null || !shapeNode.isArray() || shapeNode.size() != shard.rank()) {
      throw config.error(
          "chunk_shape must list " + shard.rank() + " inner chunk sizes, not " + shapeNode);
    }
    int[] innerShape = new int[shard.rank()];
    long[] perShard = new long[shard.rank()];
    long count = 1;
    for (int d = 0; d < innerShape.length; d++) {
      JsonNode e = shapeNode.get(d);
      if (!e.isIntegralNumber() || e.intValue() < 1 || shard.shape()[d] % e.intValue() != 0) {
        throw config.error(
            "chunk_shape "
                + shapeNode
                + " must divide the shard shape "
                + Arrays.toString(shard.shape())
                + " evenly");
      }
      innerShape[d] = e.intValue();
      perShard[d] = shard.shape()[d] / innerShape[d];
      count *= perShard[d];
    }
    String location = config.string("index_location", "end");
    if (!location.equals("end") && !location.equals("start")) {
      throw config.error("index_location must be \"start\" or \"end\", not \"" + location + "\"");
    }
    CodecChain innerChain;
    CodecChain indexChain;
    try {
      JsonDocument doc =
          JsonDocument.of("sharding_indexed configuration", (ObjectNode) spec.configuration());
      List<CodecSpec> innerCodecs =
          V3Metadata.codecs(
              doc,
              "codecs",
              config.node("codecs") == null
                  ? JsonNodeFactory.instance.arrayNode()
                  : config.node("codecs"));
      JsonNode indexNode = config.node("index_codecs");
      List<CodecSpec> indexCodecs =
          V3Metadata.codecs(
              doc,
              "index_codecs",
              indexNode == null ? JsonNodeFactory.instance.arrayNode() : indexNode);
      innerChain = CodecChain.resolve(innerCodecs, shard.withShape(innerShape), registry);
      int[] indexShape = new int[perShard.length + 1];
      for (int d = 0; d < perShard.length; d++) {
        indexShape[d] = Math.toIntExact(perShard[d]);
      }
      indexShape[perShard.length] = 2;
      indexChain =
          CodecChain.resolve(
              indexCodecs,
              new ChunkSpec(indexShape, DataType.UINT64, FillValue.zero(DataType.UINT64)),
              registry);
    } catch (MetadataException | CodecException e) {
      throw config.error(e.getMessage());
    }
    if (indexChain.encodedSize() < 0) {
      throw config.error(
          "index_codecs " + indexChain + " must produce a fixed size (no compression)");
    }
    if (count > Integer.MAX_VALUE / 2) {
      throw config.error(count + " inner chunks per shard is too many");
    }
    return new ShardingCodec(
        innerShape, perShard, innerChain, indexChain, location.equals("end"), shard.fillValue());
  }

  @Override
  public String name() {
    return "sharding_indexed";
  }

  @Override
  public Set<CodecCapability> capabilities() {
    return Set.of(CodecCapability.PARTIAL_DECODE);
  }

  @Override
  public PartialDecoder partialDecoder() {
    return this;
  }

  @Override
  public int[] innerShape() {
    return innerShape.clone();
  }

  @Override
  public CodecChain innerChain() {
    return inner;
  }

  /** Encoded size of the index in bytes. */
  @Override
  public long indexSize() {
    return indexSize;
  }

  /** Whether the index is the shard's suffix (else its prefix). */
  @Override
  public boolean indexAtEnd() {
    return indexAtEnd;
  }

  /** First byte that may hold chunk data (after an index at the start). */
  @Override
  public long dataStart() {
    return indexAtEnd ? 0 : indexSize;
  }

  @Override
  public byte[] fillElement() {
    return fill.bytes();
  }

  @Override
  public long encodedSize(ChunkSpec spec) {
    return -1;
  }

  /** Decodes an encoded index (valid bytes {@code [0, writerIndex)}; not closed here). */
  @Override
  public ShardIndex decodeIndex(ArrowBuf encoded, BufferAllocator allocator) {
    int n = Math.toIntExact(index.decodedSpec().elementCount() / 2);
    long[] offsets = new long[n];
    long[] lengths = new long[n];
    try (ArrowBuf decoded = allocator.buffer(n * 16L)) {
      index.decodeInto(
          encoded, SlabView.whole(decoded, 0, 8, index.decodedSpec().shape()), allocator);
      for (int i = 0; i < n; i++) {
        offsets[i] = decoded.getLong(i * 16L);
        lengths[i] = decoded.getLong(i * 16L + 8);
      }
    } catch (CodecException e) {
      throw new CodecException("codec sharding_indexed: shard index: " + e.getMessage(), e);
    }
    return new ShardIndex(chunksPerShard, offsets, lengths);
  }

  /** Decodes one inner chunk's bytes into its part of the view. */
  @Override
  public void decodeInner(
      ArrowBuf encoded, SlabView innerView, BufferAllocator allocator, Scratch scratch) {
    inner.decodeInto(encoded, innerView, allocator, scratch);
  }

  @Override
  public void decodeInto(
      ArrowBuf encoded, ChunkSpec spec, SlabView target, BufferAllocator allocator) {
    long length = encoded.writerIndex();
    if (length < indexSize) {
      throw new CodecException(
          "codec sharding_indexed: shard of "
              + length
              + " bytes is shorter than its "
              + indexSize
              + "-byte index");
    }
    long indexStart = indexAtEnd ? length - indexSize : 0;
    ArrowBuf indexBytes = encoded.slice(indexStart, indexSize);
    indexBytes.writerIndex(indexSize);
    ShardIndex shardIndex = decodeIndex(indexBytes, allocator);
    shardIndex.validate(dataStart(), indexAtEnd ? length - indexSize : length);
    byte[] fillBytes = fill.bytes();
    ChunkPart.forEachChunk(
        target,
        innerShape,
        (innerIndex, innerView) -> {
          int p = shardIndex.position(innerIndex);
          if (shardIndex.isAbsent(p)) {
            innerView.fill(fillBytes);
            return;
          }
          ArrowBuf chunk = encoded.slice(shardIndex.offset(p), shardIndex.length(p));
          chunk.writerIndex(shardIndex.length(p));
          try {
            decodeInner(chunk, innerView, allocator, null);
          } catch (CodecException e) {
            throw new CodecException(
                "inner chunk " + Arrays.toString(innerIndex) + ": " + e.getMessage(), e);
          }
        });
  }
}
