package dev.zaro.arrow;

import java.nio.file.Files;
import java.nio.file.Path;

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
  public static Path copyTree(Path source, Path target) throws java.io.IOException {
    try (java.util.stream.Stream<Path> files = Files.walk(source)) {
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
