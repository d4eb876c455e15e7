package dev.zaro.arrow.metadata;

import com.fasterxml.jackson.databind.JsonNode;

/** The metadata of one node of a hierarchy: an array or a group. */
public sealed interface NodeMetadata permits ArrayMetadata, GroupMetadata {
  /** 2 or 3. */
  int zarrFormat();

  /** The user attributes (a JSON object; a copy). */
  JsonNode attributes();
}
