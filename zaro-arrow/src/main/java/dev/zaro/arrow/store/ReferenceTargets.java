package dev.zaro.arrow.store;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.error.ZaroException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Reads what kerchunk references point at, for {@link ReferenceStore} (JSON) and the Parquet
 * reference store: resolves target urls (relative ones against the reference set's location), opens
 * each target directory once as a store, and reads byte ranges of target files through it.
 *
 * <p>A reference set that came over the network may not read local files: {@link #get} refuses them
 * with a clear error. A missing target is an error (the key exists in the references).
 */
public final class ReferenceTargets implements AutoCloseable {
  /** What a key refers to. */
  public sealed interface Reference {
    /** Inline bytes. */
    @SuppressWarnings("ArrayRecordComponent") // equals, hashCode and toString use the contents
    record Inline(byte[] bytes) implements Reference {
      @Override
      public boolean equals(Object o) {
        return o instanceof Inline i && Arrays.equals(bytes, i.bytes);
      }

      @Override
      public int hashCode() {
        return Arrays.hashCode(bytes);
      }

      @Override
      public String toString() {
        return "Inline[" + bytes.length + " bytes]";
      }
    }

    /** A whole file. */
    record Whole(String url) implements Reference {}

    /** {@code length} bytes at {@code offset} of a file. */
    record Part(String url, long offset, long length) implements Reference {}

    /**
     * {@code length} bytes at {@code offset} of the value at {@code key} in the references' own
     * store (see {@link ReferenceTargets#ReferenceTargets(String, String, boolean, Store)}), such
     * as an Icechunk repository's chunk files.
     */
    record Stored(String key, long offset, long length) implements Reference {}
  }

  /** A target file: the store of its directory and its name there. */
  private record Target(Store store, String key, String url) {}

  private final String name;

  /** What the target directories' stores are opened with. */
  private final RemoteLimits limits;

  /** Where relative urls resolve from: a directory path or URL ending with '/', or null. */
  private final String baseLocation;

  private final boolean remote;

  /** Where {@link Reference.Stored} keys live; null if there is no such store. */
  private final Store home;

  private final Map<String, Target> targets = new ConcurrentHashMap<>();
  private final Map<String, Store> directories = new ConcurrentHashMap<>();

  /**
   * @param name the reference store's name, for messages
   * @param baseLocation where relative urls resolve from (a directory path or URL ending with
   *     {@code /}), or null to refuse relative urls
   * @param remote whether the references came over the network (local targets are refused)
   */
  public ReferenceTargets(String name, String baseLocation, boolean remote) {
    this(name, baseLocation, remote, null);
  }

  /**
   * @param home the store {@link Reference.Stored} keys are read from (not closed by this), or null
   */
  public ReferenceTargets(String name, String baseLocation, boolean remote, Store home) {
    this(name, baseLocation, remote, home, RemoteLimits.DEFAULT);
  }

  /**
   * @param limits what each target directory's store is opened with: the timeouts, retries and caps
   *     the user gave the store these references belong to
   */
  public ReferenceTargets(
      String name, String baseLocation, boolean remote, Store home, RemoteLimits limits) {
    this.limits = limits;
    this.name = name;
    this.baseLocation = baseLocation;
    this.remote = remote;
    this.home = home;
  }

  /** Whether any target is fetched over the network. */
  public boolean remote() {
    return remote;
  }

  /** The absolute location of a target url: relative urls resolve against the reference file. */
  private String absolute(String url, String key) {
    StoreLocation target = url.isBlank() ? null : StoreLocation.parse(url);
    if (target != null && !target.scheme().isEmpty()) {
      return target.canonical();
    }
    if (url.startsWith("/")) {
      return url;
    }
    if (baseLocation == null) {
      throw new StoreException(
          "key '"
              + key
              + "' in "
              + name
              + " has the relative url '"
              + url
              + "' but the reference file's location is unknown");
    }
    StoreLocation base = StoreLocation.parse(baseLocation);
    if (base.isLocal()) {
      return base.localPath().resolve(url).normalize().toString();
    }
    if (base.scheme().equals("http") || base.scheme().equals("https")) {
      URI resolved = URI.create(baseLocation).resolve(StoreKeys.encodePath(url));
      String path = resolved.getRawPath();
      while (path.startsWith("/../")) {
        path = path.substring(3); // RFC 3986: '..' above the root is dropped
      }
      return resolved.getScheme()
          + "://"
          + resolved.getRawAuthority()
          + path
          + (resolved.getRawQuery() == null ? "" : "?" + resolved.getRawQuery());
    }
    // bucket-style URLs: join and fold '..' without leaving the bucket
    String root = base.scheme() + "://" + base.authority() + "/";
    List<String> parts = new ArrayList<>(List.of(base.path().split("/")));
    parts.removeIf(String::isEmpty);
    for (String p : url.split("/", -1)) {
      if (p.equals("..")) {
        if (!parts.isEmpty()) {
          parts.remove(parts.size() - 1);
        }
      } else if (!p.isEmpty() && !p.equals(".")) {
        parts.add(p);
      }
    }
    return root + String.join("/", parts);
  }

  private Target target(String url, String key) {
    Target t = targets.get(url);
    if (t != null) {
      return t;
    }
    String abs = absolute(url, key);
    StoreLocation where = StoreLocation.parse(abs);
    if (where.isLocal()) {
      if (remote) {
        throw new StoreException(
            "key '"
                + key
                + "' in "
                + name
                + " refers to the local file '"
                + url
                + "': a reference file from the network may not read local files");
      }
      Path file = where.localPath().toAbsolutePath().normalize();
      Path dir = file.getParent();
      if (dir == null || file.getFileName() == null) {
        throw new StoreException(
            "key '" + key + "' in " + name + " refers to '" + url + "', which is not a file");
      }
      Store store;
      try {
        store = directories.computeIfAbsent("file:" + dir, d -> new FileStore(dir));
      } catch (StoreException e) {
        throw new StoreException(
            "key '"
                + key
                + "' in "
                + name
                + " refers to '"
                + file
                + "', which does not exist ("
                + e.getMessage()
                + ")",
            e);
      }
      t = new Target(store, file.getFileName().toString(), file.toString());
    } else {
      StoreLocation.FileIn file =
          where.fileIn(
              "key '" + key + "' in " + name + " refers to '" + abs + "', which names no file");
      Store store;
      try {
        store =
            directories.computeIfAbsent(
                file.folder(), f -> Stores.open(StoreLocation.parse(f).withLimits(limits)));
      } catch (ZaroException e) {
        throw new StoreException(
            "key '" + key + "' in " + name + " refers to '" + abs + "': " + e.getMessage(), e);
      }
      t = new Target(store, file.key(), abs);
    }
    targets.put(url, t);
    return t;
  }

  /**
   * Reads {@code range} of what {@code ref} points at (never empty: a missing target is an error).
   *
   * @param key the reference's key, for messages
   */
  public ArrowBuf get(String key, Reference ref, ByteRange range, BufferAllocator allocator) {
    if (ref instanceof Reference.Inline inline) {
      return inline(key, inline, range, allocator);
    }
    Target t = targetOf(key, ref);
    ByteRange inTarget = targetRange(key, ref, range);
    Optional<ArrowBuf> buf;
    try {
      buf = t.store().get(t.key(), inTarget, allocator);
    } catch (ZaroException e) {
      throw targetError(key, t, e);
    }
    return buf.orElseThrow(() -> missingTarget(key, t));
  }

  /**
   * {@link Store#getRanges} for a key with reference {@code ref} (null: absent): the ranges are
   * shifted into the target and read through the target store's own {@code getRanges}, so they
   * coalesce there; the caller closes each buffer.
   */
  public Optional<List<ArrowBuf>> findRanges(
      String key, Reference ref, List<ByteRange.FromStart> ranges, BufferAllocator allocator) {
    if (ref == null) {
      return Optional.empty();
    }
    if (ref instanceof Reference.Inline inline) {
      List<ArrowBuf> out = new ArrayList<>();
      try {
        for (ByteRange.FromStart r : ranges) {
          out.add(inline(key, inline, r, allocator));
        }
      } catch (RuntimeException e) {
        out.forEach(ArrowBuf::close);
        throw e;
      }
      return Optional.of(out);
    }
    Target t = targetOf(key, ref);
    List<ByteRange.FromStart> inTarget =
        ranges.stream().map(r -> (ByteRange.FromStart) targetRange(key, ref, r)).toList();
    Optional<List<ArrowBuf>> got;
    try {
      got = t.store().getRanges(t.key(), inTarget, allocator);
    } catch (ZaroException e) {
      throw targetError(key, t, e);
    }
    return Optional.of(got.orElseThrow(() -> missingTarget(key, t)));
  }

  /** Asynchronous {@link #get}, through the target store's own {@code getAsync}. */
  public CompletableFuture<ArrowBuf> getAsync(
      String key, Reference ref, ByteRange range, BufferAllocator allocator, Executor executor) {
    Target t;
    ByteRange inTarget;
    try {
      if (ref instanceof Reference.Inline inline) {
        return CompletableFuture.completedFuture(inline(key, inline, range, allocator));
      }
      t = targetOf(key, ref);
      inTarget = targetRange(key, ref, range);
    } catch (ZaroException e) {
      return CompletableFuture.failedFuture(e);
    }
    return t.store()
        .getAsync(t.key(), inTarget, allocator, executor)
        .handle(
            (buf, error) -> {
              if (error != null) {
                Throwable cause =
                    error instanceof CompletionException && error.getCause() != null
                        ? error.getCause()
                        : error;
                throw targetError(key, t, cause);
              }
              return buf.orElseThrow(() -> missingTarget(key, t));
            });
  }

  private ArrowBuf inline(
      String key, Reference.Inline inline, ByteRange range, BufferAllocator allocator) {
    long[] ol = range.resolve(inline.bytes().length, key, name);
    ArrowBuf buf = allocator.buffer(ol[1]);
    buf.setBytes(0, inline.bytes(), (int) ol[0], ol[1]);
    buf.writerIndex(ol[1]);
    return buf;
  }

  private Target targetOf(String key, Reference ref) {
    if (ref instanceof Reference.Stored s) {
      if (home == null) {
        throw new StoreException(
            "key '" + key + "' in " + name + " refers to a key of a store it was not given");
      }
      String where = home.describe();
      return new Target(home, s.key(), where + (where.endsWith("/") ? "" : "/") + s.key());
    }
    String url = ref instanceof Reference.Whole w ? w.url() : ((Reference.Part) ref).url();
    return target(url, key);
  }

  private ByteRange targetRange(String key, Reference ref, ByteRange range) {
    if (ref instanceof Reference.Whole) {
      return range;
    }
    long offset = ref instanceof Reference.Stored s ? s.offset() : ((Reference.Part) ref).offset();
    long length = ref instanceof Reference.Stored s ? s.length() : ((Reference.Part) ref).length();
    long[] ol = range.resolve(length, key, name);
    return ByteRange.of(Math.addExact(offset, ol[0]), ol[1]);
  }

  private StoreException targetError(String key, Target t, Throwable e) {
    return new StoreException(
        "key '" + key + "' in " + name + " (" + t.url() + "): " + e.getMessage(), e);
  }

  private StoreException missingTarget(String key, Target t) {
    return new StoreException(
        "key '" + key + "' in " + name + " refers to '" + t.url() + "', which does not exist");
  }

  // ---- the Store contract for a key whose reference may be absent, shared by reference stores
  // ----

  /**
   * {@link Store#get} for a key with reference {@code ref} (null: absent); the caller closes the
   * buffer.
   */
  public Optional<ArrowBuf> find(
      String key, Reference ref, ByteRange range, BufferAllocator allocator) {
    return ref == null ? Optional.empty() : Optional.of(get(key, ref, range, allocator));
  }

  /** {@link Store#getAsync}: looks the reference up (which may fail) and fetches it. */
  public CompletableFuture<Optional<ArrowBuf>> findAsync(
      String key,
      Supplier<Reference> lookup,
      ByteRange range,
      BufferAllocator allocator,
      Executor executor) {
    Reference ref;
    try {
      ref = lookup.get();
    } catch (ZaroException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (ref == null) {
      return CompletableFuture.completedFuture(Optional.empty());
    }
    return getAsync(key, ref, range, allocator, executor).thenApply(Optional::of);
  }

  /** {@link Store#getBytes} for a key with reference {@code ref} (null: absent). */
  public Optional<byte[]> findBytes(String key, Reference ref) {
    if (ref == null) {
      return Optional.empty();
    }
    if (ref instanceof Reference.Inline inline) {
      return Optional.of(inline.bytes().clone());
    }
    try (ArrowBuf buf = get(key, ref, ByteRange.ALL, bytesAllocator())) {
      byte[] out = new byte[(int) buf.writerIndex()];
      buf.getBytes(0, out);
      return Optional.of(out);
    }
  }

  private volatile RootAllocator bytesAllocator;

  /** Memory for small whole values copied to the heap (metadata documents); closed with this. */
  private BufferAllocator bytesAllocator() {
    RootAllocator a = bytesAllocator;
    if (a == null) {
      synchronized (this) {
        a = bytesAllocator;
        if (a == null) {
          a = new RootAllocator();
          bytesAllocator = a;
        }
      }
    }
    return a;
  }

  @Override
  public void close() {
    RootAllocator a = bytesAllocator;
    if (a != null) {
      a.close();
    }
    for (Store s : directories.values()) {
      try {
        s.close();
      } catch (RuntimeException e) {
        // closing is best effort
      }
    }
    directories.clear();
    targets.clear();
  }
}
