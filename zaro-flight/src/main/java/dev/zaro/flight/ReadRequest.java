package dev.zaro.flight;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.json.Json;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.flight.CallStatus;

/**
 * What a command descriptor or a ticket asks for: {@code {"array": PATH, "slice": S, "layout":
 * "tensor"|"table"}} (the Flight contract: README, "Clients"), plus {@code "raw"} to turn off CF
 * conventions in the table layout.
 */
record ReadRequest(String array, String slice, String layout, boolean raw) {

  ReadRequest {
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
    for (String f : new String[] {"slice", "layout"}) {
      if (node.has(f) && !node.get(f).isTextual() && !node.get(f).isNull()) {
        throw CallStatus.INVALID_ARGUMENT
            .withDescription("\"" + f + "\" must be a string")
            .toRuntimeException();
      }
    }
    return new ReadRequest(
        node.get("array").textValue(),
        node.path("slice").asText(""),
        node.path("layout").asText("tensor"),
        node.path("raw").asBoolean(false));
  }

  byte[] toJson() {
    ObjectNode node = Json.createObjectNode();
    node.put("array", array).put("slice", slice).put("layout", layout);
    if (raw) {
      node.put("raw", true);
    }
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }
}
