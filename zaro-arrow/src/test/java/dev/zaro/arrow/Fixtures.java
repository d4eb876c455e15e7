package dev.zaro.arrow;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.stream.Stream;

/** Finds the repository's testdata folder from any module's working directory. */
public final class Fixtures {
  private Fixtures() {}

  public static Path testdata() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null) {
      Path candidate = dir.resolve("testdata");
      if (Files.isDirectory(candidate) && Files.exists(dir.resolve("zaro"))) {
        return candidate;
      }
      dir = dir.getParent();
    }
    throw new IllegalStateException("testdata not found above " + Path.of("").toAbsolutePath());
  }

  public static Path fixtures() {
    return testdata().resolve("fixtures");
  }

  /** Copies the fixture tree {@code source} to {@code target} (to modify it in a test). */
  /** Sets every file under {@code dir} modified {@code ago} seconds ago (past the racy window). */
  public static void age(Path dir, long ago) throws IOException {
    FileTime t = FileTime.from(Instant.now().minusSeconds(ago));
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        Files.setLastModifiedTime(f, t);
      }
    }
  }

  public static Path copyTree(Path source, Path target) throws IOException {
    try (Stream<Path> files = Files.walk(source)) {
      for (Path p : files.toList()) {
        Path to = target.resolve(source.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(to);
        } else {
          Files.copy(p, to);
        }
      }
    }
    return target;
  }

  public static Path sample() {
    return testdata().resolve("sample").resolve("climate.zarr");
  }
}
