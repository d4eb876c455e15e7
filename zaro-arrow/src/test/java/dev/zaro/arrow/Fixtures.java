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

  public static Path sample() {
    return testdata().resolve("sample").resolve("climate.zarr");
  }
}
