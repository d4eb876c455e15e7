package dev.zaro.flight;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.read.ZarrArray;
import dev.zaro.arrow.vector.TableReader;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FloatingPointVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * A selection's table layout (CF-decoded, as {@code layout=table} streams it) as JSON for the
 * explorer page ({@code /arrays/{path}/values.json?slice=S}: {@code {"rows": n, "columns":
 * [{"name", "type", "values"}]}}, at most {@link #JSON_ROWS} rows) or as CSV for a download ({@code
 * values.csv}, at most {@link #CSV_ROWS} rows; larger selections go as Arrow streams). Times are
 * ISO-8601 text without a zone (UTC), NaN is JSON null (CSV {@code NaN}), a null is JSON null (CSV
 * empty). {@code values.parquet} (at most {@link #PARQUET_ROWS} rows) hands the table layout's
 * batches, typed as streamed, to the server's {@link ExplorerParquet}.
 */
final class SliceValues {
  static final long JSON_ROWS = 100_000;
  static final long CSV_ROWS = 1_000_000;
  static final long PARQUET_ROWS = 10_000_000;

  private SliceValues() {}

  static String json(ZaroFlightProducer producer, String node, Map<String, List<String>> params) {
    ObjectNode out = Json.createObjectNode();
    List<ArrayNode> columns = new ArrayList<>();
    read(
        producer,
        node,
        params,
        JSON_ROWS,
        "values.json",
        (names, types) -> {
          ArrayNode cols = out.put("rows", 0).putArray("columns");
          for (int c = 0; c < names.size(); c++) {
            ObjectNode col = cols.addObject().put("name", names.get(c)).put("type", types.get(c));
            columns.add(col.putArray("values"));
          }
        },
        (vectors, n) -> {
          for (int c = 0; c < vectors.size(); c++) {
            for (int r = 0; r < n; r++) {
              Object v = value(vectors.get(c), r);
              ArrayNode a = columns.get(c);
              if (v == null) {
                a.addNull();
              } else if (v instanceof Double d) {
                if (d.isNaN() || d.isInfinite()) {
                  a.addNull();
                } else {
                  a.add(d);
                }
              } else if (v instanceof Long l) {
                a.add(l);
              } else if (v instanceof Boolean b) {
                a.add(b);
              } else {
                a.add(v.toString());
              }
            }
          }
          out.put("rows", out.get("rows").asLong() + n);
        });
    return out.toString();
  }

  static String csv(ZaroFlightProducer producer, String node, Map<String, List<String>> params) {
    StringBuilder sb = new StringBuilder();
    read(
        producer,
        node,
        params,
        CSV_ROWS,
        "values.csv",
        (names, types) -> {
          for (int c = 0; c < names.size(); c++) {
            sb.append(c > 0 ? "," : "").append(quoted(names.get(c)));
          }
          sb.append('\n');
        },
        (vectors, n) -> {
          for (int r = 0; r < n; r++) {
            for (int c = 0; c < vectors.size(); c++) {
              Object v = value(vectors.get(c), r);
              sb.append(c > 0 ? "," : "");
              if (v instanceof Double d) {
                sb.append(d.isNaN() ? "NaN" : d.toString());
              } else if (v instanceof String s) {
                sb.append(quoted(s));
              } else if (v != null) {
                sb.append(v);
              }
            }
            sb.append('\n');
          }
        });
    return sb.toString();
  }

  static byte[] parquet(
      ZaroFlightProducer producer,
      String node,
      Map<String, List<String>> params,
      ExplorerParquet writer) {
    byte[][] out = new byte[1][];
    read(
        producer,
        node,
        params,
        PARQUET_ROWS,
        "values.parquet",
        (reader, allocator) -> out[0] = writer.write(reader, allocator));
    return out[0];
  }

  private interface Header {
    void accept(List<String> names, List<String> types);
  }

  private interface Rows {
    void accept(List<FieldVector> vectors, int n);
  }

  /** What is done with a selection's open reader. */
  private interface Body {
    void accept(TableReader reader, BufferAllocator allocator) throws IOException;
  }

  private static void read(
      ZaroFlightProducer producer,
      String node,
      Map<String, List<String>> params,
      long maxRows,
      String what,
      Header header,
      Rows rows) {
    read(
        producer,
        node,
        params,
        maxRows,
        what,
        (reader, allocator) -> {
          List<String> names = new ArrayList<>();
          List<String> types = new ArrayList<>();
          for (FieldVector v : reader.getVectorSchemaRoot().getFieldVectors()) {
            names.add(v.getName());
            types.add(v.getField().getType().toString());
          }
          header.accept(names, types);
          while (reader.loadNextBatch()) {
            rows.accept(
                reader.getVectorSchemaRoot().getFieldVectors(),
                reader.getVectorSchemaRoot().getRowCount());
          }
        });
  }

  private static void read(
      ZaroFlightProducer producer,
      String node,
      Map<String, List<String>> params,
      long maxRows,
      String what,
      Body body) {
    for (String name : params.keySet()) {
      if (!name.equals("slice")) {
        throw CallStatus.INVALID_ARGUMENT
            .withDescription("unknown query parameter '" + name + "' (" + what + " takes: slice)")
            .toRuntimeException();
      }
    }
    String slice = params.containsKey("slice") ? only(params, "slice") : "";
    Zaro zaro = producer.zaro();
    ZarrArray array = zaro.array(node);
    Selection selection = Selection.parse(slice, array.metadata().shape());
    if (selection.size() > maxRows) {
      throw CallStatus.INVALID_ARGUMENT
          .withDescription(
              what
                  + " answers at most "
                  + maxRows
                  + " values; slice '"
                  + selection
                  + "' of array '/"
                  + array.path()
                  + "' has "
                  + selection.size()
                  + " (read larger selections as Arrow: /arrays/{path}?layout=table)")
          .toRuntimeException();
    }
    long batchRows = Math.max(1, Math.min(selection.size(), 1 << 16));
    try (MemoryBudget.Lease lease =
            producer
                .budget()
                .acquire(
                    what + " '/" + array.path() + "'",
                    2 * 8 * batchRows * (selection.dims().size() + 2),
                    producer.limits().requestBytes(),
                    () -> false);
        TableReader reader =
            zaro.readTable(
                array.path(),
                selection,
                lease.allocator(),
                TableOptions.DEFAULT.withBatchRows(batchRows),
                producer.readOptions())) {
      body.accept(reader, lease.allocator());
    } catch (IOException e) {
      throw CallStatus.INTERNAL.withDescription(e.toString()).toRuntimeException();
    }
  }

  /** A cell as Double, Long, Boolean, String (times as ISO text), or null. */
  private static Object value(FieldVector v, int r) {
    if (v.isNull(r)) {
      return null;
    }
    if (v instanceof FloatingPointVector f) {
      return f.getValueAsDouble(r);
    }
    if (v instanceof UInt8Vector u) {
      return Long.toUnsignedString(u.get(r));
    }
    if (v instanceof BaseIntVector b) {
      return b.getValueAsLong(r);
    }
    if (v instanceof BitVector b) {
      return b.get(r) != 0;
    }
    if (v instanceof TimeStampVector t) {
      return time(t.get(r), ((ArrowType.Timestamp) t.getField().getType()).getUnit());
    }
    Object o = v.getObject(r);
    return o == null ? null : o.toString();
  }

  private static String time(long v, TimeUnit unit) {
    long nanosPer =
        switch (unit) {
          case SECOND -> 1_000_000_000L;
          case MILLISECOND -> 1_000_000L;
          case MICROSECOND -> 1_000L;
          case NANOSECOND -> 1L;
        };
    long perSecond = 1_000_000_000L / nanosPer;
    Instant t =
        Instant.ofEpochSecond(Math.floorDiv(v, perSecond), Math.floorMod(v, perSecond) * nanosPer);
    return DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(LocalDateTime.ofInstant(t, ZoneOffset.UTC));
  }

  private static String quoted(String s) {
    if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
      return s;
    }
    return '"' + s.replace("\"", "\"\"") + '"';
  }

  /** The one value of a query parameter; INVALID_ARGUMENT when it is absent or repeated. */
  static String only(Map<String, List<String>> params, String name) {
    List<String> v = params.get(name);
    if (v == null || v.size() != 1) {
      throw CallStatus.INVALID_ARGUMENT
          .withDescription(
              "query parameter '"
                  + name
                  + "' must be given once"
                  + (v == null ? "" : ", not " + v.size() + " times"))
          .toRuntimeException();
    }
    return v.get(0);
  }

  /** A download's file name: the array's path with '/' as '_' ("array" for a root array). */
  static String fileName(String node) {
    String s = node.replaceAll("^/+|/+$", "").replace('/', '_').replaceAll("[^A-Za-z0-9._-]", "_");
    return s.isEmpty() ? "array" : s;
  }
}
