package dev.zaro.arrow.metadata;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/**
 * A codec as metadata names it: a name and its configuration (an empty object when none was given).
 * The codec package resolves these into working codecs.
 */
public record CodecSpec(String name, JsonNode configuration) {
  /** Copies the configuration; null becomes an empty object. */
  public CodecSpec {
    configuration =
        configuration == null ? JsonNodeFactory.instance.objectNode() : configuration.deepCopy();
  }

  @Override
  public JsonNode configuration() {
    return configuration.deepCopy();
  }
}
