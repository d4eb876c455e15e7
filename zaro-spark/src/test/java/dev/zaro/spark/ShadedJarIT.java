package dev.zaro.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.Fixtures;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded jar as {@code --jars} uses it: a fresh JVM with Spark's jars (this test's class path
 * without zaro and without what the jar bundles) plus the jar, reading the sample through the
 * {@code zarr} short name.
 */
class ShadedJarIT {
  /** Class path entries the shaded jar bundles (or zaro itself): not Spark's, so left out. */
  private static final List<String> BUNDLED =
      List.of(
          "/dev/zaro/",
          "zaro-",
          "/software/amazon/",
          "/org/apache/httpcomponents/",
          "/net/java/dev/jna/",
          "/org/tukaani/",
          "/arrow-dataset/",
          "/arrow-c-data/",
          "/arrow-memory-unsafe/",
          "/org/reactivestreams/");

  @Test
  void shadedJarReadsBesideSparksJars(@TempDir Path tmp) throws Exception {
    Path jar = Path.of(System.getProperty("zaro.spark.jar"));
    assertTrue(Files.isRegularFile(jar), jar + " (mvn package builds it)");
    // this one class, alone in a directory
    String smoke = ShadedJarSmoke.class.getName().replace('.', '/') + ".class";
    Path classes = tmp.resolve("classes");
    Files.createDirectories(classes.resolve(smoke).getParent());
    try (var in = ShadedJarSmoke.class.getClassLoader().getResourceAsStream(smoke)) {
      Files.copy(in, classes.resolve(smoke));
    }
    List<String> classPath = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator, -1)) {
      if (BUNDLED.stream().noneMatch(entry::contains) && !entry.contains("test-classes")) {
        classPath.add(entry);
      }
    }
    classPath.add(jar.toString());
    classPath.add(classes.toString());
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String flag : System.getProperty("zaro.spark.jvmFlags", "").trim().split("\\s+", -1)) {
      if (!flag.isEmpty()) {
        command.add(flag);
      }
    }
    command.addAll(
        List.of(
            "-cp",
            String.join(File.pathSeparator, classPath),
            ShadedJarSmoke.class.getName(),
            Fixtures.sample().toString(),
            2 * 73 * 144 + " " + (2 * 73 * 144) + " 2020-01-01T06:00 90.0"));
    Path log = tmp.resolve("smoke.log");
    Process p =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
    }
    String output = Files.readString(log);
    assertEquals(0, p.exitValue(), output);
    assertTrue(output.contains("zaro-spark smoke: "), output);
  }
}
