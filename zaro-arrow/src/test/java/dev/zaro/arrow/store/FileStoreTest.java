package dev.zaro.arrow.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.error.StoreException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileStoreTest extends AbstractStoreTest {
  @TempDir Path dir;

  @Override
  protected Store createStore(Map<String, byte[]> contents) throws Exception {
    Path root = dir.resolve("store");
    for (var e : contents.entrySet()) {
      Path file = root.resolve(e.getKey());
      Files.createDirectories(file.getParent());
      Files.write(file, e.getValue());
    }
    Files.writeString(dir.resolve("outside"), "secret");
    return new FileStore(root);
  }

  @Test
  void aMissingRootIsAClearError() {
    StoreException e = assertThrows(StoreException.class, () -> new FileStore(dir.resolve("nope")));
    assertTrue(e.getMessage().contains("no such directory"), e.getMessage());
  }

  @Test
  void directoriesAreNotValues() {
    assertEquals(Optional.empty(), store.getBytes("a"));
    assertEquals(Optional.empty(), store.get("a/c", ByteRange.ALL, allocator));
  }

  @Test
  void storesOpenByPathAndFileUrl() {
    try (Store s = Stores.open(dir.resolve("store").toString())) {
      assertTrue(s.getBytes("zarr.json").isPresent());
    }
    try (Store s = Stores.open(dir.resolve("store").toUri().toString())) {
      assertTrue(s.getBytes("zarr.json").isPresent());
    }
    StoreException e = assertThrows(StoreException.class, () -> Stores.open("ftp://x/y"));
    assertTrue(e.getMessage().contains("unknown scheme 'ftp'"), e.getMessage());
  }

  /** Directories below an array are never walked: a/c/... is left out, a/zarr.json is not. */
  @Test
  void doesNotWalkBelowSkippedDirectories() {
    assertEquals(
        List.of("a/zarr.json", "b/x/y/z", "zarr.json"),
        store.list("", d -> d.equals("a")).toList());
    assertEquals(List.of("a/zarr.json", "zarr.json"), store.list("", d -> true).toList());
  }
}
