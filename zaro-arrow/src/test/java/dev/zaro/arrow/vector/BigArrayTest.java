package dev.zaro.arrow.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.SlabTooLargeException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.store.MemoryStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Arrays bigger than memory (issue 26): synthetic arrays of metadata alone (every chunk missing, so
 * every value is the fill value) read as one slab are refused before anything is allocated;
 * streamed, they stay within Arrow's int limits; a file that cannot fit its disk is refused.
 */
class BigArrayTest extends AllocatorTest {
  @TempDir Path dir;

  /** A v3 array of metadata alone: {@code shape}, {@code chunks}, {@code type}, fill value 7. */
  private static Zaro synthetic(String type, long[] shape, long[] chunks) {
    String meta =
        "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":"
            + Arrays.toString(shape)
            + ",\"data_type\":\""
            + type
            + "\",\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":"
            + Arrays.toString(chunks)
            + "}},\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":7,"
            + "\"codecs\":[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}]}";
    return Zaro.open(new MemoryStore().put("big/zarr.json", meta), ZaroOptions.defaults());
  }

  /** float32 [100000, 100000, 1000]: 40 TB. */
  private static Zaro fortyTerabytes() {
    return synthetic("float32", new long[] {100000, 100000, 1000}, new long[] {10, 1000, 1000});
  }

  @Test
  void aFortyTerabyteSlabIsRefusedBeforeAllocating() {
    try (Zaro zaro = fortyTerabytes()) {
      SlabTooLargeException e =
          assertThrows(SlabTooLargeException.class, () -> zaro.read("big", "", allocator));
      assertEquals(ErrorKind.INVALID_ARGUMENT, e.kind());
      assertEquals(40_000_000_000_000L, e.bytes());
      assertTrue(e.getMessage().contains("'/big'"), e.getMessage());
      assertTrue(e.getMessage().contains("40000000000000 bytes"), e.getMessage());
      assertTrue(e.getMessage().contains("Zaro.readTensor"), e.getMessage());
      assertEquals(0, allocator.getPeakMemoryAllocation(), "nothing allocated");
    }
  }

  /** Within the int limits but beyond the allocator's limit: the limit is named. */
  @Test
  void aSlabOverTheAllocatorsLimitIsRefusedNamingIt() {
    try (Zaro zaro = fortyTerabytes();
        BufferAllocator small = allocator.newChildAllocator("small", 0, 1 << 20)) {
      SlabTooLargeException e =
          assertThrows(SlabTooLargeException.class, () -> zaro.read("big", "0:1, 0:1000", small));
      assertEquals(4_000_000, e.bytes());
      assertEquals(1 << 20, e.limit());
      assertTrue(e.getMessage().contains("4000000 bytes"), e.getMessage());
      assertTrue(e.getMessage().contains("1048576"), e.getMessage());
      assertEquals(0, small.getPeakMemoryAllocation());
    }
  }

  /** A row of 10^10 values cannot be a tensor column: refused, saying to slice the rest. */
  @Test
  void aRowPastArrowsVectorLimitIsRefusedWhenStreaming() {
    try (Zaro zaro =
        synthetic("uint8", new long[] {10, 100000, 100000}, new long[] {1, 1000, 1000})) {
      Selection all = Selection.all(zaro.meta("big").shape());
      ZaroException e =
          assertThrows(
              ZaroException.class,
              () -> zaro.readTensor("big", all, allocator, 1 << 20, ReadOptions.DEFAULT));
      assertEquals(ErrorKind.INVALID_ARGUMENT, e.kind());
      assertTrue(e.getMessage().contains("10000000000 values"), e.getMessage());
      assertTrue(e.getMessage().contains("slice the trailing dimensions"), e.getMessage());
      assertEquals(0, allocator.getPeakMemoryAllocation());
    }
  }

