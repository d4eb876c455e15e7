package dev.zaro.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.vector.TableReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.Test;

/**
 * The partition reader without Spark: arrays chunked differently (t2m in shards of 12 time steps,
 * precip in 24) stream batches of different lengths, and each Spark batch is the part both still
 * hold, values in place.
 */
class ZarrPartitionReaderTest {

  @Test
  void alignsArraysWhoseBatchesDiffer() throws Exception {
    ZarrOptions options =
        ZarrOptions.parse(Map.of("path", Fixtures.sample().toString(), "arrays", "t2m,precip"));
    List<Float> t2m = new ArrayList<>();
    List<Double> precip = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator();
        Zaro zaro = Zaro.open(Fixtures.sample().toString())) {
      TableOptions small = TableOptions.DEFAULT.withBatchRows(30_000);
      try (TableReader reader =
          zaro.readTable("t2m", "5:40", allocator, small, ReadOptions.DEFAULT)) {
        while (reader.loadNextBatch()) {
          Float4Vector v = (Float4Vector) reader.getVectorSchemaRoot().getVector("t2m");
          for (int i = 0; i < v.getValueCount(); i++) {
            t2m.add(v.get(i));
          }
        }
      }
      try (TableReader reader =
          zaro.readTable("precip", "5:40", allocator, small, ReadOptions.DEFAULT)) {
        while (reader.loadNextBatch()) {
          Float8Vector v = (Float8Vector) reader.getVectorSchemaRoot().getVector("precip");
          for (int i = 0; i < v.getValueCount(); i++) {
            precip.add(v.isNull(i) ? null : v.get(i));
          }
        }
      }
    }
    int shifted = 0;
    int row = 0;
    // columns: lat (dimension 1), t2m (array 0), precip (array 1)
    try (ZarrPartitionReader reader =
        new ZarrPartitionReader(
            options, "5:40", List.of("t2m", "precip"), new int[] {-2, 0, 1}, 30_000)) {
      while (reader.next()) {
        ColumnarBatch batch = reader.get();
        shifted +=
            batch.column(1) instanceof ShiftedColumnVector
                    || batch.column(2) instanceof ShiftedColumnVector
                ? 1
                : 0;
        for (int i = 0; i < batch.numRows(); i++, row++) {
          assertEquals(t2m.get(row), batch.column(1).getFloat(i), "t2m of row " + row);
          Double p = precip.get(row);
          assertEquals(p == null, batch.column(2).isNullAt(i), "precip null of row " + row);
          if (p != null) {
            assertEquals(p, batch.column(2).getDouble(i), "precip of row " + row);
          }
        }
      }
      assertTrue(reader.currentMetricsValues()[0].value() > 0, "chunks read");
    }
    assertEquals(35 * 73 * 144, row);
    assertTrue(shifted > 0, "the arrays' batches never differed; the test shows nothing");
  }
}
