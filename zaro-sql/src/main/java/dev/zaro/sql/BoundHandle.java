package dev.zaro.sql;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.json.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A prepared statement's handle once its parameters are bound: the query and the bound statements
 * (one per parameter row), which the client sends back with GetFlightInfo, so the server keeps
 * nothing between the calls. An unbound handle is the query text itself; a bound one starts with a
 * NUL, which no query text does, then holds JSON.
 */
final class BoundHandle {
  private static final String MARK = "\0zaro-bound\0";

  private BoundHandle() {}

  static ByteString encode(String query, List<String> statements) {
    ObjectNode doc = Json.createObjectNode();
    doc.put("query", query);
    ArrayNode list = doc.putArray("statements");
    statements.forEach(list::add);
    return ByteString.copyFromUtf8(MARK + doc);
  }

  /** The query of a handle, bound or not. */
  static String query(ByteString handle) {
    JsonNode doc = parse(handle);
    return doc == null ? handle.toStringUtf8() : doc.path("query").asText();
  }

  /** The bound statements of a handle, or null for an unbound one. */
  static List<String> statements(ByteString handle) {
    JsonNode doc = parse(handle);
    if (doc == null) {
      return null;
    }
    List<String> out = new ArrayList<>();
    doc.path("statements").forEach(s -> out.add(s.asText()));
    return out;
  }

  private static JsonNode parse(ByteString handle) {
    String text = handle.toStringUtf8();
    if (!text.startsWith(MARK)) {
      return null;
    }
    try {
      return Json.readTree(text.substring(MARK.length()));
    } catch (IOException e) {
      throw new ZaroException(
          ErrorKind.INVALID_ARGUMENT, "sql: not a prepared statement handle of zaro", e);
    }
  }
}
