package dev.zaro.arrow.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.StoreException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StoreLocationTest {
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "s3://bucket/a/b.zarr?region=eu-west-1 | s3 | bucket | a/b.zarr | region=eu-west-1",
        "S3A://bucket | s3 | bucket | '' | ''",
        "gcs://b/p/ | gs | b | p/ | ''",
        "https://host:8080/x/y?sig=a%2Bb&e=1 | https | host:8080 | x/y | sig=a%2Bb&e=1",
        "icechunk+s3://b/repo?branch=dev | icechunk+s3 | b | repo | branch=dev",
        "reference+json://https://h/refs.json | reference+json | https: | /h/refs.json | ''",
      })
  void takesLocationsApart(
      String location, String scheme, String authority, String path, String query) {
    StoreLocation l = StoreLocation.parse(location);
    assertEquals(scheme, l.scheme());
    assertEquals(authority, l.authority());
    assertEquals(path, l.path());
    assertEquals(query, l.query());
    assertFalse(l.isLocal());
    assertEquals(location, l.location());
  }

  @Test
  void localPathsAndFileUrls(@TempDir Path dir) {
    StoreLocation plain = StoreLocation.parse(dir.toString());
    assertTrue(plain.isLocal());
    assertEquals("", plain.scheme());
    assertEquals(dir, plain.localPath());
    StoreLocation url = StoreLocation.parse(dir.toUri().toString());
    assertTrue(url.isLocal());
    assertEquals(dir, url.localPath());
    assertEquals(dir.getParent().toString() + "/", url.parent());
    StoreException e =
        assertThrows(StoreException.class, () -> StoreLocation.parse("file://x y%").localPath());
    assertTrue(e.getMessage().contains("not a valid file URL"), e.getMessage());
  }

  @Test
  void optionsAreDecodedAndCheckedAgainstTheKnownOnes() {
    StoreLocation l =
        StoreLocation.parse("s3://b/p?Path-Style&endpoint=http%3A%2F%2Fh%3A9000&x=a+b");
    List<StoreLocation.Option> options = l.options();
    assertEquals(3, options.size());
    assertEquals("path_style", options.get(0).key());
    assertNull(options.get(0).value());
    assertEquals("http://h:9000", options.get(1).value());
    assertEquals("a+b", options.get(2).value(), "a plus stays a plus");
    assertEquals("x=a+b", options.get(2).written());
    StoreException e =
        assertThrows(
            StoreException.class, () -> l.options(List.of("path_style", "endpoint"), "a, b"));
    assertEquals(ErrorKind.INVALID_ARGUMENT, e.kind());
    assertEquals(
        "store 's3://b/p?Path-Style&endpoint=http%3A%2F%2Fh%3A9000&x=a+b': unknown option 'x'"
            + " (known: a, b)",
        e.getMessage());
    Map<String, String> known =
        StoreLocation.parse("s3://b?path-style&region=r")
            .options(List.of("path_style", "region"), "");
    assertEquals(Map.of("path_style", "true", "region", "r"), known);
    e =
        assertThrows(
            StoreException.class, () -> StoreLocation.parse("s3://b?region=%zz").options());
    assertTrue(e.getMessage().contains("bad escape in 'region=%zz'"), e.getMessage());
  }

  @Test
  void noLocationIsATypedError() {
    for (String blank : new String[] {null, "", "  "}) {
      StoreException e = assertThrows(StoreException.class, () -> StoreLocation.parse(blank));
      assertEquals("no store given", e.getMessage());
    }
  }

  @Test
  void filesInFoldersAndParents() {
    StoreLocation l = StoreLocation.parse("https://h/d/my%20refs.json?sig=1");
    assertEquals(new StoreLocation.FileIn("https://h/d/?sig=1", "my refs.json"), l.fileIn("none"));
    assertEquals("https://h/d/", l.parent());
    for (String noFile : new String[] {"https://h/d/", "s3://bucket", "/local/file"}) {
      StoreException e =
          assertThrows(
              StoreException.class, () -> StoreLocation.parse(noFile).fileIn("names no file"));
      assertEquals("names no file", e.getMessage());
    }
    assertNull(StoreLocation.parse("s3://bucket").parent());
    assertEquals("s3://bucket/", StoreLocation.parse("s3://bucket/x").parent());
    assertEquals("gs://b/k?x=1", StoreLocation.parse("GCS://b/k?x=1").canonical());
    assertEquals("b/k?x=1", StoreLocation.parse("gs://b/k?x=1").inner());
    assertEquals(
        "s3://b/r?colour=red",
        StoreLocation.of(
            "s3", "b/r", StoreLocation.parse("icechunk+s3://b/r?colour=red").options()));
  }
}
