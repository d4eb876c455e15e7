package dev.zaro.arrow.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.memory.BlockPool;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.store.FileStore;
import dev.zaro.arrow.store.MemoryStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.TransferPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Who owns a table batch's buffers (docs/ARCHITECTURE.md, "Memory"): a batch a consumer keeps
 * (transferred out of the reader's root) stays intact while later batches load, although the reader
 * shares unchanged dimension columns between batches; nothing leaks however the stream ends.
 *
 * <p>testdata/sql/grid.zarr's v (z=16, y=12, x=10, chunks 4, 6, 5), the generator's numpy values:
 * v[z, y, x] = 100 z + 10 y + x + 0.25 as float32, NaN at [3, 2, 1] and [9, 0, :]; coordinates z =
 * 0.1 k (float32) and y = 100 - 5 k (int32); x has none (the int64 index).
 */
class TableBatchBuffersTest extends AllocatorTest {

  private static Zaro grid() {
    return Zaro.open(Fixtures.testdata().resolve("sql/grid.zarr").toString());
  }

  /**
   * Every batch is kept (alternately in the reader's allocator and in another one) until the stream
   * ends, then compared with numpy's values: a dimension column buffer written again while a kept
   * batch still holds it would show a later batch's values. Batch sizes cover columns shared by
   * every batch (10: x; 120: y and x), changing every batch, and batches cut across blocks.
   */
  @ParameterizedTest
  @CsvSource({
    "'', 7",
    "'', 10",
    "'', 120",
    "'', 1000",
    "'1:15:3, 2:11, ::2', 5",
    "'1:15:3, 2:11, ::2', 45",
    "'1:15:3, 2:11, ::2', 13"
  })
  void keptBatchesStayIntact(String slice, long batchRows) throws Exception {
    List<List<FieldVector>> kept = new ArrayList<>();
    try (BufferAllocator other = allocator.newChildAllocator("kept", 0, Long.MAX_VALUE)) {
      try (Zaro zaro = grid()) {
        Selection selection = Selection.parse(slice, zaro.meta("v").shape());
        try (TableReader reader =
            zaro.readTable(
                "v",
                slice,
                allocator,
                TableOptions.DEFAULT.withBatchRows(batchRows),
                ReadOptions.DEFAULT)) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          while (reader.loadNextBatch()) {
            List<FieldVector> batch = new ArrayList<>();
            for (FieldVector v : root.getFieldVectors()) {
              TransferPair pair = v.getTransferPair(kept.size() % 2 == 0 ? allocator : other);
              pair.transfer();
              batch.add((FieldVector) pair.getTo());
            }
            kept.add(batch);
          }
        }
        // the reader is closed: the kept batches alone hold their buffers
        long row = 0;
        for (List<FieldVector> batch : kept) {
          row = check(batch, selection, row);
        }
        assertEquals(selection.size(), row);
      } finally {
        kept.forEach(b -> b.forEach(FieldVector::close));
      }
      assertEquals(0, other.getAllocatedMemory());
    }
    assertEquals(0, allocator.getAllocatedMemory());
  }

  /** Checks rows {@code [first, first + batch rows)} of the table of {@code selection} of v. */
  private static long check(List<FieldVector> batch, Selection selection, long first) {
    Float4Vector z = (Float4Vector) batch.get(0);
    IntVector y = (IntVector) batch.get(1);
    BigIntVector x = (BigIntVector) batch.get(2);
    Float4Vector v = (Float4Vector) batch.get(3);
    Selection.Dim sz = selection.dims().get(0);
    Selection.Dim sy = selection.dims().get(1);
    Selection.Dim sx = selection.dims().get(2);
    for (FieldVector column : batch) {
      // every column shares the reader's all-valid buffer: a stray bit would be a null here
      assertEquals(0, column.getNullCount(), column.getName() + " nulls from row " + first);
    }
    long row = first;
    for (int i = 0; i < v.getValueCount(); i++, row++) {
      long kz = sz.start() + row / (sy.count() * sx.count()) * sz.step();
      long ky = sy.start() + row / sx.count() % sy.count() * sy.step();
      long kx = sx.start() + row % sx.count() * sx.step();
      assertEquals((float) (kz * 0.1), z.get(i), "z of row " + row);
      assertEquals(100 - 5 * ky, y.get(i), "y of row " + row);
      assertEquals(kx, x.get(i), "x of row " + row);
      boolean nan = (kz == 3 && ky == 2 && kx == 1) || (kz == 9 && ky == 0);
      float want = nan ? Float.NaN : (float) (100 * kz + 10 * ky + kx + 0.25);
      assertEquals(want, v.get(i), "v of row " + row);
    }
    return row;
  }

  /**
   * Dimension column buffers of a MiB or more come from the block pool, which hands out a freed
   * block with its last user's bytes: every byte is written before a batch holds it, so blocks of
   * the columns' size poisoned beforehand never show. Index columns (no coordinate arrays) hold
   * each row's position along their dimension; only the dimension columns are read (no chunk is).
   */
  @Test
  void pooledDimensionBuffersAreWrittenWhole() throws Exception {
    long rows = 1 << 17; // 1 MiB of int64 per column and batch: the pool's smallest block
    BlockPool pool = BlockPool.shared();
    assumeTrue(pool.capacity() >= 8 * rows * 8, "block pool off or small");
    List<ArrowBuf> poison = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      ArrowBuf b = pool.buffer(allocator, rows * 8);
      MemoryUtil.setMemory(b.memoryAddress(), rows * 8, (byte) 0x5a);
      poison.add(b);
    }
    poison.forEach(ArrowBuf::close);
    long reusedBefore = pool.reused();
    MemoryStore store = new MemoryStore();
    store.put("zarr.json", "{\"zarr_format\": 3, \"node_type\": \"group\"}");
    store.put(
        "v/zarr.json",
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [4, 256, 512],"
            + " \"data_type\": \"int8\", \"chunk_grid\": {\"name\": \"regular\","
            + " \"configuration\": {\"chunk_shape\": [2, 256, 512]}}, \"chunk_key_encoding\":"
            + " {\"name\": \"default\"}, \"fill_value\": 0, \"codecs\": [{\"name\":"
            + " \"bytes\"}], \"dimension_names\": [\"a\", \"b\", \"c\"]}");
    long row = 0;
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults());
        TableReader reader =
            zaro.readTable(
                "v",
                "",
                allocator,
                TableOptions.DEFAULT.withBatchRows(rows).withColumns(List.of("a", "b", "c")),
                ReadOptions.DEFAULT)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      while (reader.loadNextBatch()) {
        BigIntVector a = (BigIntVector) root.getVector("a");
        BigIntVector b = (BigIntVector) root.getVector("b");
        BigIntVector c = (BigIntVector) root.getVector("c");
        for (int i = 0; i < root.getRowCount(); i++, row++) {
          assertEquals(row / (256 * 512), a.get(i), "a of row " + row);
          assertEquals(row / 512 % 256, b.get(i), "b of row " + row);
          assertEquals(row % 512, c.get(i), "c of row " + row);
        }
      }
    }
    assertEquals(4L * 256 * 512, row);
    assertTrue(pool.reused() > reusedBefore, "no pooled block was reused");
    assertEquals(0, allocator.getAllocatedMemory());
  }

  /** A reader closed mid-stream frees everything; a batch kept from it stays valid until closed. */
  @Test
  void closedMidStreamLeaksNothing() throws Exception {
    try (Zaro zaro = grid()) {
      Selection selection = Selection.parse("", zaro.meta("v").shape());
      List<FieldVector> kept = new ArrayList<>();
      try {
        try (TableReader reader =
            zaro.readTable(
                "v", "", allocator, TableOptions.DEFAULT.withBatchRows(100), ReadOptions.DEFAULT)) {
          assertTrue(reader.loadNextBatch());
          assertTrue(reader.loadNextBatch());
          for (FieldVector v : reader.getVectorSchemaRoot().getFieldVectors()) {
            TransferPair pair = v.getTransferPair(allocator);
            pair.transfer();
            kept.add((FieldVector) pair.getTo());
          }
          assertTrue(reader.loadNextBatch());
        }
        assertEquals(200, check(kept, selection, 100));
      } finally {
        kept.forEach(FieldVector::close);
      }
      try (TableReader reader = zaro.readTable("v", "", allocator)) {
        assertTrue(reader.loadNextBatch());
      }
      assertEquals(0, allocator.getAllocatedMemory());
    }
  }

  /**
   * A read that fails mid-stream (a corrupt chunk in the third block of z, or a cancellation after
   * the first batch) throws a ZaroException and, once closed, leaves nothing allocated.
   */
  @Test
  void failedReadLeaksNothing() throws Exception {
    MemoryStore store = new MemoryStore();
    try (FileStore files = new FileStore(Fixtures.testdata().resolve("sql/grid.zarr"))) {
      store.putAll(files);
    }
    store.put("v/c/2/1/0", new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults())) {
      int[] batches = {0};
      ZaroException e =
          assertThrows(
              ZaroException.class,
              () -> drain(zaro, "", 100, ReadOptions.DEFAULT, () -> batches[0]++));
      assertTrue(e.getMessage().contains("v/c/2/1/0"), e.getMessage());
      // the first two blocks (z 0..7, 960 rows) stream before the corrupt chunk is read
      assertTrue(batches[0] >= 9, batches[0] + " batches");
      assertEquals(0, allocator.getAllocatedMemory());

      AtomicBoolean cancelled = new AtomicBoolean();
      assertThrows(
          ZaroException.class,
          () ->
              drain(
                  zaro,
                  "0:8",
                  10,
                  ReadOptions.DEFAULT.withCancellation(cancelled::get),
                  () -> cancelled.set(true)));
      assertEquals(0, allocator.getAllocatedMemory());
    }
  }

  /** Streams the table of v's {@code slice}, running {@code each} after every batch. */
  private void drain(Zaro zaro, String slice, long batchRows, ReadOptions options, Runnable each)
      throws Exception {
    try (TableReader reader =
        zaro.readTable(
            "v", slice, allocator, TableOptions.DEFAULT.withBatchRows(batchRows), options)) {
      while (reader.loadNextBatch()) {
        each.run();
      }
    }
  }
}
