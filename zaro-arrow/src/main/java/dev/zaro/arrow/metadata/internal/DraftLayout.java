package dev.zaro.arrow.metadata.internal;

import java.util.List;

/**
 * Where a v3 draft store keeps the metadata of its nodes: {@code meta/root/<path>.array<suffix>}
 * and {@code .group<suffix>} (the 2019-2021 drafts; the root at {@code meta/root.array<suffix>} or
 * {@code meta/root.group<suffix>}), or {@code meta/<path>.array<suffix>} (the May 2022 draft,
 * without {@code root/}). A path with only children under {@code meta/} is an implicit group.
 *
 * @param suffix the entry point's {@code metadata_key_suffix} ({@code ".json"} by default)
 */
public record DraftLayout(String suffix) {
  /** The prefix of every metadata key. */
  public static final String META = "meta/";

  private static final String ROOT = "root";

  /**
   * The keys the node at {@code path} may have its document under, in the order to try them: array,
   * then group, the 2019-2021 form before the 2022 one.
   */
  public List<String> nodeKeys(String path) {
    if (path.isEmpty()) {
      return List.of(META + ROOT + ".array" + suffix, META + ROOT + ".group" + suffix);
    }
    return List.of(
        META + ROOT + "/" + path + ".array" + suffix,
        META + ROOT + "/" + path + ".group" + suffix,
        META + path + ".array" + suffix,
        META + path + ".group" + suffix);
  }

  /** Whether {@code key} holds an array's document (else a group's). */
  public boolean isArrayKey(String key) {
    return key.endsWith(".array" + suffix);
  }

  /**
   * The node path whose document is stored at {@code key} ({@code ""} for the root), or null when
   * {@code key} is no node document.
   */
  public String nodePath(String key) {
    if (!key.startsWith(META)) {
      return null;
    }
    String rest;
    if (key.endsWith(".array" + suffix)) {
      rest = key.substring(META.length(), key.length() - suffix.length() - ".array".length());
    } else if (key.endsWith(".group" + suffix)) {
      rest = key.substring(META.length(), key.length() - suffix.length() - ".group".length());
    } else {
      return null;
    }
    if (rest.equals(ROOT)) {
      return "";
    }
    String path = rest.startsWith(ROOT + "/") ? rest.substring(ROOT.length() + 1) : rest;
    return path.isEmpty() || path.startsWith("/") || path.endsWith("/") ? null : path;
  }

  /** The key prefixes under which the children of the node at {@code path} have their documents. */
  public List<String> childPrefixes(String path) {
    return path.isEmpty()
        ? List.of(META)
        : List.of(META + ROOT + "/" + path + "/", META + path + "/");
  }
}
