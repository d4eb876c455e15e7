package dev.zaro.spark;

import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The scan's Spark metrics (shown on the SQL tab, summed over tasks), from zaro's {@code
 * ReadStats}: chunks decoded (inner chunks, for sharded arrays), encoded bytes fetched from the
 * store, decoded bytes of the values read.
 */
public final class ZarrMetrics {
  private ZarrMetrics() {}

  static final String CHUNKS_READ = "chunksRead";
  static final String BYTES_FETCHED = "bytesFetched";
  static final String BYTES_DECODED = "bytesDecoded";

  static CustomMetric[] all() {
    return new CustomMetric[] {new ChunksRead(), new BytesFetched(), new BytesDecoded()};
  }

  static CustomTaskMetric task(String name, long value) {
    return new CustomTaskMetric() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public long value() {
        return value;
      }
    };
  }

  /** Chunks read by the scan. */
  public static final class ChunksRead extends CustomSumMetric {
    @Override
    public String name() {
      return CHUNKS_READ;
    }

    @Override
    public String description() {
      return "chunks read";
    }
  }

  /** Bytes the scan fetched from the store. */
  public static final class BytesFetched extends CustomSumMetric {
    @Override
    public String name() {
      return BYTES_FETCHED;
    }

    @Override
    public String description() {
      return "bytes fetched";
    }
  }

  /** Bytes of values the scan decoded. */
  public static final class BytesDecoded extends CustomSumMetric {
    @Override
    public String name() {
      return BYTES_DECODED;
    }

    @Override
    public String description() {
      return "bytes decoded";
    }
  }
}
