package dev.zaro.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.vector.TableReader;
import java.time.LocalDateTime;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * Two executor JVMs (Spark's local-cluster mode, executors launched from this test's class path):
 * what the driver sends (scan options, partitions, reader factory) is really serialized, and
 * executors reopen the store themselves.
 */
class ClusterTest {

  @Test
  void readsOnTwoExecutorJvms() throws Exception {
    String flags = System.getProperty("zaro.spark.jvmFlags", "");
    SparkSession spark =
        SparkSession.builder()
            .master("local-cluster[2,1,1024]")
            .appName("zaro-spark-cluster-test")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.adaptive.enabled", "false")
            .config("spark.executor.memory", "512m")
            .config("spark.executor.extraClassPath", System.getProperty("java.class.path"))
            .config("spark.executor.extraJavaOptions", flags)
            // Spark's launcher builds the executor command; outside a Spark distribution it needs
            // to be told the Scala version and not to look for the distribution's jars directory
            .config("spark.executorEnv.SPARK_SCALA_VERSION", "2.13")
            .config("spark.executorEnv.SPARK_TESTING", "1")
            .getOrCreate();
    try {
      Set<String> executors = ConcurrentHashMap.newKeySet();
      spark
          .sparkContext()
          .addSparkListener(
              new SparkListener() {
                @Override
                public void onTaskEnd(SparkListenerTaskEnd end) {
                  executors.add(end.taskInfo().executorId());
                }
              });
      while (spark.sparkContext().getExecutorMemoryStatus().size()
          < 3) { // the driver and two executors
        Thread.sleep(100);
      }
      Row row =
          spark
              .read()
              .format("zarr")
              .option("array", "t2m")
              .option("partitionBytes", "64k")
              .load(Fixtures.sample().toString())
              .selectExpr("count(*)", "sum(cast(t2m as double))", "min(time)", "max(lat)")
              .first();
      double sum = 0;
      long rows = 0;
      try (BufferAllocator allocator = new RootAllocator();
          Zaro zaro = Zaro.open(Fixtures.sample().toString());
          TableReader reader =
              zaro.readTable("t2m", "", allocator, TableOptions.DEFAULT, ReadOptions.DEFAULT)) {
        while (reader.loadNextBatch()) {
          Float4Vector t2m = (Float4Vector) reader.getVectorSchemaRoot().getVector("t2m");
          for (int i = 0; i < t2m.getValueCount(); i++, rows++) {
            sum += t2m.get(i);
          }
        }
      }
      assertEquals(rows, row.getLong(0));
      assertEquals(sum, row.getDouble(1), Math.abs(sum) * 1e-12);
      assertEquals(LocalDateTime.of(2020, 1, 1, 0, 0), row.get(2));
      assertEquals(90.0, row.getDouble(3));
      assertTrue(executors.size() >= 2, "tasks ran on executors " + executors);
      assertTrue(!executors.contains("driver"), "tasks ran on executors " + executors);
    } finally {
      spark.stop();
    }
  }
}
