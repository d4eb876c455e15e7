package dev.zaro.parquet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.store.FileStore;
import dev.zaro.arrow.store.ReferenceBackedStore;
import dev.zaro.arrow.store.ReferenceTargets;
import dev.zaro.arrow.store.ReferenceTargets.Reference;
import dev.zaro.arrow.store.RemoteLimits;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreKeys;
import dev.zaro.arrow.store.StoreLocation;
import dev.zaro.arrow.store.Stores;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.arrow.dataset.file.FileFormat;
import org.apache.arrow.dataset.file.FileSystemDatasetFactory;
import org.apache.arrow.dataset.jni.NativeMemoryPool;
import org.apache.arrow.dataset.scanner.ScanOptions;
import org.apache.arrow.dataset.scanner.Scanner;
import org.apache.arrow.dataset.source.Dataset;
import org.apache.arrow.dataset.source.DatasetFactory;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * Kerchunk references in the Parquet layout, as a store ({@code reference+parquet://DIR}): {@code
 * DIR/.zmetadata} holds {@code {"metadata": {key: json}, "record_size": N}}, and each array's chunk
 * references live in {@code DIR/<array>/refs.<k>.parq} (columns {@code path, offset, size, raw}):
 * chunk {@code n}, the C-order ravel of its index, is row {@code n % N} of file {@code n / N}. A
 * row with {@code raw} set holds the bytes inline; a {@code path} with offset and size 0 is a whole
 * file; a row with neither is an absent chunk (the fill value).
 *
 * <p>Files are read lazily with arrow-dataset, when a chunk in them is first asked for, and a
 * bounded number are kept. Target urls resolve, and are read, as in the JSON {@link
 * dev.zaro.arrow.store.ReferenceStore}: relative urls against the folder holding {@code DIR};
 * references that came over the network may not read local files. The metadata is also served as a
 * v2 consolidated {@code .zmetadata}, so a hierarchy opens from it in one read.
 */
public final class ParquetReferenceStore implements ReferenceBackedStore {
  private static final int CACHED_FILES = 64;

  /** An array with chunk references: where its chunks are and how many. */
  @SuppressWarnings("ArrayRecordComponent") // private, never compared
  private record ArrayInfo(String path, long[] grid, String separator) {
    long chunks() {
      long n = 1;
      for (long g : grid) {
        n = Math.multiplyExact(n, g);
      }
      return n;
    }
  }

  /** The rows of one refs.k.parq file. */
  @SuppressWarnings("ArrayRecordComponent") // private, never compared
  private record RefFile(Reference[] refs) {}

  private final String name;
  private final Store directory;
  private final Path localDirectory;
  private final Map<String, byte[]> metadata;
  private final List<ArrayInfo> arrays;
  private final long recordSize;
  private final ReferenceTargets targets;
  private final Map<String, RefFile> files =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, RefFile> eldest) {
          return size() > CACHED_FILES;
        }
      };
  private final BufferAllocator allocator = new RootAllocator();

  /** Opens the reference directory at {@code location}: a local path or a URL. */
  public static ParquetReferenceStore open(String location) {
    return open(location, RemoteLimits.DEFAULT);
  }

  /**
   * {@link #open(String)}, the directory and every target read with {@code limits} (the timeouts,
   * retries and caps given for this store).
   */
  public static ParquetReferenceStore open(String location, RemoteLimits limits) {
    String name = "reference+parquet://" + location;
    Store dir;
    StoreLocation where;
    try {
      where = StoreLocation.parse(location).withLimits(limits);
      dir = Stores.open(where);
    } catch (ZaroException e) {
      throw new StoreException("store '" + name + "': " + e.getMessage(), e);
    }
    try {
      return new ParquetReferenceStore(name, dir, where.parent(), !where.isLocal(), limits);
    } catch (RuntimeException e) {
      dir.close();
      throw e;
    }
  }

  private ParquetReferenceStore(
      String name, Store directory, String baseLocation, boolean remote, RemoteLimits limits) {
    this.name = name;
    this.directory = directory;
    this.localDirectory = directory instanceof FileStore f ? f.root() : null;
    byte[] doc =
        directory
            .getBytes(".zmetadata")
            .orElseThrow(
                () ->
                    new StoreException(
                        "store '"
                            + name
                            + "': no .zmetadata in "
                            + directory.describe()
                            + " (not a Parquet reference directory)"));
    JsonNode root;
    try {
      root = Json.readTree(doc);
    } catch (IOException e) {
      throw new StoreException(
          "store '" + name + "': .zmetadata is not valid JSON: " + e.getMessage());
    }
    if (root == null || !root.path("metadata").isObject()) {
      throw new StoreException("store '" + name + "': .zmetadata has no 'metadata' object");
    }
    JsonNode rs = root.path("record_size");
    if (!rs.canConvertToLong() || !rs.isIntegralNumber() || rs.asLong() < 1) {
      throw new StoreException(
          "store '" + name + "': .zmetadata needs a positive integer 'record_size', not " + rs);
    }
    this.recordSize = rs.asLong();
    Map<String, byte[]> meta = new TreeMap<>();
    ObjectNode consolidated = Json.createObjectNode();
    List<ArrayInfo> found = new ArrayList<>();
    for (var e : root.get("metadata").properties()) {
      String key = checkedKey(e.getKey());
      JsonNode value = e.getValue();
      JsonNode parsed = value;
      if (value.isTextual()) {
        try {
          parsed = Json.readTree(value.asText());
        } catch (IOException ex) {
          parsed = null;
        }
      }
      meta.put(
          key,
          (value.isTextual() ? value.asText() : value.toString()).getBytes(StandardCharsets.UTF_8));
      if (parsed != null) {
        consolidated.set(key, parsed);
      }
      if (key.equals(".zarray") || key.endsWith("/.zarray")) {
        found.add(
            arrayInfo(
                key.substring(0, Math.max(0, key.length() - ".zarray".length() - 1)), parsed));
      }
    }
    if (!meta.containsKey(".zmetadata")) {
      ObjectNode z = Json.createObjectNode();
      z.put("zarr_consolidated_format", 1);
      z.set("metadata", consolidated);
      meta.put(".zmetadata", z.toString().getBytes(StandardCharsets.UTF_8));
    }
    found.sort(Comparator.comparingInt((ArrayInfo a) -> a.path().length()).reversed());
    this.metadata = meta;
    this.arrays = List.copyOf(found);
    this.targets = new ReferenceTargets(name, baseLocation, remote, null, limits);
  }

  private String checkedKey(String key) {
    if (key.isEmpty()
        || key.startsWith("/")
        || key.indexOf('\\') >= 0
        || Stream.of(key.split("/", -1)).anyMatch(s -> s.equals("..") || s.equals("."))) {
      throw new StoreException("store '" + name + "': refusing key '" + key + "' in .zmetadata");
    }
    return key;
  }

  private ArrayInfo arrayInfo(String path, JsonNode zarray) {
    if (zarray == null
        || !zarray.path("shape").isArray()
        || !zarray.path("chunks").isArray()
        || zarray.get("shape").size() != zarray.get("chunks").size()) {
      throw new StoreException(
          "store '"
              + name
              + "': '"
              + (path.isEmpty() ? "" : path + "/")
              + ".zarray' has no matching 'shape' and 'chunks'");
    }
    int rank = zarray.get("shape").size();
    long[] grid = new long[rank];
    for (int d = 0; d < rank; d++) {
      long s = zarray.get("shape").get(d).asLong(-1);
      long c = zarray.get("chunks").get(d).asLong(-1);
      if (s < 0 || c < 1) {
        throw new StoreException(
            "store '" + name + "': '" + path + "/.zarray' has a bad shape or chunks");
      }
      grid[d] = (s + c - 1) / c;
    }
    String sep = zarray.path("dimension_separator").asText(".");
    return new ArrayInfo(path, grid, sep.equals("/") ? "/" : ".");
  }

  /** The reference for {@code key}, or null if absent. */
  @Override
  public ReferenceTargets targets() {
    return targets;
  }

  @Override
  public Reference reference(String key) {
    StoreKeys.checked(key, this);
    byte[] inline = metadata.get(key);
    if (inline != null) {
      return new Reference.Inline(inline);
    }
    for (ArrayInfo a : arrays) {
      String rest;
      if (a.path().isEmpty()) {
        rest = key;
      } else if (key.startsWith(a.path() + "/")) {
        rest = key.substring(a.path().length() + 1);
      } else {
        continue;
      }
      long n = ravel(a, rest);
      if (n < 0) {
        return null;
      }
      RefFile file = refFile(a, n / recordSize);
      int row = (int) (n % recordSize);
      return file == null || row >= file.refs().length ? null : file.refs()[row];
    }
    return null;
  }

  /** The C-order chunk number of chunk key {@code rest}, or -1 if it names no chunk. */
  private static long ravel(ArrayInfo a, String rest) {
    String[] parts =
        a.grid().length == 0
            ? new String[] {rest}
            : rest.split(a.separator().equals(".") ? "\\." : "/", -1);
    if (a.grid().length == 0) {
      return rest.equals("0") ? 0 : -1;
    }
    if (parts.length != a.grid().length) {
      return -1;
    }
    long n = 0;
    for (int d = 0; d < parts.length; d++) {
      long i;
      try {
        i = Long.parseLong(parts[d]);
      } catch (NumberFormatException e) {
        return -1;
      }
      if (i < 0 || i >= a.grid()[d] || !parts[d].equals(Long.toString(i))) {
        return -1;
      }
      n = n * a.grid()[d] + i;
    }
    return n;
  }

  private RefFile refFile(ArrayInfo a, long k) {
    String key = (a.path().isEmpty() ? "" : a.path() + "/") + "refs." + k + ".parq";
    synchronized (files) {
      RefFile cached = files.get(key);
      if (cached != null) {
        return cached;
      }
    }
    RefFile loaded = load(key);
    synchronized (files) {
      files.put(key, loaded);
    }
    return loaded;
  }

  /** Reads one refs.k.parq with arrow-dataset (remote files through a temporary copy). */
  // arrow-dataset's DatasetFactory, Dataset and Scanner declare close() throws Exception
  @SuppressWarnings("try")
  private RefFile load(String key) {
    Path file;
    Path temp = null;
    if (localDirectory != null) {
      file = localDirectory.resolve(key);
      if (!Files.isRegularFile(file)) {
        return new RefFile(new Reference[0]);
      }
    } else {
      Optional<byte[]> bytes = directory.getBytes(key);
      if (bytes.isEmpty()) {
        return new RefFile(new Reference[0]);
      }
      try {
        temp = Files.createTempFile("zaro-refs", ".parq");
        Files.write(temp, bytes.get());
      } catch (IOException e) {
        throw new StoreException(
            "store '" + name + "': cannot stage '" + key + "' for reading: " + e, e);
      }
      file = temp;
    }
    List<Reference> rows = new ArrayList<>();
    try (BufferAllocator a = allocator.newChildAllocator(key, 0, Long.MAX_VALUE);
        DatasetFactory factory =
            new FileSystemDatasetFactory(
                a, NativeMemoryPool.getDefault(), FileFormat.PARQUET, file.toUri().toString());
        Dataset dataset = factory.finish();
        Scanner scanner = dataset.newScan(new ScanOptions(1 << 16));
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot batch = reader.getVectorSchemaRoot();
        FieldVector path = column(batch, "path", key);
        FieldVector offset = column(batch, "offset", key);
        FieldVector size = column(batch, "size", key);
        FieldVector raw = batch.getVector("raw");
        for (int i = 0; i < batch.getRowCount(); i++) {
          rows.add(row(key, rows.size(), path, offset, size, raw, i));
        }
      }
    } catch (StoreException e) {
      throw e;
    } catch (Exception e) {
      throw new StoreException(
          "store '" + name + "': cannot read the Parquet references '" + key + "': " + e, e);
    } finally {
      if (temp != null) {
        try {
          Files.deleteIfExists(temp);
        } catch (IOException e) {
          temp.toFile().deleteOnExit();
        }
      }
    }
    return new RefFile(rows.toArray(new Reference[0]));
  }

  private FieldVector column(VectorSchemaRoot batch, String column, String key) {
    FieldVector v = batch.getVector(column);
    if (v == null) {
      throw new StoreException(
          "store '" + name + "': '" + key + "' has no '" + column + "' column");
    }
    return v;
  }

  private Reference row(
      String key,
      int rowNumber,
      FieldVector path,
      FieldVector offset,
      FieldVector size,
      FieldVector raw,
      int i) {
    if (raw != null && !raw.isNull(i)) {
      if (raw instanceof VarBinaryVector b) {
        return new Reference.Inline(b.get(i));
      }
      if (raw instanceof VarCharVector c) {
        return new Reference.Inline(c.get(i));
      }
      throw new StoreException(
          "store '" + name + "': '" + key + "' column 'raw' is " + raw.getField().getType());
    }
    if (path.isNull(i)) {
      return null;
    }
    if (!(path instanceof VarCharVector p)) {
      throw new StoreException(
          "store '" + name + "': '" + key + "' column 'path' is " + path.getField().getType());
    }
    String url = new String(p.get(i), StandardCharsets.UTF_8);
    long off = offset.isNull(i) ? 0 : number(offset, i, key);
    long len = size.isNull(i) ? 0 : number(size, i, key);
    if (off < 0 || len < 0) {
      throw new StoreException(
          "store '"
              + name
              + "': '"
              + key
              + "' row "
              + rowNumber
              + " has a negative offset or size");
    }
    return off == 0 && len == 0 ? new Reference.Whole(url) : new Reference.Part(url, off, len);
  }

  private long number(FieldVector v, int i, String key) {
    Object o = v.getObject(i);
    if (o instanceof Number n) {
      return n.longValue();
    }
    throw new StoreException(
        "store '" + name + "': '" + key + "' column '" + v.getName() + "' is not numeric");
  }

  // ---- the Store contract ----

  /** The metadata keys and every chunk key with a reference (reads every refs file). */
  @Override
  public Stream<String> list(String prefix) {
    TreeSet<String> keys = new TreeSet<>();
    metadata.keySet().stream().filter(k -> k.startsWith(prefix)).forEach(keys::add);
    for (ArrayInfo a : arrays) {
      String base = a.path().isEmpty() ? "" : a.path() + "/";
      if (!(base.startsWith(prefix) || prefix.startsWith(base))) {
        continue;
      }
      long total = a.chunks();
      long[] index = new long[a.grid().length];
      for (long n = 0; n < total; n++) {
        RefFile f = refFile(a, n / recordSize);
        int row = (int) (n % recordSize);
        if (row < f.refs().length && f.refs()[row] != null) {
          StringBuilder k = new StringBuilder(base);
          if (index.length == 0) {
            k.append('0');
          }
          for (int d = 0; d < index.length; d++) {
            k.append(d == 0 ? "" : a.separator()).append(index[d]);
          }
          if (k.toString().startsWith(prefix) && !metadata.containsKey(k.toString())) {
            keys.add(k.toString());
          }
        }
        for (int d = index.length - 1; d >= 0; d--) {
          if (++index[d] < a.grid()[d]) {
            break;
          }
          index[d] = 0;
        }
      }
    }
    return keys.stream();
  }

  @Override
  public String describe() {
    return name;
  }

  @Override
  public void close() {
    targets.close();
    directory.close();
    synchronized (files) {
      files.clear();
    }
    allocator.close();
  }
}
