package dev.zaro.arrow.metadata;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/**
 * A group's metadata.
 *
 * @param implicit true for a v3 intermediate group that has no {@code zarr.json} of its own (or, in
 *     a v3 draft store, no {@code .group.json})
 * @param draft true for a group of a v3 draft store (2019-2022: {@code meta/} and {@code data/})
 */
public record GroupMetadata(int zarrFormat, JsonNode attributes, boolean implicit, boolean draft)
    implements NodeMetadata {
  /** Copies the attributes; null becomes an empty object. */
  public GroupMetadata {
    attributes = attributes == null ? JsonNodeFactory.instance.objectNode() : attributes.deepCopy();
  }

  /** A v2 or v3 group (not a draft's). */
  public GroupMetadata(int zarrFormat, JsonNode attributes, boolean implicit) {
    this(zarrFormat, attributes, implicit, false);
  }

  /** An implicit group of a v3 draft store: a path with only children under {@code meta/}. */
  public static GroupMetadata implicitDraftGroup() {
    return new GroupMetadata(3, null, true, true);
  }

  @Override
  public String formatName() {
    return draft ? "v3 draft" : "v" + zarrFormat;
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
