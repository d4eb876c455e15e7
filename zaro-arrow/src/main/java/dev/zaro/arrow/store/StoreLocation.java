package dev.zaro.arrow.store;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.StoreException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A STORE location taken apart, the one parser of them: a local path, or {@code
 * SCHEME://AUTHORITY/PATH?QUERY} (for example {@code s3://bucket/prefix?region=eu-west-1}). {@link
 * Stores#open} finds the {@link StoreProvider} by its {@link #scheme}, and every store reads its
 * bucket, path and options from here. A plain immutable value: it holds no resources.
 *
 * <ul>
 *   <li>The scheme is lower case, and {@code gcs} reads as {@code gs}, {@code s3a} as {@code s3}
 *       (fsspec's aliases); a location without {@code ://} is a local path ({@link #isLocal}, as is
 *       {@code file://}).
 *   <li>The authority is what lies between {@code ://} and the next {@code /} (a bucket, a host);
 *       the path what follows that {@code /}, without the query.
 *   <li>The query is split at {@code &} into {@link Option}s, names and values percent-decoded
 *       ({@code +} stays a plus); an option without {@code =} has a null value.
 * </ul>
 */
public final class StoreLocation {
  /** Other names of schemes, as fsspec writes them: {@code gcs://} is {@code gs://}. */
  private static final Map<String, String> ALIASES = Map.of("gcs", "gs", "s3a", "s3");

  private final String location;
  private final String scheme;
  private final String rest;
  private final String query;

  /**
   * One {@code NAME=VALUE} of the query.
   *
   * @param name the name as written, decoded
   * @param value the value, decoded; null if the option has no {@code =}
   * @param written the option as written in the location ({@code colour=blue})
   */
  public record Option(String name, String value, String written) {
    /** The name compared with a store's known options: lower case, {@code -} read as {@code _}. */
    public String key() {
      return name.toLowerCase(Locale.ROOT).replace('-', '_');
    }
  }

  private final RemoteLimits limits;

  private StoreLocation(
      String location, String scheme, String rest, String query, RemoteLimits limits) {
    this.location = location;
    this.scheme = scheme;
    this.rest = rest;
    this.query = query;
    this.limits = limits;
  }

  /**
   * The timeouts, retries and size caps a remote store opened here applies ({@link
   * RemoteLimits#DEFAULT} unless {@link #withLimits} said otherwise): not part of the location's
   * text, the settings its opener gives (CLI flags, {@code ZaroOptions.remote}).
   */
  public RemoteLimits limits() {
    return limits;
  }

  /** This location, its stores opened with {@code limits}. */
  public StoreLocation withLimits(RemoteLimits limits) {
    return new StoreLocation(location, scheme, rest, query, limits);
  }

  /**
   * Takes {@code location} apart.
   *
   * @throws StoreException (invalid argument) for no location, or a query with a bad escape
   */
  public static StoreLocation parse(String location) {
    if (location == null || location.isBlank()) {
      throw new StoreException(ErrorKind.INVALID_ARGUMENT, "no store given");
    }
    int sep = location.indexOf("://");
    if (sep < 0) {
      return new StoreLocation(location, "", location, "", RemoteLimits.DEFAULT);
    }
    String scheme = location.substring(0, sep).toLowerCase(Locale.ROOT);
    scheme = ALIASES.getOrDefault(scheme, scheme);
    String rest = location.substring(sep + 3);
    String query = "";
    int q = rest.indexOf('?');
    if (q >= 0) {
      query = rest.substring(q + 1);
      rest = rest.substring(0, q);
    }
    return new StoreLocation(location, scheme, rest, query, RemoteLimits.DEFAULT);
  }

  /** The location as given. */
  public String location() {
    return location;
  }

  /** The scheme, lower case, without {@code ://}; empty for a local path. */
  public String scheme() {
    return scheme;
  }

  /** Whether this is a local path or a {@code file://} URL. */
  public boolean isLocal() {
    return scheme.isEmpty() || scheme.equals("file");
  }

  /**
   * The local path of a path or {@code file://} URL.
   *
   * @throws StoreException (invalid argument) for a malformed {@code file://} URL or a remote
   *     location
   */
  public Path localPath() {
    if (scheme.isEmpty()) {
      return Path.of(location);
    }
    if (scheme.equals("file")) {
      try {
        return Path.of(new URI(location));
      } catch (URISyntaxException | IllegalArgumentException e) {
        throw new StoreException(
            ErrorKind.INVALID_ARGUMENT,
            "not a valid file URL: '" + location + "': " + e.getMessage());
      }
    }
    throw error("not a local path");
  }

  /** What lies between {@code ://} and the query: {@code AUTHORITY/PATH} (the path if local). */
  public String rest() {
    return rest;
  }

  /** {@code SCHEME://} (canonical) and what follows it, the query included. */
  public String canonical() {
    return scheme.isEmpty() ? location : scheme + "://" + inner();
  }

  /** What follows {@code ://}, the query included (the inner location of a wrapping scheme). */
  public String inner() {
    return query.isEmpty() ? rest : rest + "?" + query;
  }

  /** The authority (a bucket, a host with its port): up to the first {@code /} of {@link #rest}. */
  public String authority() {
    int slash = rest.indexOf('/');
    return slash < 0 ? rest : rest.substring(0, slash);
  }

  /** The path after the authority, without its leading {@code /} nor the query; may be empty. */
  public String path() {
    int slash = rest.indexOf('/');
    return slash < 0 ? "" : rest.substring(slash + 1);
  }

  /** The query as written, without {@code ?}; empty if none. */
  public String query() {
    return query;
  }

  /**
   * The query's options, in order.
   *
   * @throws StoreException (invalid argument) naming an option with a bad escape
   */
  public List<Option> options() {
    List<Option> parsed = new ArrayList<>();
    for (String kv : query.split("&", -1)) {
      if (kv.isEmpty()) {
        continue;
      }
      int eq = kv.indexOf('=');
      String name = decode(eq < 0 ? kv : kv.substring(0, eq), kv);
      String value = eq < 0 ? null : decode(kv.substring(eq + 1), kv);
      parsed.add(new Option(name, value, kv));
    }
    return parsed;
  }

  /**
   * The options by {@link Option#key}, once each is checked against {@code known} (the keys a store
   * reads).
   *
   * @param shown the known options as a message lists them (aliases may be left out)
   * @throws StoreException naming the first unknown option and {@code shown}
   */
  public Map<String, String> options(Collection<String> known, String shown) {
    Map<String, String> byKey = new LinkedHashMap<>();
    for (Option o : options()) {
      if (!known.contains(o.key())) {
        throw unknownOption(o.name(), shown);
      }
      byKey.put(o.key(), o.value() == null ? "true" : o.value());
    }
    return byKey;
  }

  /**
   * The typed error for an unknown option: {@code store 'LOCATION': unknown option 'NAME' (known:
   * SHOWN)}.
   */
  public StoreException unknownOption(String name, String shown) {
    return error("unknown option '" + name + "' (known: " + shown + ")");
  }

  /** A typed error (invalid argument) about this location: {@code store 'LOCATION': MESSAGE}. */
  public StoreException error(String message) {
    return new StoreException(ErrorKind.INVALID_ARGUMENT, "store '" + location + "': " + message);
  }

  /** This location as a {@link URI}. */
  public URI uri() {
    try {
      return new URI(location);
    } catch (URISyntaxException e) {
      throw new StoreException(
          ErrorKind.INVALID_ARGUMENT,
          "store '" + location + "': not a valid URL: " + e.getMessage());
    }
  }

  /** {@code SCHEME://REST}, with the given options as the query (none if empty). */
  public static String of(String scheme, String rest, List<Option> query) {
    StringBuilder sb = new StringBuilder(scheme).append("://").append(rest);
    for (int i = 0; i < query.size(); i++) {
      sb.append(i == 0 ? '?' : '&').append(query.get(i).written());
    }
    return sb.toString();
  }

  /**
   * The folder holding this location (a path or URL), ending with {@code /}, without the query:
   * where relative references resolve from. Null if it has none.
   */
  public String parent() {
    if (isLocal()) {
      Path parent = localPath().toAbsolutePath().normalize().getParent();
      return parent == null ? null : parent.toString() + "/";
    }
    String l = scheme + "://" + rest;
    while (l.endsWith("/")) {
      l = l.substring(0, l.length() - 1);
    }
    int slash = l.lastIndexOf('/');
    return slash < scheme.length() + 3 ? null : l.substring(0, slash + 1);
  }

  /**
   * A remote file location split into its folder (a location ending with {@code /}, keeping the
   * query, so credentials or options in it still apply) and the file's key (decoded).
   */
  public record FileIn(String folder, String key) {}

  /**
   * {@link FileIn} of a remote location naming a file.
   *
   * @param noFile the message of the error when it names no file (a local path, a bucket, a folder)
   * @throws StoreException with {@code noFile} if it names no file
   */
  public FileIn fileIn(String noFile) {
    String written = scheme + "://" + rest;
    int slash = written.lastIndexOf('/');
    if (isLocal() || slash < scheme.length() + 3 || slash == written.length() - 1) {
      throw new StoreException(noFile);
    }
    return new FileIn(
        written.substring(0, slash + 1) + (query.isEmpty() ? "" : "?" + query),
        decode(written.substring(slash + 1)));
  }

  /** URL-decodes one path segment or query value ({@code %XX}; a {@code +} stays a plus). */
  public static String decode(String segment) {
    return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  private String decode(String part, String option) {
    try {
      return decode(part);
    } catch (IllegalArgumentException e) {
      throw error("bad escape in '" + option + "': " + e.getMessage());
    }
  }

  @Override
  public String toString() {
    return location;
  }
}
