package dev.zaro.spark;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Run by {@link ShadedJarIT} in a fresh JVM whose class path is Spark's jars, the shaded zaro-spark
 * jar and this class only: uses Spark's API alone, so everything zaro needs must come from the jar.
 * Exits non-zero (with the exception) when anything fails.
 */
public final class ShadedJarSmoke {
  private ShadedJarSmoke() {}

  public static void main(String[] args) {
    SparkSession spark =
        SparkSession.builder()
            .master("local[1]")
            .appName("zaro-spark-shaded-smoke")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .getOrCreate();
    try {
      Row row =
          spark
              .read()
              .format("zarr")
              .option("arrays", "t2m,precip")
              .option("slice", "0:2")
              .load(args[0])
              .selectExpr("count(*)", "count(precip)", "max(time)", "max(lat)")
              .first();
      String got = row.getLong(0) + " " + row.getLong(1) + " " + row.get(2) + " " + row.get(3);
      System.out.println("zaro-spark smoke: " + got);
      String want = args[1];
      if (!got.equals(want)) {
        throw new IllegalStateException("expected '" + want + "', got '" + got + "'");
      }
    } finally {
      spark.stop();
    }
  }
}
