package dev.zaro.arrow.metadata;

import com.fasterxml.jackson.databind.JsonNode;

/** The metadata of one node of a hierarchy: an array or a group. */
public sealed interface NodeMetadata permits ArrayMetadata, GroupMetadata {
  /** 2 or 3 (3 for the v3 drafts of 2019-2022 too). */
  int zarrFormat();

  /**
   * The format as {@code ls} and {@code info} show it: {@code "v2"}, {@code "v3"} or {@code "v3
   * draft"} (a store in the 2019-2022 draft layout: {@code meta/} and {@code data/root/}).
   */
  String formatName();

  /** The user attributes (a JSON object; a copy). */
  JsonNode attributes();
}
