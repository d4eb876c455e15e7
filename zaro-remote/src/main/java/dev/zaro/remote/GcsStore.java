package dev.zaro.remote;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreKeys;
import dev.zaro.arrow.store.StoreLocation;
import dev.zaro.remote.spi.Listing;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Public Google Cloud Storage data: {@code gs://bucket/prefix} read over HTTPS from {@code
 * https://storage.googleapis.com/bucket/prefix/} (an {@link HttpStore}, so ranges, retries and
 * timeouts behave the same), listed through the JSON API ({@code /storage/v1/b/BUCKET/o}). A bucket
 * that refuses anonymous listing falls back to the keys consolidated metadata names.
 *
 * <p>The endpoint is {@code https://storage.googleapis.com} unless the system property {@value
 * #ENDPOINT_PROPERTY} or the environment variable {@value #ENDPOINT_ENV} names another (a local
 * emulator or test server). Requests are anonymous; for private data pass an {@code Authorization}
 * header through {@link HttpOptions#withHeaders}.
 */
public final class GcsStore implements Store {
  /** The system property naming another endpoint (a test server). */
  public static final String ENDPOINT_PROPERTY = "zaro.gcs.endpoint";

  /** The environment variable naming another endpoint. */
  public static final String ENDPOINT_ENV = "ZARO_GCS_ENDPOINT";

  /** Google Cloud Storage's public endpoint. */
  public static final String DEFAULT_ENDPOINT = "https://storage.googleapis.com";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String endpoint;
  private final String bucket;
  private final String prefix;
  private final HttpStore http;

  /** Opens {@code gs://bucket[/prefix]}. */
  public static GcsStore open(String location) {
    return open(StoreLocation.parse(location), HttpOptions.DEFAULT);
  }

  /**
   * Opens {@code gs://bucket[/prefix]} with {@code options}. The query, if any, is not read (GCS
   * takes its settings from {@code options} and the endpoint property).
   */
  public static GcsStore open(StoreLocation location, HttpOptions options) {
    if (!location.scheme().equals("gs")) {
      throw new StoreException(ErrorKind.INVALID_ARGUMENT, "not a gs:// URL: '" + location + "'");
    }
    if (location.authority().isEmpty()) {
      throw location.error("no bucket (use gs://bucket/prefix)");
    }
    return new GcsStore(
        endpoint(), location.authority(), StoreKeys.stripSlashes(location.path()), options);
  }

  /** The endpoint in force: the system property, else the environment variable, else Google's. */
  public static String endpoint() {
    String e = System.getProperty(ENDPOINT_PROPERTY);
    if (e == null || e.isBlank()) {
      e = System.getenv(ENDPOINT_ENV);
    }
    return e == null || e.isBlank() ? DEFAULT_ENDPOINT : e;
  }

  /** The store of {@code bucket} under {@code prefix} at {@code endpoint}. */
  public GcsStore(String endpoint, String bucket, String prefix, HttpOptions options) {
    this.endpoint =
        endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint;
    this.bucket = bucket;
    this.prefix = StoreKeys.stripSlashes(prefix);
    String name = "gs://" + bucket + (this.prefix.isEmpty() ? "" : "/" + this.prefix);
    URI base;
    try {
      base =
          new URI(
              this.endpoint
                  + "/"
                  + StoreKeys.encodePath(bucket)
                  + (this.prefix.isEmpty() ? "" : "/" + StoreKeys.encodePath(this.prefix))
                  + "/");
    } catch (URISyntaxException e) {
      throw new StoreException(
          "store '" + name + "': bad endpoint '" + endpoint + "': " + e.getMessage());
    }
    this.http = new HttpStore(base, options, name + " (" + base + ")");
  }

  @Override
  public Optional<ArrowBuf> get(String key, ByteRange range, BufferAllocator allocator) {
    return http.get(key, range, allocator);
  }

  @Override
  public CompletableFuture<Optional<ArrowBuf>> getAsync(
      String key, ByteRange range, BufferAllocator allocator, Executor executor) {
    return http.getAsync(key, range, allocator, executor);
  }

  @Override
  public OptionalLong getInto(
      String key, ByteRange range, ArrowBuf target, long offset, long capacity) {
    return http.getInto(key, range, target, offset, capacity);
  }

  @Override
  public Optional<byte[]> getBytes(String key) {
    return http.getBytes(key);
  }

  @Override
  public Optional<byte[]> getBytes(String key, long maxBytes) {
    return http.getBytes(key, maxBytes);
  }

  /** Lists through the JSON API; falls back to consolidated metadata if listing is denied. */
  @Override
  public Stream<String> list(String keyPrefix) {
    return list(keyPrefix, null);
  }

  /**
   * {@inheritDoc}
   *
   * <p>A listing longer than a page walks the bucket's directories ({@code delimiter=/}), leaving
   * out what is below the directories {@code skipBelow} names ({@link Listing#objects}).
   */
  @Override
  public Stream<String> list(String keyPrefix, Predicate<String> skipBelow) {
    String objectPrefix = prefix.isEmpty() ? keyPrefix : prefix + "/" + keyPrefix;
    int strip = prefix.isEmpty() ? 0 : prefix.length() + 1;
    List<String> names;
    try {
      names =
          Listing.objects(
              (under, byDirectory, token) -> page(keyPrefix, under, byDirectory, token),
              objectPrefix,
              strip,
              skipBelow);
    } catch (ListingRefused e) {
      // listing refused (a public bucket readable without list rights): nothing to list;
      // hierarchies there are found through consolidated metadata, as over plain HTTP
      return Stream.empty();
    }
    return Listing.keys(names, objectPrefix, strip);
  }

  /** A listing the bucket refuses ({@code 401}/{@code 403}). */
  private static final class ListingRefused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ListingRefused() {
      super(null, null, false, false);
    }
  }

  /** One page of the JSON API's object listing (see {@link Listing.Pages}). */
  private Listing.Page page(
      String keyPrefix, String objectPrefix, boolean byDirectory, String pageToken) {
    URI url =
        URI.create(
            endpoint
                + "/storage/v1/b/"
                + URLEncoder.encode(bucket, StandardCharsets.UTF_8)
                + "/o?prefix="
                + URLEncoder.encode(objectPrefix, StandardCharsets.UTF_8)
                + (byDirectory ? "&delimiter=%2F" : "")
                + "&fields="
                + URLEncoder.encode("items(name),prefixes,nextPageToken", StandardCharsets.UTF_8)
                + (pageToken == null
                    ? ""
                    : "&pageToken=" + URLEncoder.encode(pageToken, StandardCharsets.UTF_8)));
    Fetched r = http.fetch(url, "listing of '" + keyPrefix + "'");
    if (r.status() == 401 || r.status() == 403) {
      throw new ListingRefused();
    }
    if (r.status() != 200) {
      throw new StoreException(
          "cannot list '"
              + keyPrefix
              + "' in "
              + describe()
              + ": HTTP "
              + r.status()
              + " from "
              + url
              + r.serverSays());
    }
    JsonNode page;
    try {
      page = JSON.readTree(r.body());
    } catch (IOException e) {
      throw new StoreException(
          "cannot list '"
              + keyPrefix
              + "' in "
              + describe()
              + ": the listing from "
              + url
              + " is not JSON: "
              + e.getMessage());
    }
    List<String> names = new ArrayList<>();
    for (JsonNode item : page.path("items")) {
      names.add(item.path("name").asText(""));
    }
    List<String> prefixes = new ArrayList<>();
    for (JsonNode p : page.path("prefixes")) {
      prefixes.add(p.asText(""));
    }
    String next =
        page.path("nextPageToken").isTextual() ? page.path("nextPageToken").asText() : null;
    return new Listing.Page(names, prefixes, next);
  }

  @Override
  public String describe() {
    return http.describe();
  }
}
