package dev.zaro.arrow.read;

import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.NodeMetadata;

/**
 * One node of a hierarchy.
 *
 * @param path the node path without leading slash ({@code ""} for the root)
 */
public record Node(String path, NodeMetadata metadata) {
  /** Whether the node is an array (else a group). */
  public boolean isArray() {
    return metadata instanceof ArrayMetadata;
  }

  /** {@code "/"} for the root, else {@code "/a/b"}. */
  public String displayPath() {
    return "/" + path;
  }

  /** The last path component ({@code ""} for the root). */
  public String name() {
    return path.substring(path.lastIndexOf('/') + 1);
  }
}
