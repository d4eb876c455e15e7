package dev.zaro.remote;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.store.AbstractStoreTest;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.Stores;
import dev.zaro.arrow.store.TestHttpServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** gs:// against a loopback server that answers like storage.googleapis.com. */
class GcsStoreTest extends AbstractStoreTest {
  @TempDir Path dir;
  TestHttpServer server;

  @Override
  protected Store createStore(Map<String, byte[]> contents) throws Exception {
    for (String bucketPrefix : List.of("bucket/pre/fix", "privatebucket/data")) {
      for (var e : contents.entrySet()) {
        Path file = dir.resolve(bucketPrefix).resolve(e.getKey());
        Files.createDirectories(file.getParent());
        Files.write(file, e.getValue());
      }
    }
    Files.writeString(dir.resolve("bucket/pre/fixture-sibling"), "not in the store");
    server = new TestHttpServer(dir);
    return new GcsStore(server.endpoint(), "bucket", "pre/fix", HttpStoreTest.FAST);
  }

  @AfterEach
  void stopServer() {
    server.close();
  }

  @Test
  void describesItselfAsAGsUrl() {
    assertTrue(store.describe().startsWith("gs://bucket/pre/fix"), store.describe());
    StoreException e =
        assertThrows(
            StoreException.class, () -> store.get("a/c/0/1", ByteRange.of(5, 10), allocator));
    assertTrue(
        e.getMessage().contains(server.endpoint() + "/bucket/pre/fix/a/c/0/1"), e.getMessage());
  }

  @Test
  void theEndpointComesFromASystemProperty() {
    String old = System.getProperty(GcsStore.ENDPOINT_PROPERTY);
    System.setProperty(GcsStore.ENDPOINT_PROPERTY, server.endpoint());
    try (Store s = Stores.open("gs://bucket/pre/fix/")) {
      assertArrayEquals(CONTENTS.get("a/c/0/0"), s.getBytes("a/c/0/0").orElseThrow());
      assertEquals(List.of("b/x/y/z"), s.list("b").toList());
    } finally {
      if (old == null) {
        System.clearProperty(GcsStore.ENDPOINT_PROPERTY);
      } else {
        System.setProperty(GcsStore.ENDPOINT_PROPERTY, old);
      }
    }
    System.clearProperty(GcsStore.ENDPOINT_PROPERTY);
    if (System.getenv(GcsStore.ENDPOINT_ENV) == null) {
      assertEquals(GcsStore.DEFAULT_ENDPOINT, GcsStore.endpoint());
    }
    assertThrows(StoreException.class, () -> Stores.open("gs:///x"));
  }

  /**
   * A listing longer than a page (two names here) told to skip below {@code a} walks the bucket's
   * directories ({@code delimiter=/}) and asks for nothing below {@code a}; without a skip, every
   * page of the flat listing.
   */
  @Test
  void aLongListingSkipsBelowTheDirectoriesItIsTold() {
    List<String> all = store.list("").toList();
    assertEquals(
        List.of("a/c/0/0", "a/c/0/1", "a/c/1/0", "a/zarr.json", "b/x/y/z", "zarr.json"), all);
    server.queries.clear();
    assertEquals(
        List.of("a/zarr.json", "b/x/y/z", "zarr.json"),
        store.list("", d -> d.equals("a")).toList());
    for (String q : server.queries) {
      assertTrue(!q.contains("prefix=pre%2Ffix%2Fa%2Fc"), q);
    }
    assertTrue(
        server.queries.stream().anyMatch(q -> q.contains("delimiter=%2F")),
        server.queries.toString());
  }

  @Test
  void aBucketThatRefusesListingListsNothingButStillReads() {
    try (GcsStore s =
        new GcsStore(server.endpoint(), "privatebucket", "data", HttpStoreTest.FAST)) {
      assertEquals(List.of(), s.list("").toList());
      assertArrayEquals(CONTENTS.get("b/x/y/z"), s.getBytes("b/x/y/z").orElseThrow());
    }
  }
}
