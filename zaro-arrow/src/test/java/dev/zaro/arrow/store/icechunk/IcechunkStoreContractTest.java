package dev.zaro.arrow.store.icechunk;

import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.store.AbstractStoreTest;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.Stores;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Nested;

/**
 * The {@link AbstractStoreTest} contract over Icechunk's own repositories (testdata/icechunk), at
 * the snapshot of the commit "fill data" (expected.json): the store is read-only, so the contract
 * runs over what Icechunk wrote. The keys are the hierarchy expected.json describes (root, {@code
 * group1}, {@code big_chunks} with its 2x2 chunks, {@code small_chunks} with its 5 inline chunks);
 * the bytes known are those of the native chunks of {@code big_chunks}, which Icechunk wrote as
 * identical chunk files (the file expected.json names in {@code virtual_chunk_bytes}).
 */
class IcechunkStoreContractTest {
  /** One repository at its "fill data" snapshot. */
  abstract static class OverRepository extends AbstractStoreTest {
    abstract String repo();

    abstract String fillDataSnapshot();

    @Override
    protected Store createStore(Map<String, byte[]> ignored) {
      Path dir = Fixtures.testdata().resolve("icechunk").resolve(repo());
      return Stores.open("icechunk://" + dir + "?snapshot=" + fillDataSnapshot());
    }

    @Override
    protected Fixture fixture() throws IOException {
      byte[] chunk =
          Files.readAllBytes(
              Fixtures.testdata()
                  .resolve("icechunk")
                  .resolve(IcechunkExpected.doc().get("virtual_chunk_bytes").asText()));
      Map<String, byte[]> contents = new TreeMap<>();
      for (String k : IcechunkStoreTest.KEYS) {
        if (k.startsWith("group1/big_chunks/c/")) {
          contents.put(k, chunk);
        }
      }
      return new Fixture(
          contents,
          IcechunkStoreTest.KEYS,
          "group1/big_chunks/c/0/1",
          "group1/big_chunks/c/1/0",
          List.of("group1/big_chunks/c/", "group1/small_chunks/", "group1/", "zz/"),
          "group1");
    }
  }

  @Nested
  class FormatOne extends OverRepository {
    @Override
    String repo() {
      return "test-repo-v1";
    }

    @Override
    String fillDataSnapshot() {
      return "7XAF0Q905SH4938DN9CG";
    }
  }

  @Nested
  class FormatTwo extends OverRepository {
    @Override
    String repo() {
      return "test-repo-v2";
    }

    @Override
    String fillDataSnapshot() {
      return "ZA24GZGPNK3GH682Q1R0";
    }
  }
}
