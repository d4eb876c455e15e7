package dev.zaro.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.store.Stores;
import dev.zaro.arrow.store.icechunk.IcechunkExpected;
import dev.zaro.arrow.store.icechunk.IcechunkStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Icechunk with S3, against moto_server on loopback: Icechunk's test repositories read from a
 * bucket ({@code icechunk+s3://}), and their virtual chunk ({@code
 * s3://testbucket/can_read_old/chunk-1}) served as Icechunk's own test serves it (the bytes of
 * chunk 0/1), so every array, virtual chunk included, equals what Icechunk's script wrote.
 */
class IcechunkS3Test extends AllocatorTest {
  static final String BUCKET = "icechunk-fixtures";
  static MotoServer moto;
  static S3Client admin;

  @BeforeAll
  static void startMoto() throws Exception {
    moto = MotoServer.start();
    admin = moto.admin();
    admin.createBucket(b -> b.bucket(BUCKET));
    Path icechunk = Fixtures.testdata().resolve("icechunk");
    for (String repo : List.of("test-repo-v1", "test-repo-v2", "test-repo-v2-migrated")) {
      try (var files = Files.walk(icechunk.resolve(repo))) {
        for (Path f : files.filter(Files::isRegularFile).toList()) {
          String key = "repos/" + icechunk.relativize(f).toString().replace('\\', '/');
          admin.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromFile(f));
        }
      }
    }
    // as icechunk's test_can_read_old does: the virtual chunk holds the bytes of chunk 0/1
    admin.createBucket(b -> b.bucket("testbucket"));
    admin.putObject(
        b -> b.bucket("testbucket").key("can_read_old/chunk-1"),
        RequestBody.fromFile(
            icechunk.resolve(IcechunkExpected.doc().get("virtual_chunk_bytes").asText())));
    // the virtual chunk's URL names no endpoint: zaro-s3 takes it from this property
    System.setProperty(S3Store.ENDPOINT_PROPERTY, moto.endpoint().toString());
  }

  @AfterAll
  static void stopMoto() throws Exception {
    System.clearProperty(S3Store.ENDPOINT_PROPERTY);
    if (admin != null) {
      admin.close();
    }
    if (moto != null) {
      moto.close();
    }
  }

  /** (label, case, over) for the test-repo cases, from a local directory and from S3. */
  static List<Arguments> cases() throws Exception {
    List<Arguments> out = new ArrayList<>();
    for (JsonNode c : IcechunkExpected.doc().get("cases")) {
      if (c.get("repo").asText().startsWith("test-repo")) {
        for (String over : List.of("local", "s3")) {
          out.add(Arguments.of(c.get("repo").asText() + " " + c.get("ref") + " " + over, c, over));
        }
      }
    }
    return out;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void everyArrayVirtualChunksIncludedEqualsWhatIcechunksScriptWrote(
      String label, JsonNode c, String over) throws Exception {
    String repo = c.get("repo").asText();
    String query = IcechunkExpected.query(c.get("ref"));
    String location =
        over.equals("local")
            ? "icechunk://" + Fixtures.testdata().resolve("icechunk").resolve(repo) + query
            : "icechunk+s3://"
                + BUCKET
                + "/repos/"
                + repo
                + (query.isEmpty() ? "?" : query + "&")
                + "region=us-east-1";
    try (Zaro zaro = Zaro.open(location)) {
      assertEquals(c.get("history").get(0).asText(), ((IcechunkStore) zaro.store()).message());
      assertEquals(c.get("groups").size() + c.get("arrays").size(), zaro.list().size());
      for (var a : c.get("arrays").properties()) {
        IcechunkExpected.checkArray(zaro, a.getKey(), a.getValue(), allocator, true);
      }
    }
  }

  @Test
  void optionsPassToTheS3StoreAndMissingRepositoriesAreClearErrors() {
    String loc =
        "icechunk+s3://"
            + BUCKET
            + "/repos/test-repo-v1?endpoint="
            + moto.endpoint()
            + "&tag=it%20works!&region=us-east-1";
    try (IcechunkStore s = (IcechunkStore) Stores.open(loc)) {
      assertEquals("delete a chunk", s.message());
      assertTrue(
          s.describe().startsWith("icechunk+s3://" + BUCKET + "/repos/test-repo-v1"), s.describe());
    }
    StoreException e =
        assertThrows(
            StoreException.class,
            () -> Stores.open("icechunk+s3://" + BUCKET + "/repos/nothing-here").close());
    assertTrue(e.getMessage().contains("is not an Icechunk repository"), e.getMessage());
    e =
        assertThrows(
            StoreException.class,
            () -> Stores.open("icechunk+s3://" + BUCKET + "/repos/test-repo-v1?colour=red"));
    assertTrue(e.getMessage().contains("unknown option 'colour'"), e.getMessage());
  }
}
