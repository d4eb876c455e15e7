package dev.zaro.arrow.store.icechunk;

import static dev.zaro.arrow.store.icechunk.IcechunkStoreTest.VIRTUAL;
import static dev.zaro.arrow.store.icechunk.IcechunkStoreTest.repo;
import static dev.zaro.arrow.store.icechunk.IcechunkStoreTest.rewriteBody;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.store.TestHttpServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An {@link IcechunkStore} over http ({@code icechunk+http://}, its store from zaro-remote's
 * provider): the rule on virtual chunks in local files, beside {@code IcechunkStoreTest}'s local
 * cases.
 */
class IcechunkVirtualChunkTest extends AllocatorTest {
  @TempDir Path tmp;

  /** The bytes of every native chunk of big_chunks (Icechunk wrote them all alike). */
  byte[] chunk;

  @BeforeEach
  void open() throws Exception {
    chunk = Files.readAllBytes(repo("test-repo-v2").resolve("chunks/S7RX4P9PYQ67530ZW0V0"));
  }

  /**
   * A virtual chunk may point at a local file when the repository is local, not when it came over
   * the network (the kerchunk rule). The fixture's virtual location is replaced, in the manifest,
   * by a file URL of the same length.
   */
  @Test
  void virtualChunksInLocalFilesAreReadOnlyFromLocalRepositories() throws Exception {
    Path r = Fixtures.copyTree(repo("test-repo-v1"), tmp.resolve("test-repo-v1"));
    Path target = Files.createTempFile(Path.of("/tmp"), "ic", ".c");
    try {
      Files.write(target, chunk);
      String path = target.toString();
      assertTrue(path.length() <= VIRTUAL.length() - "file://".length(), path);
      String url =
          "file:///tmp"
              + "/".repeat(VIRTUAL.length() - "file://".length() - path.length())
              + path.substring(4);
      assertEquals(VIRTUAL.length(), url.length());
      int[] replaced = {0};
      try (var manifests = Files.list(r.resolve("manifests"))) {
        for (Path m : manifests.toList()) {
          rewriteBody(
              m,
              body -> {
                int at = new String(body, StandardCharsets.ISO_8859_1).indexOf(VIRTUAL);
                if (at >= 0) {
                  System.arraycopy(
                      url.getBytes(StandardCharsets.US_ASCII), 0, body, at, url.length());
                  replaced[0]++;
                }
                return body;
              });
        }
      }
      assertTrue(replaced[0] > 0);
      try (Zaro zaro = Zaro.open("icechunk://" + r);
          Slab slab = zaro.read("group1/big_chunks", "", allocator)) {
        for (int i = 0; i < 100; i++) {
          assertEquals(42f, slab.data().getFloat(4L * i), "element " + i);
        }
      }
      try (TestHttpServer server = new TestHttpServer(tmp);
          IcechunkStore s = IcechunkStore.open("icechunk+" + server.url("test-repo-v1"))) {
        StoreException e =
            assertThrows(StoreException.class, () -> s.getBytes("group1/big_chunks/c/0/0"));
        assertTrue(
            e.getMessage().contains("may not read local files") && e.getMessage().contains(url),
            e.getMessage());
        assertArrayEquals(chunk, s.getBytes("group1/big_chunks/c/0/1").orElseThrow());
      }
    } finally {
      Files.deleteIfExists(target);
    }
  }
}
