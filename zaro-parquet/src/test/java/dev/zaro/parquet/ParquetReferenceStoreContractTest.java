package dev.zaro.parquet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.store.AbstractStoreTest;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.Stores;
import dev.zaro.arrow.store.TestHttpServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;

/**
 * The {@link AbstractStoreTest} contract over the Parquet reference fixture testdata/kerchunk/
 * simple.parq (written with pyarrow by generate_kerchunk.py), locally and over HTTP. The store is
 * read-only, so the contract runs over what the generator wrote: the keys are those of its JSON
 * twin simple.v0.json plus {@code .zmetadata}, and the bytes known are the chunks manifest.json
 * locates in data/simple.h5 (offset and size from h5py's chunk index; inline chunks included, as
 * they are those same bytes).
 */
class ParquetReferenceStoreContractTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  static Path dir() {
    return Fixtures.testdata().resolve("kerchunk");
  }

  /** The Parquet references of simple.h5. */
  abstract static class OverSimple extends AbstractStoreTest {
    @Override
    protected Fixture fixture() throws IOException {
      byte[] h5 = Files.readAllBytes(dir().resolve("data/simple.h5"));
      JsonNode manifest = JSON.readTree(Files.readAllBytes(dir().resolve("manifest.json")));
      Map<String, byte[]> contents = new TreeMap<>();
      for (JsonNode array : manifest.path("references").path("simple.v0.json").path("arrays")) {
        for (var chunk : array.path("chunks").properties()) {
          int offset = chunk.getValue().get("offset").asInt();
          int size = chunk.getValue().get("size").asInt();
          contents.put(chunk.getKey(), Arrays.copyOfRange(h5, offset, offset + size));
        }
      }
      JsonNode refs = JSON.readTree(Files.readAllBytes(dir().resolve("simple.v0.json")));
      List<String> keys = new ArrayList<>();
      refs.fieldNames().forEachRemaining(keys::add);
      keys.add(".zmetadata");
      return new Fixture(
          contents,
          keys.stream().sorted().toList(),
          "temp/0.0",
          "big/1",
          List.of("temp/", "big/", "shuffled/1", "zz/"),
          "temp");
    }
  }

  @Nested
  class Local extends OverSimple {
    @Override
    protected Store createStore(Map<String, byte[]> ignored) {
      return Stores.open("reference+parquet://" + dir().resolve("simple.parq"));
    }
  }

  @Nested
  class OverHttp extends OverSimple {
    private TestHttpServer server;

    @Override
    protected Store createStore(Map<String, byte[]> ignored) throws Exception {
      server = new TestHttpServer(dir());
      return Stores.open("reference+parquet://" + server.url("simple.parq"));
    }

    @AfterEach
    void stopServer() {
      server.close();
    }
  }
}
