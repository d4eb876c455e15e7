package dev.zaro.arrow.codec.blosc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * The frames testdata/blosc/generate_blosc.py wrote with c-blosc (numcodecs, tensorstore): every
 * expected value in the blosc tests comes from there, none from zaro.
 */
final class BloscFixtures {
  private BloscFixtures() {}

  /** testdata/blosc, found from any module's working directory. */
  static Path dir() {
    Path d = Path.of("").toAbsolutePath();
    while (d != null) {
      Path candidate = d.resolve("testdata").resolve("blosc");
      if (Files.isDirectory(candidate.resolve("cases"))) {
        return candidate;
      }
      d = d.getParent();
    }
    throw new IllegalStateException(
        "testdata/blosc/cases not found above "
            + Path.of("").toAbsolutePath()
            + "; run testdata/blosc/generate_blosc.py");
  }

  /** Case names ({@code lz4-shuffle-ts4-odd}), sorted. */
  static List<String> cases() {
    try (Stream<Path> files = Files.list(dir().resolve("cases"))) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".blosc"))
          .map(n -> n.substring(0, n.length() - ".blosc".length()))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] frame(String caseName) {
    return read(dir().resolve("cases").resolve(caseName + ".blosc"));
  }

  static byte[] raw(String caseName) {
    return read(dir().resolve("cases").resolve(caseName + ".raw"));
  }

  /** Every frame of the suite variants. */
  static List<byte[]> suiteFrames() {
    try (Stream<Path> files = Files.walk(dir().resolve("suite"))) {
      return files
          .filter(p -> p.toString().endsWith(".blosc"))
          .sorted()
          .map(BloscFixtures::read)
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The frame c-blosc wrote for {@code data} with the suite variant's settings. */
  static byte[] suiteFrame(String variant, byte[] data) {
    Path p = dir().resolve("suite").resolve(variant).resolve(key(data) + ".blosc");
    if (!Files.isRegularFile(p)) {
      throw new AssertionError(
          "no c-blosc frame for this "
              + data.length
              + "-byte input at "
              + p
              + "; regenerate with testdata/blosc/generate_blosc.py");
    }
    return read(p);
  }

  static String key(byte[] data) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(data))
          .substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] read(Path p) {
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
