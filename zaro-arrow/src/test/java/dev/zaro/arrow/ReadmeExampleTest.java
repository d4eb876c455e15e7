package dev.zaro.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's Java example compiles against this module and runs on the bundled sample. */
class ReadmeExampleTest {
  @TempDir Path temp;

  @Test
  void theReadmeExampleCompilesAndRuns() throws Exception {
    Path root = Fixtures.testdata().getParent();
    String readme = Files.readString(root.resolve("README.md"));
    int java = readme.indexOf("## Java");
    int start = readme.indexOf("```java\n", java) + "```java\n".length();
    String source = readme.substring(start, readme.indexOf("```", start));
    assertTrue(source.contains("public class Example"), source);
    Path file = temp.resolve("Example.java");
    // the example opens testdata/... relative to the repository root; tests run in the module
    Files.writeString(
        file,
        source.replace("\"testdata/", "\"" + root.toString().replace('\\', '/') + "/testdata/"));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    ByteArrayOutputStream errors = new ByteArrayOutputStream();
    int status =
        javac.run(
            null,
            errors,
            errors,
            "-d",
            temp.toString(),
            "-classpath",
            System.getProperty("java.class.path"),
            file.toString());
    assertEquals(0, status, errors.toString(StandardCharsets.UTF_8));

    PrintStream out = System.out;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    try (URLClassLoader loader =
        new URLClassLoader(new URL[] {temp.toUri().toURL()}, getClass().getClassLoader())) {
      Method main = loader.loadClass("Example").getMethod("main", String[].class);
      System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
      main.invoke(null, (Object) new String[0]);
    } finally {
      System.setOut(out);
    }
    List<String> lines = printed.toString(StandardCharsets.UTF_8).lines().toList();
    assertTrue(lines.contains("float32 24 rows"), lines.toString());
  }
}
