package dev.zaro.arrow.metadata;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/**
 * A group's metadata.
 *
 * @param implicit true for a v3 intermediate group that has no {@code zarr.json} of its own
 */
public record GroupMetadata(int zarrFormat, JsonNode attributes, boolean implicit)
    implements NodeMetadata {
  /** Copies the attributes; null becomes an empty object. */
  public GroupMetadata {
    attributes = attributes == null ? JsonNodeFactory.instance.objectNode() : attributes.deepCopy();
  }

  /** An implicit v3 group. */
  public static GroupMetadata implicitGroup() {
    return new GroupMetadata(3, null, true);
  }

  @Override
  public JsonNode attributes() {
    return attributes.deepCopy();
  }
}
