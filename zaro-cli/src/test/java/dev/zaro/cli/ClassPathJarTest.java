package dev.zaro.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClassPathJarTest {
  @TempDir Path dir;

  /** A jar of {@code entries} (name to text), multi-release when asked. */
  private Path jar(String name, boolean multiRelease, Map<String, String> entries)
      throws IOException {
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().putValue("Class-Path", "lib/elsewhere.jar");
    if (multiRelease) {
      manifest.getMainAttributes().put(Attributes.Name.MULTI_RELEASE, "true");
    }
    Path path = dir.resolve(name);
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(path), manifest)) {
      for (Map.Entry<String, String> e : entries.entrySet()) {
        out.putNextEntry(new ZipEntry(e.getKey()));
        out.write(e.getValue().getBytes(StandardCharsets.UTF_8));
        out.closeEntry();
      }
    }
    return path;
  }

  private static Map<String, String> entries(String... nameThenText) {
    Map<String, String> map = new LinkedHashMap<>();
    for (int i = 0; i < nameThenText.length; i += 2) {
      map.put(nameThenText[i], nameThenText[i + 1]);
    }
    return map;
  }

  private static String text(URL url) throws IOException {
    try (InputStream in = url.openStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** What each jar of the class path would answer, read through a class loader of each. */
  private static List<String> all(URLClassLoader loader, String name) throws IOException {
    List<String> texts = new ArrayList<>();
    for (URL url : Collections.list(loader.findResources(name))) {
      texts.add(text(url));
    }
    return texts;
  }

  @Test
  void theMergedJarAnswersAsTheClassPathDid() throws Exception {
    Path a =
        jar(
            "a.jar",
            false,
            entries(
                "p/A.class", "a from a",
                "p/", "",
                "META-INF/services/x.Provider", "impl.A\n# a comment\n",
                "META-INF/io.netty.versions.properties", "netty-a.version=1\n",
                "META-INF/LICENSE", "licence of a",
                "META-INF/INDEX.LIST", "JarIndex-Version: 1.0\n\na.jar\np\n",
                "META-INF/A.SF", "signature",
                "module-info.class", "module a",
                "META-INF/versions/11/p/A.class", "never used: a.jar is not multi-release"));
    Path b =
        jar(
            "b.jar",
            true,
            entries(
                "p/A.class", "a from a",
                "p/B.class", "b",
                "p/", "",
                "META-INF/services/x.Provider", "impl.B\nimpl.A\n",
                "META-INF/services/y.Other", "impl.Y",
                "META-INF/io.netty.versions.properties", "netty-b.version=2\n",
                "META-INF/LICENSE", "licence of b",
                "META-INF/versions/11/p/B.class", "b for Java 11",
                "META-INF/versions/11/module-info.class", "module b"));
    Path merged = dir.resolve("all.jar");

    assertEquals(List.of(), ClassPathJar.merge(List.of(a, b), merged));

    try (URLClassLoader classPath =
            new URLClassLoader(new URL[] {a.toUri().toURL(), b.toUri().toURL()}, null);
        URLClassLoader one = new URLClassLoader(new URL[] {merged.toUri().toURL()}, null)) {
      for (String name : List.of("p/A.class", "p/B.class", "META-INF/LICENSE")) {
        assertEquals(text(classPath.findResource(name)), text(one.findResource(name)), name);
      }
      // joined: every jar's lines in class-path order, each once
      assertEquals(
          List.of("impl.A\n# a comment\nimpl.B\n"), all(one, "META-INF/services/x.Provider"));
      assertEquals(2, all(classPath, "META-INF/services/x.Provider").size());
      assertEquals(List.of("impl.Y\n"), all(one, "META-INF/services/y.Other"));
      assertEquals(
          List.of("netty-a.version=1\nnetty-b.version=2\n"),
          all(one, "META-INF/io.netty.versions.properties"));
      for (String gone :
          List.of(
              "META-INF/INDEX.LIST",
              "META-INF/A.SF",
              "module-info.class",
              "META-INF/versions/11/module-info.class",
              "META-INF/versions/11/p/A.class")) {
        assertNull(one.findResource(gone), gone);
      }
      assertEquals("b for Java 11", text(one.findResource("META-INF/versions/11/p/B.class")));
    }
    try (JarFile jar = new JarFile(merged.toFile(), true, ZipFile.OPEN_READ, Runtime.version())) {
      Attributes main = jar.getManifest().getMainAttributes();
      assertEquals("true", main.getValue(Attributes.Name.MULTI_RELEASE));
      assertNull(main.getValue(Attributes.Name.CLASS_PATH), "no jar's Class-Path carried over");
      assertTrue(jar.isMultiRelease());
      // the versioned class is the one a Java 11+ runtime reads, as from b.jar
      assertArrayEquals(
          "b for Java 11".getBytes(StandardCharsets.UTF_8),
          jar.getInputStream(jar.getJarEntry("p/B.class")).readAllBytes());
    }
  }

  @Test
  void withoutAMultiReleaseJarTheMergeIsNotMultiRelease() throws Exception {
    Path a = jar("a.jar", false, entries("p/A.class", "a", "META-INF/versions/9/p/A.class", "x"));
    Path merged = dir.resolve("all.jar");
    assertEquals(List.of(), ClassPathJar.merge(List.of(a), merged));
    try (JarFile jar = new JarFile(merged.toFile())) {
      assertFalse(jar.isMultiRelease());
      assertNull(jar.getEntry("META-INF/versions/9/p/A.class"));
    }
  }

  @Test
  void twoDifferentCopiesOfAFileThatIsNotJoinedRefuseTheMerge() throws Exception {
    Path a = jar("a.jar", false, entries("conf/settings.xml", "<a/>", "p/A.class", "a"));
    Path b = jar("b.jar", false, entries("conf/settings.xml", "<b/>", "p/A.class", "other a"));
    Path merged = dir.resolve("all.jar");
    Files.writeString(merged, "an older merge");

    List<String> conflicts = ClassPathJar.merge(List.of(a, b), merged);

    assertEquals(List.of("conf/settings.xml (b.jar)", "p/A.class (b.jar)"), conflicts);
    assertEquals("an older merge", Files.readString(merged), "nothing written over it");
    try (var files = Files.list(dir)) {
      assertEquals(3, files.count(), "no temporary file left");
    }
  }
}
