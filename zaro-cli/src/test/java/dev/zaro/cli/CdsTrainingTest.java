package dev.zaro.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.Fixtures;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The training runs behind the launcher's class-data-sharing archives, each in a JVM of its own
 * that lists the classes it loads ({@code -XX:DumpLoadedClassList}, as the launcher runs it): no
 * command fails, and the list holds what the archive is for.
 */
class CdsTrainingTest {

  /**
   * The remote archive's training reads the sample over http, S3 and https from loopback servers:
   * its list holds zaro's HTTP client, its TLS connection, the certificate check, the S3 store and
   * the SDK's endpoint rules, which the local archive's training never loads.
   */
  @Test
  void remoteTrainingLoadsTheHttpClientAndItsTls(@TempDir Path dir) throws Exception {
    List<String> remote = train(dir, "remote");
    assertTrue(remote.contains("dev/zaro/remote/Http1Tls"), "TLS connection");
    assertTrue(remote.contains("dev/zaro/remote/HttpStore"), "HTTP store");
    assertTrue(remote.contains("sun/security/validator/PKIXValidator"), "certificate check");
    assertTrue(remote.contains("dev/zaro/s3/S3Store"), "S3 store");
    assertTrue(
        remote.contains("software/amazon/awssdk/services/s3/S3Utilities"), "S3 endpoint rules");
    List<String> local = train(dir, "commands");
    assertFalse(local.contains("dev/zaro/remote/Http1Tls"));
    assertFalse(local.contains("dev/zaro/s3/S3Store"));
    assertTrue(local.contains("dev/zaro/cli/ReadCommand"));
  }

  /**
   * The serve archive's training asks its HTTP port for the explorer's pictures and sizes: its list
   * holds their classes, so a fresh server's first picture does not load them from the jar.
   */
  @Test
  void serveTrainingLoadsTheExplorersPicture(@TempDir Path dir) throws Exception {
    List<String> serve = train(dir, "serve");
    assertTrue(serve.contains("dev/zaro/flight/SliceImage"), "pictures");
    assertTrue(serve.contains("dev/zaro/flight/PngWriter"), "PNG");
    assertTrue(serve.contains("dev/zaro/flight/StoredSizes"), "sizes on disk");
  }

  /** Runs the training in {@code mode} in a new JVM; its class list, one class per line. */
  private static List<String> train(Path dir, String mode) throws Exception {
    Path list = dir.resolve(mode + ".classes");
    Path out = dir.resolve(mode + ".out");
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "-XX:DumpLoadedClassList=" + list,
                "-cp",
                System.getProperty("java.class.path"),
                CdsTraining.class.getName(),
                Fixtures.testdata().resolve("sample/climate.zarr").toString(),
                mode)
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("the training in mode " + mode + " did not end");
    }
    String said = Files.readString(out, StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), said);
    assertFalse(said.contains("failed"), said);
    return Files.readAllLines(list, StandardCharsets.UTF_8).stream()
        .map(line -> line.split(" ", 2)[0])
        .toList();
  }
}
