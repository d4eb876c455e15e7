import dev.zaro.trino.server.LocalCluster;
import io.trino.plugin.hive.HivePlugin;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * zaro-trino against Trino's own Hive connector on the same table as Parquet, on one cluster
 * (coordinator + 2 workers, benchmarks/trino_bench.sh): the table of make_spark_dataset.py
 * (t2m float32 256 x 256 x 512 with CF time/lat/lon), Parquet through a file metastore on local
 * files. Prints the median of REPEAT runs of each query on each catalog, the two catalogs alternating
 * pass by pass after REPEAT untimed alternate passes.
 *
 * <p>java ... TrinoBenchmark.java DATA_DIR [REPEAT] [SPLIT_SIZE]
 */
public final class TrinoBenchmark {
  public static void main(String[] args) throws Exception {
    Path data = Path.of(args[0]).toAbsolutePath();
    int repeat = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    String splitSize = args.length > 2 ? args[2] : "128MB"; // the connector's default
    Path hive = data.resolve("hive");
    Path parquet = hive.resolve("parquet");
    Files.createDirectories(parquet);
    Files.deleteIfExists(parquet.resolve("table.parquet"));
    Files.createLink(parquet.resolve("table.parquet"), data.resolve("table.parquet")); // a hard link: the local file system reads a symbolic link's own length
    try (DistributedQueryRunner cluster =
        LocalCluster.start(
            Map.of("zarr.store", data.resolve("table.zarr").toString(), "zarr.split-size", splitSize),
            2,
            0)) {
      cluster.installPlugin(new HivePlugin());
      cluster.createCatalog(
          "hive",
          "hive",
          Map.of(
              "hive.metastore", "file",
              "hive.metastore.catalog.dir", "local:///metastore",
              "fs.native-local.enabled", "true",
              "local.location", hive.toString(),
              "hive.timestamp-precision", "MICROSECONDS"));
      cluster.execute("CREATE SCHEMA IF NOT EXISTS hive.bench");
      cluster.execute("DROP TABLE IF EXISTS hive.bench.t2m");
      cluster.execute(
          "CREATE TABLE hive.bench.t2m (time timestamp(6), lat double, lon double, t2m real)"
              + " WITH (format = 'PARQUET', external_location = 'local:///parquet')");
      String[][] queries = {
        {"full scan avg/count", "select avg(t2m), count(*) from %s"},
        {
          "1/16 of time",
          "select avg(t2m), count(*) from %s where time < TIMESTAMP '2020-01-05 00:00:00'"
        },
        // Trino's floor per query: a range that keeps nothing plans no split
        {
          "empty range",
          "select avg(t2m), count(*) from %s where time < TIMESTAMP '2019-01-05 00:00:00'"
        },
        {
          "daily means, 30-60N",
          "select date_trunc('day', time), avg(t2m) from %s where lat between 30 and 60"
              + " group by 1 order by 1"
        },
      };
      System.err.printf("zarr.split-size %s, median of %d%n", splitSize, repeat);
      System.err.printf("%-22s %10s %10s %8s%n", "query", "zaro s", "hive s", "ratio");
      for (String[] q : queries) {
        String zaro = q[1].formatted("zarr.\"default\".t2m");
        String parquetSql = q[1].formatted("hive.bench.t2m");
        check(cluster.execute(zaro), cluster.execute(parquetSql), q[0]);
        double[] zh = medians(cluster, zaro, parquetSql, repeat);
        double z = zh[0];
        double h = zh[1];
        System.err.printf("%-22s %10.3f %10.3f %8.2f%n", q[0], z, h, z / h);
      }
    }
  }

  /** The same answer (counts exactly, averages to 9 digits): both read the same rows. */
  private static void check(MaterializedResult a, MaterializedResult b, String name) {
    String x = a.getMaterializedRows().toString().replaceAll("(\\d\\.\\d{6})\\d*", "$1");
    String y = b.getMaterializedRows().toString().replaceAll("(\\d\\.\\d{6})\\d*", "$1");
    if (!x.equals(y)) {
      throw new AssertionError(name + ": zaro " + x + " but hive " + y);
    }
  }

  /**
   * Medians of {@code repeat} passes of each query, run alternately pass by pass after as many
   * untimed alternate passes: both connectors share Trino's engine, whose operators compile while
   * the first queries run, so a block of one query before the other favoured the one run second.
   */
  private static double[] medians(
      DistributedQueryRunner cluster, String a, String b, int repeat) {
    for (int i = 0; i < repeat; i++) {
      cluster.execute(a);
      cluster.execute(b);
    }
    List<Double> as = new ArrayList<>();
    List<Double> bs = new ArrayList<>();
    for (int i = 0; i < repeat; i++) {
      as.add(seconds(cluster, a));
      bs.add(seconds(cluster, b));
    }
    return new double[] {median(as), median(bs)};
  }

  private static double seconds(DistributedQueryRunner cluster, String sql) {
    long t = System.nanoTime();
    cluster.execute(sql);
    return (System.nanoTime() - t) / 1e9;
  }

  private static double median(List<Double> seconds) {
    Collections.sort(seconds);
    return seconds.get(seconds.size() / 2);
  }
}
