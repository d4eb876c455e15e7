package dev.zaro.arrow.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.memory.BlockPool;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A read's output comes from {@link BlockPool#shared()}, so it may be a block an earlier output
 * left full of other values: reads whose chunks, shards or inner chunks are missing still give the
 * fill value there (zero included: nothing relies on fresh memory being zeroed).
 *
 * <p>The arrays are written here as the Zarr v3 spec lays them out: {@code bytes} codec,
 * little-endian uint16, one stored (inner) chunk of 257s, the rest missing, so the expected values
 * are the spec's (the stored chunk's values where it is, the fill value elsewhere).
 */
class ReusedOutputTest extends AllocatorTest {
  private static final int N = 1024; // 2 MiB of uint16: above BlockPool.MIN_BYTES
  private static final int STORED = 257;

  @ParameterizedTest(name = "sharded={0} fill={1}")
  @CsvSource({"false, 0", "false, 7", "true, 0", "true, 7"})
  void missingChunksGiveTheFillValueInAReusedBlock(boolean sharded, int fill, @TempDir Path dir)
      throws IOException {
    Path array = dir.resolve("a.zarr");
    write(array, sharded, fill);
    try (Zaro zaro = Zaro.open(array.toString(), ZaroOptions.defaults().withThreads(2))) {
      for (int round = 0; round < 3; round++) {
        // an earlier output of the same size, full of garbage, freed into the pool
        try (ArrowBuf dirty = BlockPool.shared().buffer(allocator, 2L * N * N)) {
          MemoryUtil.setMemory(dirty.memoryAddress(), dirty.capacity(), (byte) 0xA5);
        }
        long reusedBefore = BlockPool.shared().reused();
        try (Slab slab = zaro.read("", "", allocator)) {
          assertTrue(BlockPool.shared().reused() > reusedBefore, "the read reused a block");
          ArrowBuf data = slab.data();
          assertEquals(2L * N * N, slab.byteSize());
          // the stored chunk covers [0, 128) x [0, 128) (an inner chunk of the first shard)
          int stored = sharded ? 128 : 256;
          for (int i = 0; i < N; i++) {
            for (int j = 0; j < N; j++) {
              int want = i < stored && j < stored ? STORED : fill;
              int got = Short.toUnsignedInt(data.getShort(2L * (i * (long) N + j)));
              if (got != want) {
                assertEquals(want, got, "element [" + i + ", " + j + "], round " + round);
              }
            }
          }
        }
      }
    }
  }

  /**
   * Unsharded: 256x256 chunks, only c/0/0 stored. Sharded: 512x512 shards of 128x128 inner chunks,
   * only shard c/0/0 stored, holding only its first inner chunk (index at the end, no checksum).
   */
  private static void write(Path array, boolean sharded, int fill) throws IOException {
    Files.createDirectories(array.resolve("c/0"));
    String bytes = "{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}";
    String codecs =
        sharded
            ? "[{\"name\":\"sharding_indexed\",\"configuration\":{\"chunk_shape\":[128,128],"
                + "\"codecs\":["
                + bytes
                + "],\"index_codecs\":["
                + bytes
                + "],\"index_location\":\"end\"}}]"
            : "[" + bytes + "]";
    int chunk = sharded ? 512 : 256;
    Files.writeString(
        array.resolve("zarr.json"),
        "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":["
            + N
            + ","
            + N
            + "],\"data_type\":\"uint16\",\"chunk_grid\":{\"name\":\"regular\",\"configuration\":"
            + "{\"chunk_shape\":["
            + chunk
            + ","
            + chunk
            + "]}},\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":"
            + fill
            + ",\"codecs\":"
            + codecs
            + "}");
    int inner = sharded ? 128 : 256;
    int innerBytes = 2 * inner * inner;
    int entries = sharded ? 16 : 0; // 4x4 inner chunks per shard
    ByteBuffer out = ByteBuffer.allocate(innerBytes + 16 * entries).order(ByteOrder.LITTLE_ENDIAN);
    for (int k = 0; k < inner * inner; k++) {
      out.putShort((short) STORED);
    }
    for (int e = 0; e < entries; e++) {
      out.putLong(e == 0 ? 0 : -1L).putLong(e == 0 ? innerBytes : -1L);
    }
    Files.write(array.resolve("c/0/0"), out.array());
  }
}
