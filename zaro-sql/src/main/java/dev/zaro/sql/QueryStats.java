package dev.zaro.sql;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.json.Json;
import java.util.List;

/**
 * What one statement read from the arrays: per table registered with DuckDB, the selection and
 * columns pushed into the read, and what the read cost ({@link dev.zaro.arrow.read.ReadStats}).
 */
public record QueryStats(List<TableRead> tables) {

  /**
   * One table as read for a statement.
   *
   * @param table the table's name (the array's path)
   * @param selection the selection read, canonical ({@code ""} parses back to everything)
   * @param columns the columns produced
   * @param plannedChunks chunks (shards, for sharded arrays) the selection touches
   * @param chunks chunks decoded (inner chunks, for sharded arrays)
   * @param bytes decoded value bytes
   * @param requests store requests
   * @param bytesFetched encoded bytes fetched from the store
   */
  public record TableRead(
      String table,
      String selection,
      List<String> columns,
      long plannedChunks,
      long chunks,
      long bytes,
      long requests,
      long bytesFetched) {}

  /** Chunks decoded for every table. */
  public long chunks() {
    return tables.stream().mapToLong(TableRead::chunks).sum();
  }

  /** Decoded value bytes of every table. */
  public long bytes() {
    return tables.stream().mapToLong(TableRead::bytes).sum();
  }

  /** Encoded bytes fetched for every table. */
  public long bytesFetched() {
    return tables.stream().mapToLong(TableRead::bytesFetched).sum();
  }

  /** One JSON object: {@code {"chunks", "bytes", "bytes_fetched", "tables": [{...}]}}. */
  public String toJson() {
    ObjectNode json = Json.createObjectNode();
    json.put("chunks", chunks());
    json.put("bytes", bytes());
    json.put("bytes_fetched", bytesFetched());
    var list = json.putArray("tables");
    for (TableRead t : tables) {
      ObjectNode o = list.addObject();
      o.put("table", t.table()).put("selection", t.selection());
      var cols = o.putArray("columns");
      t.columns().forEach(cols::add);
      o.put("planned_chunks", t.plannedChunks())
          .put("chunks", t.chunks())
          .put("bytes", t.bytes())
          .put("requests", t.requests())
          .put("bytes_fetched", t.bytesFetched());
    }
    return json.toString();
  }
}
