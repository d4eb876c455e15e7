import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * zaro-spark against Spark's own Parquet reader on the same table and the same cores (local[2]),
 * and planning time against chunk count on metadata-only arrays. Run by benchmarks/spark_bench.sh;
 * prints one JSON object.
 *
 * Queries read every column: count, sum(t2m), max(time), min(lat), max(lon); the predicate keeps
 * the first 1/16 of the time dimension.
 */
public final class SparkBenchmark {
  static final String[] AGGREGATES = {"count(*)", "sum(t2m)", "max(time)", "min(lat)", "max(lon)"};

  public static void main(String[] args) throws Exception {
    Path data = Path.of(args[0]);
    int repeat = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    SparkSession spark = SparkSession.builder().master("local[2]").appName("zaro-spark-bench")
        .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.memory", "2g").getOrCreate();
    try {
      Supplier<Dataset<Row>> zarr = () -> spark.read().format("zarr").option("array", "t2m")
          .load(data.resolve("table.zarr").toString());
      Supplier<Dataset<Row>> parquet = () -> spark.read().parquet(data.resolve("table.parquet").toString());
      long times = zarr.get().select("time").distinct().count();
      String cut = "time < timestamp_ntz'2020-01-01 00:00' + make_dt_interval(0, " + (times / 16 * 6) + ")";
      Object[] full = {median(repeat, () -> run(zarr.get(), null)), median(repeat, () -> run(parquet.get(), null))};
      Object[] filtered = {median(repeat, () -> run(zarr.get(), cut)), median(repeat, () -> run(parquet.get(), cut))};
      // the floor: one time step, what a query costs besides reading (analysis, planning, scheduling)
      String step = "time = timestamp_ntz'2020-01-01 00:00'";
      double oneStep = median(repeat, () -> run(zarr.get(), step));
      check(zarr.get(), parquet.get(), null);
      check(zarr.get(), parquet.get(), cut);
      StringBuilder planning = new StringBuilder();
      Path tmp = Files.createTempDirectory("zaro-plan-bench");
      for (int exp = 4; exp <= 7; exp++) {
        // shape (10^(exp-4) * 10, 1000, 1000) float32 in chunks of 10^3 elements: 10^exp chunks, none written
        long first = (long) Math.pow(10, exp - 4);
        Path store = tmp.resolve("chunks_1e" + exp);
        Files.createDirectories(store);
        Files.writeString(store.resolve("zarr.json"), "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":["
            + first * 10 + ",1000,1000],\"data_type\":\"float32\",\"chunk_grid\":{\"name\":\"regular\","
            + "\"configuration\":{\"chunk_shape\":[10,10,10]}},\"chunk_key_encoding\":{\"name\":\"default\"},"
            + "\"fill_value\":0,\"codecs\":[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}]}");
        int[] partitions = new int[2];
        double all = median(repeat, () -> partitions[0] = spark.read().format("zarr").option("array", "/")
            .load(store.toString()).rdd().getNumPartitions());
        double some = median(repeat, () -> partitions[1] = spark.read().format("zarr").option("array", "/")
            .load(store.toString()).filter("dim_0 < " + Math.max(1, first * 10 / 16)).rdd().getNumPartitions());
        planning.append(planning.length() == 0 ? "" : ", ").append(String.format(
            "{\"chunks\": 1e%d, \"seconds\": %.4f, \"partitions\": %d, \"seconds_1_16\": %.4f, \"partitions_1_16\": %d}",
            exp, all, partitions[0], some, partitions[1]));
      }
      System.out.printf("{\"rows\": %d, \"zarr_full_s\": %.3f, \"parquet_full_s\": %.3f, \"zarr_1_16_s\": %.3f,"
          + " \"parquet_1_16_s\": %.3f, \"zarr_one_step_s\": %.3f, \"full_ratio\": %.2f, \"zarr_1_16_over_full\": %.3f,"
          + " \"planning\": [%s]}%n",
          zarr.get().count(), full[0], full[1], filtered[0], filtered[1], oneStep, (Double) full[0] / (Double) full[1],
          (Double) filtered[0] / (Double) full[0], planning);
    } finally {
      spark.stop();
    }
  }

  static Row run(Dataset<Row> df, String filter) {
    return (filter == null ? df : df.filter(filter)).selectExpr(AGGREGATES).first();
  }

  /** Both readers give the same answer (sums to float rounding), or the benchmark stops. */
  static void check(Dataset<Row> zarr, Dataset<Row> parquet, String filter) {
    Row a = run(zarr, filter);
    Row b = run(parquet, filter);
    boolean same = a.getLong(0) == b.getLong(0) && Math.abs(a.getDouble(1) - b.getDouble(1)) <= 1e-6 * Math.abs(b.getDouble(1))
        && a.get(2).equals(b.get(2)) && a.get(3).equals(b.get(3)) && a.get(4).equals(b.get(4));
    if (!same) {
      throw new IllegalStateException("zarr " + a + " != parquet " + b + (filter == null ? "" : " where " + filter));
    }
  }

  interface Body {
    Object run() throws Exception;
  }

  /** Median seconds of {@code repeat} runs after one warm-up run. */
  static double median(int repeat, Body body) throws Exception {
    body.run();
    List<Double> seconds = new ArrayList<>();
    for (int i = 0; i < repeat; i++) {
      long t0 = System.nanoTime();
      body.run();
      seconds.add((System.nanoTime() - t0) / 1e9);
    }
    double[] s = seconds.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return s[s.length / 2];
  }
}
