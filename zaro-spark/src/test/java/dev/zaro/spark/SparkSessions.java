package dev.zaro.spark;

import org.apache.spark.sql.SparkSession;

/**
 * The test SparkSession: local, loopback only, no UI, no adaptive plans (so plans show their
 * scans).
 */
final class SparkSessions {
  private SparkSessions() {}

  static SparkSession local(String master) {
    return SparkSession.builder()
        .master(master)
        .appName("zaro-spark-test")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate();
  }
}
