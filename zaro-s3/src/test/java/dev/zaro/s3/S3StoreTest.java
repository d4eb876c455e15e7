package dev.zaro.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.read.Hierarchy;
import dev.zaro.arrow.read.Node;
import dev.zaro.arrow.store.AbstractStoreTest;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.FileStore;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.Stores;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ObjectCannedACL;

/**
 * S3Store against moto_server on loopback: the shared store contract, options, kerchunk over S3.
 */
class S3StoreTest extends AbstractStoreTest {
  static MotoServer moto;
  static S3Client admin;
  static final AtomicInteger BUCKETS = new AtomicInteger();
  String bucket;

  /** Marks a subclass whose moto_server serves https (testdata/tls's loopback certificate). */
  interface OverTls {}

  @BeforeAll
  static void startMoto(TestInfo test) throws Exception {
    boolean tls = OverTls.class.isAssignableFrom(test.getTestClass().orElseThrow());
    moto = MotoServer.start(Map.of(), tls);
    admin = moto.admin();
  }

  @AfterAll
  static void stopMoto() throws Exception {
    if (admin != null) {
      admin.close();
    }
    if (moto != null) {
      moto.close();
    }
  }

  static void put(String bucket, String key, byte[] value) {
    admin.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(value));
  }

  /** Whether object GETs go through the SDK's client (else zaro's own HTTP/1.1 client). */
  boolean sdkGets() {
    return false;
  }

  S3Options options() {
    return S3Options.DEFAULT
        .withEndpoint(moto.endpoint(), true)
        .withRegion("us-east-1")
        .withSdkGets(sdkGets());
  }

  @Override
  protected Store createStore(Map<String, byte[]> contents) {
    bucket = "zaro-test-" + BUCKETS.incrementAndGet();
    admin.createBucket(b -> b.bucket(bucket));
    contents.forEach((k, v) -> put(bucket, "pre/fix/" + k, v));
    put(bucket, "pre/fixture-sibling", new byte[] {1});
    put(bucket, "other/zarr.json", new byte[] {1});
    return new S3Store(bucket, "pre/fix", options());
  }

  private byte[] read(Store s, String key, ByteRange range) {
    try (ArrowBuf buf = s.get(key, range, allocator).orElseThrow()) {
      byte[] out = new byte[(int) buf.writerIndex()];
      buf.getBytes(0, out);
      return out;
    }
  }

  @Test
  void opensThroughStoresWithUrlOptions() {
    String url = "s3://" + bucket + "/pre/fix?endpoint=" + moto.endpoint() + "&region=us-east-1";
    try (Store s = Stores.open(url)) {
      assertTrue(s instanceof S3Store);
      assertArrayEquals(CONTENTS.get("a/c/0/0"), s.getBytes("a/c/0/0").orElseThrow());
      assertEquals(List.of("b/x/y/z"), s.list("b/").toList());
      assertTrue(s.describe().startsWith("s3://" + bucket + "/pre/fix"), s.describe());
      assertTrue(!((S3Store) s).anonymous());
    }
    try (Store s = Stores.open(url + "&anonymous=true")) {
      assertTrue(((S3Store) s).anonymous());
      StoreException e = assertThrows(StoreException.class, () -> s.getBytes("zarr.json"));
      assertTrue(
          e.getMessage().contains("access denied (HTTP 403)")
              && e.getMessage().contains("anonymous")
              && e.getMessage().contains("pre/fix/zarr.json"),
          e.getMessage());
    }
    admin.putObject(
        b -> b.bucket(bucket).key("public/zarr.json").acl(ObjectCannedACL.PUBLIC_READ),
        RequestBody.fromString("{}"));
    try (Store s =
        Stores.open("s3://" + bucket + "/public?anonymous=true&endpoint=" + moto.endpoint())) {
      assertEquals("{}", new String(s.getBytes("zarr.json").orElseThrow(), StandardCharsets.UTF_8));
    }
    StoreException e =
        assertThrows(StoreException.class, () -> Stores.open("s3://" + bucket + "?colour=blue"));
    assertTrue(e.getMessage().contains("unknown option 'colour'"), e.getMessage());
  }

  @Test
  void objectGetsGoThroughTheClientAsked() {
    try (S3Store s = new S3Store(bucket, "pre/fix", options())) {
      assertEquals(!sdkGets(), s.zaroGets());
    }
    String url = "s3://" + bucket + "/pre/fix?endpoint=" + moto.endpoint();
    try (S3Store zaro = S3Store.open(url);
        S3Store sdk = S3Store.open(url + "&client=sdk");
        S3Store virtualHosts = S3Store.open(url + "&path_style=false");
        S3Store tls = S3Store.open("s3://" + bucket + "?endpoint=https://127.0.0.1:1");
        S3Store aws = S3Store.open("s3://" + bucket + "/pre/fix?region=eu-west-1");
        S3Store directory = S3Store.open("s3://zaro--euw1-az1--x-s3?region=eu-west-1")) {
      assertTrue(zaro.zaroGets() && tls.zaroGets() && virtualHosts.zaroGets() && aws.zaroGets());
      assertArrayEquals(CONTENTS.get("a/c/0/0"), zaro.getBytes("a/c/0/0").orElseThrow());
      // the URLs the SDK's own GETs go to: virtual-host style on AWS, path style at an IP address
      assertEquals(
          URI.create("https://" + bucket + ".s3.eu-west-1.amazonaws.com/pre/fix/"),
          aws.objectsUrl());
      assertEquals(moto.endpoint().resolve("/" + bucket + "/pre/fix/"), virtualHosts.objectsUrl());
      assertArrayEquals(CONTENTS.get("a/c/0/0"), virtualHosts.getBytes("a/c/0/0").orElseThrow());
      // S3 Express directory buckets sign with session credentials: the SDK's GETs
      assertTrue(!sdk.zaroGets() && !directory.zaroGets());
      assertArrayEquals(CONTENTS.get("a/c/0/0"), sdk.getBytes("a/c/0/0").orElseThrow());
    }
    System.setProperty(S3Store.CLIENT_PROPERTY, "sdk");
    try (S3Store s = S3Store.open(url)) {
      assertTrue(!s.zaroGets());
    } finally {
      System.clearProperty(S3Store.CLIENT_PROPERTY);
    }
    StoreException e = assertThrows(StoreException.class, () -> S3Store.open(url + "&client=curl"));
    assertTrue(e.getMessage().contains("client=curl"), e.getMessage());
  }

  @Test
  void theEndpointComesFromASystemProperty() {
    System.setProperty(S3Store.ENDPOINT_PROPERTY, moto.endpoint().toString());
    try (Store s = Stores.open("s3://" + bucket + "/pre")) {
      assertArrayEquals(CONTENTS.get("b/x/y/z"), read(s, "fix/b/x/y/z", ByteRange.ALL));
      assertEquals(
          List.of("fix/a/c/0/0", "fix/a/c/0/1", "fix/a/c/1/0"), s.list("fix/a/c/").toList());
    } finally {
      System.clearProperty(S3Store.ENDPOINT_PROPERTY);
    }
  }

  /**
   * Reads, listings, zero-length ranges and absent keys through zaro's client build no SDK client;
   * with {@code client=sdk} the first read builds it.
   */
  @Test
  void theSdkClientIsBuiltWhenARequestNeedsIt() {
    try (S3Store s = new S3Store(bucket, "pre/fix", options())) {
      assertTrue(!s.sdkClientBuilt());
      assertArrayEquals(CONTENTS.get("a/c/0/0"), s.getBytes("a/c/0/0").orElseThrow());
      assertArrayEquals(CONTENTS.get("a/c/0/1"), read(s, "a/c/0/1", ByteRange.ALL));
      assertEquals(sdkGets(), s.sdkClientBuilt());
      assertEquals(List.of("a/c/0/0", "a/c/0/1", "a/c/1/0"), s.list("a/c/").toList());
      assertEquals(0, read(s, "a/c/0/1", ByteRange.of(3, 0)).length);
      assertTrue(s.get("a/c/9/9", ByteRange.ALL, allocator).isEmpty());
      assertEquals(sdkGets(), s.sdkClientBuilt());
    }
    // closed before any request: nothing was built, nothing to shut down
    try (S3Store s = new S3Store(bucket, "pre/fix", options())) {
      assertTrue(!s.sdkClientBuilt());
    }
  }

  /**
   * Keys with characters URLs and XML escape (space, plus, percent, ampersand, angle brackets,
   * non-ASCII), listed a page of two at a time: what moto holds, as put, whichever client lists.
   */
  @Test
  void listingPagesThroughKeysWithAnyCharacters() {
    List<String> odd =
        List.of(
            "odd/a b/c+d/zarr.json",
            "odd/p%25q/&amp;/zarr.json",
            "odd/<x>/\"y\"/'z'/c/0",
            "odd/ü€/日本/c/0",
            "odd/~!$()*,;=:@/c/0");
    for (String k : odd) {
      put(bucket, "pre/fix/" + k, new byte[] {2});
    }
    try (S3Store s = new S3Store(bucket, "pre/fix", options())) {
      s.listPageSize = 2;
      assertEquals(odd.stream().sorted().toList(), s.list("odd/").toList());
      List<String> all = s.list("").toList();
      s.listPageSize = 0;
      assertEquals(s.list("").toList(), all);
      assertTrue(all.containsAll(odd) && all.contains("a/zarr.json"), all.toString());
    }
  }

  /**
   * A listing longer than a page (two keys here) told to skip below {@code a} walks directories and
   * leaves {@code a}'s subdirectories out, its own keys in; moto's {@code delimiter} replies read
   * by either client.
   */
  @Test
  void aLongListingSkipsBelowTheDirectoriesItIsTold() {
    try (S3Store s = new S3Store(bucket, "pre/fix", options())) {
      s.listPageSize = 2;
      List<String> all = s.list("").toList();
      assertEquals(
          all.stream().filter(k -> !k.startsWith("a/") || k.indexOf('/', 2) < 0).toList(),
          s.list("", d -> d.equals("a")).toList());
      assertTrue(all.contains("a/c/0/0") && all.contains("a/zarr.json"), all.toString());
      assertEquals(List.of("b/x/y/z"), s.list("b", d -> d.equals("b/x")).toList());
      s.listPageSize = 0; // it fits a page: that page, everything in it
      assertEquals(all, s.list("", d -> d.equals("a")).toList());
    }
  }

  /**
   * A hierarchy without consolidated metadata (the bundled sample, its root's consolidated entry
   * taken out) lists the same nodes over S3, walked a page of two at a time, as from local files.
   */
  @Test
  void aHierarchyListsTheSameNodesWalkedOverS3() throws Exception {
    Path sample = Fixtures.testdata().resolve("sample/climate.zarr");
    try (Stream<Path> files = Files.walk(sample)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        String key = sample.relativize(f).toString().replace('\\', '/');
        byte[] value = Files.readAllBytes(f);
        if (key.equals("zarr.json")) {
          ObjectNode root = (ObjectNode) new ObjectMapper().readTree(value);
          root.remove("consolidated_metadata");
          value = new ObjectMapper().writeValueAsBytes(root);
        }
        put(bucket, "walk/sample.zarr/" + key, value);
      }
    }
    List<String> local;
    try (FileStore files = new FileStore(sample)) {
      local = new Hierarchy(files).list().stream().map(Node::path).toList();
    }
    try (S3Store s = new S3Store(bucket, "walk/sample.zarr", options())) {
      s.listPageSize = 2;
      assertEquals(local, new Hierarchy(s).list().stream().map(Node::path).toList());
      assertTrue(local.size() > 3, local.toString());
    }
  }

  @Test
  void aMissingBucketIsAClearError() {
    try (S3Store s = new S3Store("no-such-bucket-zaro", "", options())) {
      StoreException e =
          assertThrows(StoreException.class, () -> s.get("zarr.json", ByteRange.ALL, allocator));
      assertTrue(e.getMessage().contains("no-such-bucket-zaro"), e.getMessage());
      e = assertThrows(StoreException.class, () -> s.list("").toList());
      assertTrue(e.getMessage().contains("no such bucket 'no-such-bucket-zaro'"), e.getMessage());
    }
  }

  /**
   * The kerchunk fixtures uploaded to S3: the reference file and its targets both in the bucket.
   */
  @Test
  void kerchunkReferencesOverS3() throws Exception {
    Path dir = Fixtures.testdata().resolve("kerchunk");
    for (String f :
        List.of("simple.v0.json", "simple.v1.json", "data/simple.h5", "data/note.txt")) {
      put(bucket, "kerchunk/" + f, Files.readAllBytes(dir.resolve(f)));
    }
    // a reference file in S3 that points at a local file
    put(
        bucket,
        "kerchunk/evil.json",
        ("{\"k\": [\"" + dir.resolve("data/note.txt") + "\"]}").getBytes(StandardCharsets.UTF_8));
    byte[] h5 = Files.readAllBytes(dir.resolve("data/simple.h5"));
    JsonNode arrays =
        new ObjectMapper()
            .readTree(Files.readAllBytes(dir.resolve("manifest.json")))
            .get("references")
            .get("simple.v1.json")
            .get("arrays");
    System.setProperty(S3Store.ENDPOINT_PROPERTY, moto.endpoint().toString());
    try {
      for (String ref : List.of("simple.v0.json", "simple.v1.json")) {
        try (Store s = Stores.open("reference+json://s3://" + bucket + "/kerchunk/" + ref)) {
          int n = 0;
          for (var array : arrays.properties()) {
            for (var chunk : array.getValue().get("chunks").properties()) {
              int off = chunk.getValue().get("offset").asInt();
              int size = chunk.getValue().get("size").asInt();
              assertArrayEquals(
                  Arrays.copyOfRange(h5, off, off + size),
                  read(s, chunk.getKey(), ByteRange.ALL),
                  ref + " " + chunk.getKey());
              n++;
            }
          }
          assertTrue(n > 10);
        }
      }
      try (Store s = Stores.open("reference+json://s3://" + bucket + "/kerchunk/evil.json")) {
        StoreException e = assertThrows(StoreException.class, () -> s.getBytes("k"));
        assertTrue(e.getMessage().contains("may not read local files"), e.getMessage());
      }
    } finally {
      System.clearProperty(S3Store.ENDPOINT_PROPERTY);
    }
  }
}
