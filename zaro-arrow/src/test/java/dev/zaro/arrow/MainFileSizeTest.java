package dev.zaro.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No main-code Java file of any module is over {@value #MAX_LINES} lines (issue 45: a class holds
 * one concern, in at most 500 lines). Walks every module's {@code src/main/java} from the
 * repository root (the parent of this module's directory, where Maven runs the tests) and lists
 * each file over the limit with its line count.
 */
class MainFileSizeTest {
  static final int MAX_LINES = 500;

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void noMainFileIsOverTheLimit() throws IOException {
    List<Path> sources = mainSourceRoots(ROOT);
    assertTrue(
        sources.stream().anyMatch(p -> p.startsWith(ROOT.resolve("zaro-arrow"))),
        "found no src/main/java under " + ROOT + ": " + sources);
    assertEquals(
        List.of(),
        oversized(ROOT, sources, MAX_LINES),
        "main-code files over " + MAX_LINES + " lines: split them along their concerns");
  }

  @Test
  void aFileOverTheLimitIsListedWithItsLineCount(@TempDir Path root) throws IOException {
    Path main = root.resolve("m/src/main/java/p");
    Files.createDirectories(main);
    Files.writeString(main.resolve("Long.java"), "x\n".repeat(MAX_LINES + 1));
    Files.writeString(main.resolve("Short.java"), "x\n".repeat(MAX_LINES));
    Files.writeString(main.resolve("Notes.txt"), "x\n".repeat(MAX_LINES + 1));
    Path test = root.resolve("m/src/test/java/p");
    Files.createDirectories(test);
    Files.writeString(test.resolve("LongTest.java"), "x\n".repeat(MAX_LINES + 1));
    assertEquals(
        List.of("m/src/main/java/p/Long.java (" + (MAX_LINES + 1) + " lines)"),
        oversized(root, mainSourceRoots(root), MAX_LINES));
  }

  /** Every module's {@code src/main/java} directly under {@code root}. */
  private static List<Path> mainSourceRoots(Path root) throws IOException {
    try (Stream<Path> modules = Files.list(root)) {
      return modules
          .map(m -> m.resolve("src/main/java"))
          .filter(Files::isDirectory)
          .sorted()
          .toList();
    }
  }

  /** The Java files under {@code sources} over {@code max} lines: "path (n lines)", sorted. */
  private static List<String> oversized(Path root, List<Path> sources, int max) throws IOException {
    List<String> out = new ArrayList<>();
    for (Path source : sources) {
      try (Stream<Path> files = Files.walk(source)) {
        for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
          long lines;
          try (Stream<String> text = Files.lines(file)) {
            lines = text.count();
          }
          if (lines > max) {
            out.add(root.relativize(file).toString().replace('\\', '/') + " (" + lines + " lines)");
          }
        }
      }
    }
    return out;
  }
}
