package dev.zaro.arrow.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.core.JsonProcessingException;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.codec.core.ShardingCodec;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import org.apache.arrow.memory.ArrowBuf;

/**
 * A whole shard of {@code sharding_indexed} on any bytes: the index decoded (with or without its
 * crc32c), validated against the shard's data bytes, and every inner chunk it points at decoded
 * into a 4x4 uint16 chunk. Input: one byte choosing the configuration (bit 0: index at the start,
 * bit 1: crc32c on the index, bit 2: crc32c on inner chunks, bit 3: inner chunks 1x4 instead of
 * 2x2), then the shard. Nothing may be written outside the chunk's bytes.
 */
class ShardIndexFuzzTest {
  private static final int[] SHAPE = {4, 4};
  private static final long CHUNK_BYTES = 32;

  /** Guard bytes on either side of the chunk in the target. */
  private static final int GUARD = 8;

  private static final ShardingCodec[] CODECS = new ShardingCodec[16];

  static {
    ChunkSpec shard = new ChunkSpec(SHAPE, DataType.UINT16, FillValue.zero(DataType.UINT16));
    for (int variant = 0; variant < CODECS.length; variant++) {
      String config =
          "{\"chunk_shape\": "
              + ((variant & 8) != 0 ? "[1, 4]" : "[2, 2]")
              + ", \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}"
              + ((variant & 4) != 0 ? ", {\"name\": \"crc32c\"}" : "")
              + "]"
              + ", \"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}"
              + ((variant & 2) != 0 ? ", {\"name\": \"crc32c\"}" : "")
              + "]"
              + ", \"index_location\": \""
              + ((variant & 1) != 0 ? "start" : "end")
              + "\"}";
      try {
        CODECS[variant] =
            (ShardingCodec)
                CodecRegistry.defaults()
                    .create(new CodecSpec("sharding_indexed", Json.readTree(config)), shard);
      } catch (JsonProcessingException e) {
        throw new AssertionError(config, e);
      }
    }
  }

  @FuzzTest
  void shard(byte[] input) {
    if (input.length < 1) {
      return;
    }
    ShardingCodec codec = CODECS[(input[0] & 0xff) % CODECS.length];
    FuzzChecks.run(
        allocator -> {
          try (ArrowBuf encoded = FuzzChecks.buffer(allocator, input, 1, input.length);
              ArrowBuf target = allocator.buffer(CHUNK_BYTES + 2 * GUARD)) {
            target.setOne(0, CHUNK_BYTES + 2 * GUARD);
            try {
              codec.decodeInto(
                  encoded,
                  new ChunkSpec(SHAPE, DataType.UINT16, FillValue.zero(DataType.UINT16)),
                  SlabView.whole(target, GUARD, 2, SHAPE),
                  allocator);
            } finally {
              for (long i = 0; i < GUARD; i++) {
                assertEquals(-1, target.getByte(i), "byte written before the chunk");
                assertEquals(
                    -1, target.getByte(GUARD + CHUNK_BYTES + i), "byte written after the chunk");
              }
            }
          }
        });
  }
}
