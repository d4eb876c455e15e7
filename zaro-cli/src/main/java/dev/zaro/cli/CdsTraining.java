package dev.zaro.cli;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The training run behind the {@code ./zaro} launcher's class-data-sharing archive: runs {@code
 * ls}, {@code info}, {@code read} (both layouts) and {@code sql} on the bundled sample in one JVM,
 * output discarded, so that the JVM started with {@code -XX:DumpLoadedClassList} lists the classes
 * these commands load, which {@code -Xshare:dump} then archives. Not a user command.
 */
final class CdsTraining {
  private CdsTraining() {}

  /**
   * Runs the commands; {@code args[0]} is the sample store.
   *
   * @param args the sample store's path
   * @throws Exception when the temporary directory cannot be made
   */
  public static void main(String[] args) throws Exception {
    String store = args[0];
    Path dir = Files.createTempDirectory("zaro-cds");
    PrintStream out = System.out;
    PrintStream err = System.err;
    int failed = 0;
    try (PrintStream discard = new PrintStream(OutputStream.nullOutputStream())) {
      System.setOut(discard);
      System.setErr(discard);
      String[][] runs = {
        {"--version"},
        {"ls", store},
        {"info", store, "t2m"},
        {"read", store, "t2m", "--slice", "0:2", "--out", dir.resolve("a.arrow").toString()},
        {
          "read",
          store,
          "t2m",
          "--slice",
          "0:1",
          "--layout",
          "table",
          "--out",
          dir.resolve("b.arrow").toString()
        },
        {"sql", store, "select 1"},
        {"sql", store, "select avg(t2m), count(*) from t2m where lat between 30 and 60", "--stats"},
        {"sql", "--help"}
      };
      for (String[] run : runs) {
        failed += Main.run(run) == 0 ? 0 : 1;
      }
    } finally {
      System.setOut(out);
      System.setErr(err);
      try (var files = Files.list(dir)) {
        for (Path p : (Iterable<Path>) files::iterator) {
          Files.deleteIfExists(p);
        }
      }
      Files.deleteIfExists(dir);
    }
    if (failed > 0) {
      System.err.println("zaro: class-data-sharing training: " + failed + " command(s) failed");
    }
  }
}
