package dev.zaro.flight;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.store.OptionText;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.CallStatus;

/**
 * What a command descriptor or a ticket asks for: {@code {"array": PATH, "slice": S, "layout":
 * "tensor"|"table"}} (the Flight contract: docs/serving.md, "Arrow Flight"), plus {@code "raw"} to
 * turn off CF conventions in the table layout and {@code "compression": "zstd"|"lz4"} for IPC
 * buffer compression of the stream and {@code "columns": [NAME...]} for some table-layout columns
 * only, and {@code "timeout": S}, the most seconds the whole read may take ({@link ReadDeadline}).
 * The store's own limits ({@code --request-timeout}, {@code --retries}) are the server's settings:
 * a request naming them is refused rather than ignored.
 */
record ReadRequest(
    String array,
    String slice,
    String layout,
    boolean raw,
    WireCompression compression,
    List<String> columns,
    Duration timeout) {

  /** The request fields that are the server's remote limits, not a request's. */
  private static final List<String> SERVER_LIMITS =
      List.of("request_timeout", "requestTimeout", "retries");

  ReadRequest(String array, String slice, String layout, boolean raw) {
    this(array, slice, layout, raw, WireCompression.NONE, null, null);
  }

  ReadRequest(
      String array,
      String slice,
      String layout,
      boolean raw,
      WireCompression compression,
      List<String> columns) {
    this(array, slice, layout, raw, compression, columns, null);
  }

  ReadRequest {
    if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
      throw CallStatus.INVALID_ARGUMENT
          .withDescription("\"timeout\" must be a positive number of seconds, not " + timeout)
          .toRuntimeException();
    }
    columns = columns == null ? null : List.copyOf(columns);
    if (columns != null && !"table".equals(layout)) {
      throw CallStatus.INVALID_ARGUMENT
          .withDescription("columns apply to the table layout only (ask for \"layout\": \"table\")")
          .toRuntimeException();
    }
    compression = compression == null ? WireCompression.NONE : compression;
    slice = slice == null ? "" : slice;
    layout = layout == null ? "tensor" : layout;
    if (!layout.equals("tensor") && !layout.equals("table")) {
      throw CallStatus.INVALID_ARGUMENT
          .withDescription("layout must be \"tensor\" or \"table\", not \"" + layout + "\"")
          .toRuntimeException();
    }
  }

  static ReadRequest parse(byte[] json) {
    JsonNode node;
    try {
      node = Json.readTree(json);
    } catch (Exception e) {
      throw CallStatus.INVALID_ARGUMENT
          .withDescription("the command is not JSON: " + new String(json, StandardCharsets.UTF_8))
          .toRuntimeException();
    }
    if (node == null || !node.isObject() || !node.path("array").isTextual()) {
      throw CallStatus.INVALID_ARGUMENT
          .withDescription(
              "the command must be a JSON object {\"array\": PATH, \"slice\": S, \"layout\": \"tensor\"|\"table\"}")
          .toRuntimeException();
    }
    for (String f : new String[] {"slice", "layout", "compression"}) {
      if (node.has(f) && !node.get(f).isTextual() && !node.get(f).isNull()) {
        throw CallStatus.INVALID_ARGUMENT
            .withDescription("\"" + f + "\" must be a string")
            .toRuntimeException();
      }
    }
    for (String f : SERVER_LIMITS) {
      if (node.has(f)) {
        throw CallStatus.INVALID_ARGUMENT
            .withDescription(
                "\""
                    + f
                    + "\" is the server's setting (zaro serve --request-timeout, --retries);"
                    + " a request bounds its whole read with \"timeout\": seconds")
            .toRuntimeException();
      }
    }
    List<String> columns = null;
    if (node.has("columns") && !node.get("columns").isNull()) {
      if (!node.get("columns").isArray()) {
        throw CallStatus.INVALID_ARGUMENT
            .withDescription("\"columns\" must be a list of column names")
            .toRuntimeException();
      }
      columns = new ArrayList<>();
      for (JsonNode c : node.get("columns")) {
        if (!c.isTextual()) {
          throw CallStatus.INVALID_ARGUMENT
              .withDescription(
                  "\"columns\" must be a list of column names, not " + node.get("columns"))
              .toRuntimeException();
        }
        columns.add(c.textValue());
      }
    }
    return new ReadRequest(
        node.get("array").textValue(),
        node.path("slice").asText(""),
        node.path("layout").asText("tensor"),
        node.path("raw").asBoolean(false),
        WireCompression.parse(node.path("compression").asText("")),
        columns,
        node.has("timeout") && !node.get("timeout").isNull()
            ? seconds(
                node.get("timeout").isTextual() ? node.get("timeout").textValue() : null,
                node.get("timeout"))
            : null);
  }

  /**
   * A timeout in seconds (a JSON number, or its text as an HTTP query gives it), by the rule every
   * surface takes seconds by ({@link OptionText#seconds}); a bad value is the client's mistake.
   */
  static Duration seconds(String text, JsonNode number) {
    String value = text != null ? text : number != null && number.isNumber() ? number.asText() : "";
    try {
      return OptionText.seconds(value, "\"timeout\"");
    } catch (IllegalArgumentException e) {
      throw CallStatus.INVALID_ARGUMENT
          .withDescription(
              "\"timeout\" must be a positive number of seconds, not "
                  + (text != null ? "'" + text + "'" : String.valueOf(number)))
          .withCause(e)
          .toRuntimeException();
    }
  }

  /** The same request for another slice. */
  ReadRequest withSlice(String s) {
    return new ReadRequest(array, s, layout, raw, compression, columns, timeout);
  }

  byte[] toJson() {
    ObjectNode node = Json.createObjectNode();
    node.put("array", array).put("slice", slice).put("layout", layout);
    if (raw) {
      node.put("raw", true);
    }
    if (compression != WireCompression.NONE) {
      node.put("compression", compression.option());
    }
    if (columns != null) {
      columns.forEach(node.putArray("columns")::add);
    }
    if (timeout != null) {
      node.put("timeout", timeout.toNanos() / 1e9);
    }
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }
}
