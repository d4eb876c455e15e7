package dev.zaro.sql;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.metadata.JsonDocument;
import java.util.List;

/**
 * What one statement read from the arrays: per table reference registered with DuckDB, the
 * selection and columns pushed into the read, the chunks decoded and the decoded value bytes.
 */
public record QueryStats(List<TableRead> tables) {

  /**
   * One table as read for a statement.
   *
   * @param table the table's name (the array's path)
   * @param selection the selection read, canonical ({@code ""} parses back to everything)
   * @param columns the columns produced
   * @param plannedChunks chunks (shards, for sharded arrays) the selection touches
   * @param chunks chunk reads done (a chunk spanning two record batches counts twice)
   * @param bytes decoded value bytes read
   */
  public record TableRead(String table, String selection, List<String> columns, long plannedChunks, long chunks,
      long bytes) {}

  /** Chunk reads of every table. */
  public long chunks() {
    return tables.stream().mapToLong(TableRead::chunks).sum();
  }

  /** Decoded value bytes of every table. */
  public long bytes() {
    return tables.stream().mapToLong(TableRead::bytes).sum();
  }

  /** One JSON object: {@code {"chunks": n, "bytes": n, "tables": [{...}]}}. */
  public String toJson() {
    ObjectNode json = JsonDocument.MAPPER.createObjectNode();
    json.put("chunks", chunks());
    json.put("bytes", bytes());
    var list = json.putArray("tables");
    for (TableRead t : tables) {
      ObjectNode o = list.addObject();
      o.put("table", t.table()).put("selection", t.selection());
      var cols = o.putArray("columns");
      t.columns().forEach(cols::add);
      o.put("planned_chunks", t.plannedChunks()).put("chunks", t.chunks()).put("bytes", t.bytes());
    }
    return json.toString();
  }
}
