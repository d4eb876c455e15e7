package dev.zaro.arrow.codec;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.internal.JsonDocument;
import java.util.Set;

/** Typed access to a codec's configuration, with errors naming the codec and the field. */
public final class CodecConfig {
  private final String codec;
  private final JsonNode config;

  /** The configuration of {@code spec}, read field by field. */
  public CodecConfig(CodecSpec spec) {
    this.codec = spec.name();
    this.config = spec.configuration();
  }

  /** An invalid-configuration error naming the codec. */
  public CodecException error(String message) {
    return new CodecException("codec " + codec + ": " + message);
  }

  /** Refuses configuration fields outside {@code known}. */
  public CodecConfig only(String... known) {
    Set<String> allowed = Set.of(known);
    config
        .fieldNames()
        .forEachRemaining(
            f -> {
              if (!allowed.contains(f)) {
                throw error(
                    "unknown configuration field '"
                        + f
                        + "' (known: "
                        + String.join(", ", known)
                        + ")");
              }
            });
    return this;
  }

  /** The field's value, or null when absent. */
  public JsonNode node(String field) {
    JsonNode node = config.get(field);
    return node == null || node.isNull() ? null : node;
  }

  /** The integer field, or {@code defaultValue} when absent; an error when not an int. */
  public int intValue(String field, int defaultValue) {
    JsonNode node = node(field);
    if (node == null) {
      return defaultValue;
    }
    if (!node.isIntegralNumber() || !node.canConvertToInt()) {
      throw error(
          "configuration field '"
              + field
              + "' must be an integer, not "
              + JsonDocument.describe(node));
    }
    return node.intValue();
  }

  /** The integer field; an error when absent or not an int. */
  public int requiredInt(String field) {
    if (node(field) == null) {
      throw error("configuration field '" + field + "' is missing");
    }
    return intValue(field, 0);
  }

  /** The boolean field, or {@code defaultValue} when absent; an error when not a boolean. */
  public boolean booleanValue(String field, boolean defaultValue) {
    JsonNode node = node(field);
    if (node == null) {
      return defaultValue;
    }
    if (!node.isBoolean()) {
      throw error(
          "configuration field '"
              + field
              + "' must be true or false, not "
              + JsonDocument.describe(node));
    }
    return node.booleanValue();
  }

  /** The string field, or {@code defaultValue} when absent; an error when not a string. */
  public String string(String field, String defaultValue) {
    JsonNode node = node(field);
    if (node == null) {
      return defaultValue;
    }
    if (!node.isTextual()) {
      throw error(
          "configuration field '"
              + field
              + "' must be a string, not "
              + JsonDocument.describe(node));
    }
    return node.textValue();
  }
}