  /**
   * A slice of the 40 TB array streamed in batches of at most 100 KB (two rows of 40 KB): blocks of
   * one chunk run (10 rows) each, five batches per full block, every value the fill value; the same
   * stream through the C Data Interface gives the same rows.
   */
  @Test
  void streamsInBoundedBatches() throws IOException {
    try (Zaro zaro = fortyTerabytes()) {
      Selection slice = Selection.parse("0:25, 0:10, :", zaro.meta("big").shape());
      try (TensorReader reader =
          zaro.readTensor("big", slice, allocator, 100_000, ReadOptions.DEFAULT)) {
        assertEquals(2, reader.rowsPerBatch());
        int batches = 0;
        long rows = 0;
        while (reader.loadNextBatch()) {
          FixedShapeTensorVector v =
              (FixedShapeTensorVector) reader.getVectorSchemaRoot().getVector(0);
          FixedSizeListVector list = v.getUnderlyingVector();
          Float4Vector values = (Float4Vector) list.getDataVector();
          assertTrue(v.getValueCount() <= 2);
          assertEquals(v.getValueCount() * 10_000L, values.getValueCount());
          for (int i = 0; i < values.getValueCount(); i += 997) {
            assertEquals(7f, values.get(i));
          }
          rows += v.getValueCount();
          batches++;
          assertTrue(
              allocator.getAllocatedMemory() <= 2 * 10 * 40_000, // Arrow rounds up to 2^k
              "one block held, not " + allocator.getAllocatedMemory());
        }
        assertEquals(25, rows);
        assertEquals(13, batches, "blocks of 10, 10, 5 rows, two rows a batch");
      }
      try (BufferAllocator consumer = new RootAllocator();
          TensorReader reader =
              zaro.readTensor("big", slice, allocator, 100_000, ReadOptions.DEFAULT);
          ArrowArrayStream stream = CData.export(reader, allocator);
          ArrowReader imported = Data.importArrayStream(consumer, stream)) {
        long rows = 0;
        while (imported.loadNextBatch()) {
          rows += imported.getVectorSchemaRoot().getRowCount();
        }
        assertEquals(25, rows);
      }
    }
  }

  /** The file's size bound covers the 40 TB of values, plus little. */
  @Test
  void sizeBoundCoversTheValues() {
    try (Zaro zaro = fortyTerabytes();
        TensorReader reader =
            zaro.readTensor(
                "big",
                Selection.all(zaro.meta("big").shape()),
                allocator,
                TensorReader.DEFAULT_BATCH_BYTES,
                ReadOptions.DEFAULT)) {
      long bound = ArrowFiles.sizeBound(reader.getVectorSchemaRoot().getSchema(), 100_000, 200_001);
      assertTrue(bound >= 40_000_000_000_000L && bound < 40_001_000_000_000L, "bound " + bound);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** A file system with less room than the file needs: refused with both numbers, no file left. */
  @Test
  void aFullDiskIsRefusedWithTheNumbers() throws IOException {
    Path target = dir.resolve("big.arrow");
    try (Zaro zaro = fortyTerabytes();
        TensorReader reader =
            zaro.readTensor(
                "big",
                Selection.parse("0:25, 0:10, :", zaro.meta("big").shape()),
                allocator,
                100_000,
                ReadOptions.DEFAULT)) {
      long expected = ArrowFiles.sizeBound(reader.getVectorSchemaRoot().getSchema(), 25, 30);
      ZaroException e =
          assertThrows(
              ZaroException.class, () -> ArrowFiles.write(reader, target, expected, d -> 999_999));
      assertEquals(ErrorKind.IO, e.kind());
      assertTrue(e.getMessage().contains(expected + " bytes"), e.getMessage());
      assertTrue(e.getMessage().contains("999999 bytes free"), e.getMessage());
      try (Stream<Path> files = Files.list(dir)) {
        assertEquals(0, files.count(), "no file left");
      }
      assertEquals(0, allocator.getAllocatedMemory(), "nothing read");
      // with room, the same reader writes the file, which Arrow reads back
      assertEquals(25, ArrowFiles.write(reader, target, expected, d -> expected));
    }
    try (ArrowFileReader file = new ArrowFileReader(Files.newByteChannel(target), allocator)) {
      long rows = 0;
      while (file.loadNextBatch()) {
        rows += file.getVectorSchemaRoot().getRowCount();
      }
      assertEquals(25, rows);
      assertTrue(
          Files.size(target)
              <= ArrowFiles.sizeBound(file.getVectorSchemaRoot().getSchema(), 25, 30));
    }
    assertFalse(Files.exists(dir.resolve(".big.arrow.tmp")));
  }
}
