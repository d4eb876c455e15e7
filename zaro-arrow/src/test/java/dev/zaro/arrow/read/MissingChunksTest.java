package dev.zaro.arrow.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.StoreException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --missing-chunks error: a read touching an absent chunk (or shard) fails naming its key. */
class MissingChunksTest extends AllocatorTest {
  private static final ZaroOptions ERROR =
      ZaroOptions.defaults().withMissingChunks(MissingChunks.ERROR);

  @TempDir Path temp;

  /** tensorstore left chunks c/1/2..c/3/4 of sparse_interior unwritten. */
  @Test
  void absentChunkIsAnErrorNamingItsKey() {
    String store = Fixtures.testdata().resolve("core/stores/sparse_interior.zarr").toString();
    try (Zaro zaro = Zaro.open(store, ERROR)) {
      StoreException e =
          assertThrows(StoreException.class, () -> zaro.read("", "6:12, 10:15", allocator).close());
      assertEquals(ErrorKind.MISSING_CHUNK, e.kind());
      assertTrue(e.getMessage().contains("key 'c/1/2'"), e.getMessage());
      // reads of present chunks only still work; so does the default policy
      zaro.read("", "0:6, :", allocator).close();
    }
    try (Zaro zaro = Zaro.open(store)) {
      zaro.read("", "", allocator).close();
    }
  }

  /** An absent shard is an absent chunk too (read through the shard reader). */
  @Test
  void absentShardIsAnError() throws IOException {
    Path copy = copy(Fixtures.testdata().resolve("sharding/stores/end_zstd.zarr"));
    Files.delete(copy.resolve("c/1/2"));
    try (Zaro zaro = Zaro.open(copy.toString(), ERROR)) {
      StoreException e =
          assertThrows(StoreException.class, () -> zaro.read("", "", allocator).close());
      assertEquals(ErrorKind.MISSING_CHUNK, e.kind());
      assertTrue(e.getMessage().contains("c/1/2"), e.getMessage());
      zaro.read("", "0:10, :", allocator).close();
    }
  }

  private Path copy(Path store) throws IOException {
    Path out = temp.resolve(store.getFileName().toString());
    try (Stream<Path> files = Files.walk(store)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path target = out.resolve(store.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else {
          Files.copy(f, target);
        }
      }
    }
    return out;
  }
}
