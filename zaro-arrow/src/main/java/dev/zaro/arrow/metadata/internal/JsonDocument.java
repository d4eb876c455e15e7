package dev.zaro.arrow.metadata.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.error.MetadataException;
import dev.zaro.arrow.json.Json;
import java.io.IOException;
import java.util.Locale;

/**
 * A metadata JSON object read from one store key, with typed field access whose errors name the key
 * and the field. Parsed by {@link Json} (lenient about bare {@code NaN} and {@code Infinity}).
 */
public final class JsonDocument {
  private final String key;
  private final ObjectNode root;

  private JsonDocument(String key, ObjectNode root) {
    this.key = key;
    this.root = root;
  }

  /** Parses {@code bytes} as a JSON object; the key names the document in errors. */
  public static JsonDocument parse(String key, byte[] bytes) {
    JsonNode node;
    try {
      node = Json.readTree(bytes);
    } catch (JsonProcessingException e) {
      throw new MetadataException(
          "key '"
              + key
              + "' is not valid JSON: "
              + e.getOriginalMessage()
              + (e.getLocation() != null
                  ? " (line "
                      + e.getLocation().getLineNr()
                      + ", column "
                      + e.getLocation().getColumnNr()
                      + ")"
                  : ""));
    } catch (IOException e) {
      throw new MetadataException("key '" + key + "' cannot be read as JSON: " + e.getMessage(), e);
    }
    if (node == null || node.isMissingNode()) {
      throw new MetadataException("key '" + key + "' is empty: expected a JSON object");
    }
    if (!node.isObject()) {
      throw new MetadataException(
          "key '"
              + key
              + "' holds a JSON "
              + node.getNodeType().toString().toLowerCase(Locale.ROOT)
              + ", expected an object");
    }
    return new JsonDocument(key, (ObjectNode) node);
  }

  /** The document stored at {@code key} with its parsed root object. */
  public static JsonDocument of(String key, ObjectNode root) {
    return new JsonDocument(key, root);
  }

  /** The store key the document was read from, named in errors. */
  public String key() {
    return key;
  }

  /** The parsed root object. */
  public ObjectNode root() {
    return root;
  }

  /** {@code "key 'a/zarr.json', field 'shape'"}: the prefix of every message about a field. */
  public String where(String field) {
    return "key '" + key + "', field '" + field + "'";
  }

  /** An invalid-metadata error naming this document and {@code field}. */
  public MetadataException error(String field, String problem) {
    return new MetadataException(where(field) + ": " + problem);
  }

  /** Whether the root has {@code field} with a value other than JSON null. */
  public boolean has(String field) {
    return root.has(field) && !root.get(field).isNull();
  }

  /** The field, or null when absent or JSON null. */
  public JsonNode optional(String field) {
    JsonNode node = root.get(field);
    return node == null || node.isNull() ? null : node;
  }

  /** The field's value; an error when absent. */
  public JsonNode required(String field) {
    JsonNode node = root.get(field);
    if (node == null) {
      throw error(field, "is missing");
    }
    return node;
  }

  /** The string field; an error when absent or not a string. */
  public String requiredString(String field) {
    JsonNode node = required(field);
    if (!node.isTextual()) {
      throw error(field, "must be a string, not " + describe(node));
    }
    return node.textValue();
  }

  /** The integer field; an error naming the document and field when absent or not an int. */
  public int requiredInt(String field) {
    JsonNode node = required(field);
    if (!node.isIntegralNumber() || !node.canConvertToInt()) {
      throw error(field, "must be an integer, not " + describe(node));
    }
    return node.intValue();
  }

  /** A list of non-negative integers ({@code min} is the smallest allowed element). */
  public long[] requiredLongs(String field, long min) {
    return longs(required(field), field, min);
  }

  /**
   * The array {@code field} of {@code node} as longs of at least {@code min}; an error otherwise.
   */
  public long[] longs(JsonNode node, String field, long min) {
    if (!node.isArray()) {
      throw error(field, "must be a list of integers, not " + describe(node));
    }
    long[] out = new long[node.size()];
    for (int i = 0; i < out.length; i++) {
      JsonNode e = node.get(i);
      if (!e.isIntegralNumber() || !e.canConvertToLong() || e.longValue() < min) {
        throw error(
            field, "element " + i + " must be an integer >= " + min + ", not " + describe(e));
      }
      out[i] = e.longValue();
    }
    return out;
  }

  /** Short description of a JSON value for messages. */
  public static String describe(JsonNode node) {
    String text = node.toString();
    String kind = node.getNodeType().toString().toLowerCase(Locale.ROOT);
    return kind + " " + (text.length() > 60 ? text.substring(0, 57) + "..." : text);
  }
}
