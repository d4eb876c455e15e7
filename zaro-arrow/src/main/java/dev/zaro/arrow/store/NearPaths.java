package dev.zaro.arrow.store;

import dev.zaro.arrow.store.internal.EditDistance;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * For a local path that does not exist, the existing entries nearest to it, so that a typo is
 * answered with what was meant: the deepest directory that exists on the way is listed and its
 * entries compared with the missing name there (edit distance, ignoring case).
 */
final class NearPaths {
  /** Entries named at most. */
  private static final int SHOWN = 3;

  /** Entries of a directory compared at most (a huge directory is not listed whole). */
  private static final int LISTED = 10_000;

  private NearPaths() {}

  /**
   * "; did you mean A or B?" naming the nearest existing paths to {@code missing} (absolute), or ""
   * when none is near or its parent cannot be listed.
   */
  static String hint(Path missing) {
    Path parent = missing.getParent();
    Path rest = missing.getFileName();
    while (parent != null && !Files.isDirectory(parent)) {
      rest = parent.getFileName().resolve(rest);
      parent = parent.getParent();
    }
    if (parent == null || rest == null) {
      return "";
    }
    String wanted = rest.getName(0).toString();
    Path tail = rest.getNameCount() > 1 ? rest.subpath(1, rest.getNameCount()) : null;
    List<String> near = new ArrayList<>();
    try (Stream<Path> entries = Files.list(parent)) {
      record Scored(String name, int distance) {}
      List<Scored> scored = new ArrayList<>();
      entries
          .limit(LISTED)
          .forEach(
              e -> {
                String name = e.getFileName().toString();
                int d =
                    EditDistance.of(wanted.toLowerCase(Locale.ROOT), name.toLowerCase(Locale.ROOT));
                if (d <= Math.max(2, wanted.length() / 3)) {
                  scored.add(new Scored(name, d));
                }
              });
      scored.sort(Comparator.comparingInt(Scored::distance).thenComparing(Scored::name));
      for (Scored s : scored.subList(0, Math.min(SHOWN, scored.size()))) {
        Path p = parent.resolve(s.name());
        // the whole path when it exists under the near entry, else the entry itself
        near.add((tail != null && Files.exists(p.resolve(tail)) ? p.resolve(tail) : p).toString());
      }
    } catch (IOException | RuntimeException e) {
      return ""; // a courtesy: no hint when the directory cannot be listed
    }
    return near.isEmpty() ? "" : "; did you mean " + String.join(" or ", near) + "?";
  }
}
