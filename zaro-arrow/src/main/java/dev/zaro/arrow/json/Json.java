package dev.zaro.arrow.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;

/**
 * The one JSON parser of zaro (metadata documents, reference files, requests): lenient about the
 * non-finite numbers {@code NaN}, {@code Infinity} and {@code -Infinity} that Python's json module
 * writes bare (zarr-python 2 attributes, xarray's NaN-valued {@code valid_min}); they parse as
 * doubles. It sits below both stores and metadata, so either can parse JSON without the other. The
 * mapper itself stays private, so nobody can reconfigure it; everything here is thread-safe.
 * Internal: this package is not exported.
 */
public final class Json {
  private static final ObjectMapper MAPPER =
      JsonMapper.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

  private Json() {}

  /** Parses a JSON text; an empty text yields a missing node. */
  public static JsonNode readTree(String text) throws JsonProcessingException {
    return MAPPER.readTree(text);
  }

  /** Parses UTF-8 JSON bytes; empty bytes yield a missing node. */
  public static JsonNode readTree(byte[] bytes) throws IOException {
    return MAPPER.readTree(bytes);
  }

  /** Parses a JSON file. */
  public static JsonNode readTree(File file) throws IOException {
    return MAPPER.readTree(file);
  }

  /** A new, empty JSON object. */
  public static ObjectNode createObjectNode() {
    return MAPPER.createObjectNode();
  }

  /** The factory of JSON values (numbers, strings, arrays). */
  public static JsonNodeFactory nodeFactory() {
    return MAPPER.getNodeFactory();
  }

  /** {@code value} (a record, array, list or map) as a JSON tree. */
  public static JsonNode valueToTree(Object value) {
    return MAPPER.valueToTree(value);
  }

  /** A JSON tree bound to {@code type}, e.g. {@code long[].class}. */
  public static <T> T convertValue(JsonNode node, Class<T> type) {
    return MAPPER.convertValue(node, type);
  }

  /** A writer (immutable) with the given features, e.g. indented output. */
  public static ObjectWriter writer(SerializationFeature... features) {
    ObjectWriter w = MAPPER.writer();
    for (SerializationFeature f : features) {
      w = w.with(f);
    }
    return w;
  }
}
