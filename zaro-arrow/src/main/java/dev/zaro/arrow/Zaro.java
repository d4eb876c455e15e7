package dev.zaro.arrow;

import dev.zaro.arrow.codec.internal.ScratchPool;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.MetadataException;
import dev.zaro.arrow.error.SlabTooLargeException;
import dev.zaro.arrow.exec.ConcurrencyPolicy;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.NodeMetadata;
import dev.zaro.arrow.plan.DimensionFilter;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.ChunkCache;
import dev.zaro.arrow.read.Hierarchy;
import dev.zaro.arrow.read.Node;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.read.ZarrArray;
import dev.zaro.arrow.read.internal.ReadAccess;
import dev.zaro.arrow.read.internal.ReadSetup;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreKeys;
import dev.zaro.arrow.store.StoreLocation;
import dev.zaro.arrow.store.Stores;
import dev.zaro.arrow.vector.CoordinateColumns;
import dev.zaro.arrow.vector.DimensionColumn;
import dev.zaro.arrow.vector.TableReader;
import dev.zaro.arrow.vector.TensorReader;
import dev.zaro.arrow.vector.internal.SlabLimits;
import dev.zaro.arrow.vector.internal.TableColumns;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The entry point: an open Zarr hierarchy.
 *
 * <pre>{@code
 * try (BufferAllocator alloc = new RootAllocator(); Zaro zaro = Zaro.open("data/era5.zarr")) {
 *   zaro.list();
 *   ArrayMetadata meta = zaro.meta("t2m");
 *   try (Slab slab = zaro.read("t2m", "0:24, 100:200, :", alloc)) { ... }
 * }
 * }</pre>
 *
 * Thread-safe; closing it closes the store and stops its worker threads.
 */
public final class Zaro implements AutoCloseable {
  private final Store store;
  private final ZaroOptions options;
  private final Hierarchy hierarchy;
  private final ExecutorService workers;
  private final Map<String, ZarrArray> arrays = new ConcurrentHashMap<>();
  private final ScratchPool scratch;
  private final ChunkCache cache;
  private final boolean ownsCache;
  private final TableColumns tables;

  private Zaro(Store store, ZaroOptions options, ChunkCache shared) {
    this.store = store;
    this.options = options;
    this.hierarchy = new Hierarchy(store, options.remote().maxMetadataSize());
    this.scratch = new ScratchPool(options.threads() * 2);
    this.ownsCache = shared == null;
    this.cache =
        shared != null
            ? shared
            : options.cacheMemory() > 0 ? new ChunkCache(options.cacheMemory()) : null;
    AtomicInteger n = new AtomicInteger();
    ThreadFactory factory =
        r -> {
          Thread t = new Thread(r, "zaro-worker-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        };
    // local: the callers plus threads - 1 helpers; remote: reads fetch asynchronously ahead of
    // `threads` decoders, and the extra threads serve the blocking path (nested sharding)
    int poolSize =
        ConcurrencyPolicy.poolThreads(
            options.threads(), isRemote(store) ? options.ioConcurrency() : 0);
    this.workers =
        new ThreadPoolExecutor(
            poolSize, poolSize, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), factory);
    ((ThreadPoolExecutor) workers).allowCoreThreadTimeOut(true);
    this.tables =
        new TableColumns(hierarchy, this::array, (p, a) -> read(p, "", a), options.fallbackTypes());
  }

  /** Opens a hierarchy at any STORE location (see {@link Stores#open}). */
  public static Zaro open(String location) {
    return open(location, ZaroOptions.defaults());
  }

  /**
   * Opens the store at {@code location} (see {@link #open(String)}) with {@code options}; a remote
   * store applies {@link ZaroOptions#remote()} (timeouts, retries, size caps).
   */
  public static Zaro open(String location, ZaroOptions options) {
    return open(Stores.open(StoreLocation.parse(location).withLimits(options.remote())), options);
  }

  /** Opens a hierarchy in {@code store}, which the returned Zaro owns and closes. */
  public static Zaro open(Store store, ZaroOptions options) {
    return new Zaro(store, options, null);
  }

  /**
   * Opens a hierarchy in {@code store} (owned and closed by the returned Zaro) whose reads share
   * {@code cache} with other hierarchies, such as later opens of the same location: the cache's
   * keys name the store, array, metadata and chunk version, so no entry is served for a changed
   * chunk. The caller owns the cache and closes it after every Zaro using it ({@link
   * ZaroOptions#cacheMemory()} is then ignored).
   */
  public static Zaro open(Store store, ZaroOptions options, ChunkCache cache) {
    return new Zaro(store, options, Objects.requireNonNull(cache, "cache"));
  }

  /** The store this instance reads from. */
  public Store store() {
    return store;
  }

  /** The store's node tree: children, consolidated metadata, nodes that could not be read. */
  public Hierarchy hierarchy() {
    return hierarchy;
  }

  /** The decoded-chunk cache of {@link ZaroOptions#cacheMemory()}, or null without one. */
  public ChunkCache cache() {
    return cache;
  }

  /** Every node of the hierarchy, parents first. */
  public List<Node> list() {
    return hierarchy.list();
  }

  /** The metadata of the node at {@code path}. */
  public NodeMetadata node(String path) {
    return hierarchy.node(path);
  }

  /** The normalized metadata of the array at {@code path}. */
  public ArrayMetadata meta(String path) {
    NodeMetadata node = hierarchy.node(path);
    if (node instanceof ArrayMetadata array) {
      return array;
    }
    throw new MetadataException(
        ErrorKind.INVALID_ARGUMENT,
        "'/"
            + StoreKeys.stripSlashes(path)
            + "' in "
            + store.describe()
            + " is a group, not an array");
  }

  /** The array at {@code path}, with its codec chain resolved (cached). */
  public ZarrArray array(String path) {
    String p = StoreKeys.stripSlashes(path);
    return arrays.computeIfAbsent(
        p,
        k ->
            ReadAccess.get()
                .open(
                    store,
                    k,
                    readable(k, meta(k)),
                    new ReadSetup(
                        options.codecs(),
                        workers,
                        options.threads(),
                        scratch,
                        isRemote(store) ? options.ioConcurrency() : 0,
                        options.missingChunks(),
                        options.maxBytesInFlight(),
                        cache)));
  }

  /**
   * The metadata an array is read with: ML float types widened to float32 values ({@link
   * ArrayMetadata#withMlFloatsWidened}) unless the options ask for bit patterns; a struct with ML
   * float fields is refused unless they do.
   */
  private ArrayMetadata readable(String path, ArrayMetadata meta) {
    if (options.fallbackTypes()) {
      return meta;
    }
    meta.dataType()
        .fallbackFormat()
        .filter(format -> meta.dataType().kind() == DataType.Kind.STRUCT)
        .ifPresent(
            format -> {
              throw new MetadataException(
                  ErrorKind.UNSUPPORTED,
                  "'/"
                      + path
                      + "' in "
                      + store.describe()
                      + " has a struct field of data type '"
                      + format.name()
                      + "'; zaro reads ML float types inside structs only as their "
                      + format.bits()
                      + "-bit patterns (uint"
                      + format.bits()
                      + "), if you ask for it: --raw-bits on the command line,"
                      + " ZaroOptions.withFallbackTypes(true) in Java");
            });
    return meta.withMlFloatsWidened();
  }

  /** Reads a selection of an array; the caller closes the slab. */
  public Slab read(String path, String selection, BufferAllocator allocator) {
    return read(path, selection, allocator, ReadOptions.DEFAULT);
  }

  /**
   * Reads a selection of an array as one slab; the caller closes it.
   *
   * @throws SlabTooLargeException before allocating anything, if the slab is larger than {@code
   *     allocator} can still hand out or than one Arrow vector can hold (2^31 - 1 values); {@link
   *     #readTensor} streams selections of any size
   */
  public Slab read(
      String path, String selection, BufferAllocator allocator, ReadOptions readOptions) {
    ZarrArray array = array(path);
    Selection parsed = Selection.parse(selection, array.metadata().shape());
    SlabLimits.check(array, parsed, allocator);
    return array.read(parsed, allocator, readOptions);
  }

  /**
   * Streams a selection in the tensor layout (see {@link TensorReader}), in record batches of at
   * most {@link TensorReader#DEFAULT_BATCH_BYTES}, whatever the selection's size; the caller closes
   * the reader. Hand it to a file ({@code ArrowFiles.write}), a Flight stream or a C consumer
   * ({@code CData.export}).
   */
  public TensorReader readTensor(String path, String selection, BufferAllocator allocator) {
    ZarrArray array = array(path);
    return readTensor(
        path,
        Selection.parse(selection, array.metadata().shape()),
        allocator,
        TensorReader.DEFAULT_BATCH_BYTES,
        ReadOptions.DEFAULT);
  }

  /**
   * {@link #readTensor(String, String, BufferAllocator)} of a parsed selection, in record batches
   * of at most {@code batchBytes} (at least one row each).
   *
   * @throws dev.zaro.arrow.error.ZaroException (INVALID_ARGUMENT) if one row of the selection (one
   *     index of its first dimension) holds 2^31 values or more: slice the trailing dimensions
   */
  public TensorReader readTensor(
      String path,
      Selection selection,
      BufferAllocator allocator,
      long batchBytes,
      ReadOptions readOptions) {
    return TensorReader.of(array(path), selection, batchBytes, readOptions, allocator);
  }

  /**
   * Streams a selection in the table layout (see {@link TableReader}); the caller closes the
   * reader. Dimension columns take their values from 1-D coordinate arrays in the same group.
   */
  public TableReader readTable(String path, String selection, BufferAllocator allocator) {
    return readTable(path, selection, allocator, TableOptions.DEFAULT, ReadOptions.DEFAULT);
  }

  /**
   * {@link #readTable(String, String, BufferAllocator)} with table options; the caller closes the
   * reader.
   */
  public TableReader readTable(
      String path,
      String selection,
      BufferAllocator allocator,
      TableOptions tableOptions,
      ReadOptions readOptions) {
    ZarrArray array = array(path);
    return readTable(
        path,
        Selection.parse(selection, array.metadata().shape()),
        allocator,
        tableOptions,
        readOptions);
  }

  /** {@link #readTable(String, String, BufferAllocator)} of a parsed selection. */
  public TableReader readTable(
      String path,
      Selection selection,
      BufferAllocator allocator,
      TableOptions tableOptions,
      ReadOptions readOptions) {
    ZarrArray array = array(path);
    return new TableReader(
        array,
        selection,
        dimensionColumns(path, tableOptions, allocator),
        coordinateColumns(path),
        tableOptions,
        readOptions,
        allocator);
  }

  /**
   * The table layout's non-dimension coordinate columns of the array at {@code path} (see {@link
   * CoordinateColumns}): the arrays of its group its CF {@code coordinates} attribute names, over
   * some of its dimensions. Nothing is read but metadata.
   */
  public CoordinateColumns coordinateColumns(String path) {
    return tables.coordinateColumns(path);
  }

  /**
   * The table layout's dimension columns of the array at {@code path}, one per dimension: the
   * values of a 1-D coordinate array named like the dimension in the array's group (CF times as
   * timestamps when {@code options.cf()}), else the index. Names come from the dimension names
   * ({@code dim_0}... where unnamed); a name equal to the array's own gets a {@code _dim} suffix.
   *
   * @param allocator reads the coordinate arrays; nothing of it is held once this returns
   */
  public List<DimensionColumn> dimensionColumns(
      String path, TableOptions options, BufferAllocator allocator) {
    return tables.dimensionColumns(path, options, allocator);
  }

  /**
   * The dimension columns of {@link #dimensionColumns(String, TableOptions, BufferAllocator)}, each
   * coordinate array read only when its column's values are first needed (by a table read writing
   * the column, by a filter comparing against it): a query that names one dimension reads one
   * coordinate. Each read takes a root allocator of its own, closed once the values are copied to
   * the heap; nothing is read here but metadata.
   */
  public List<DimensionColumn> dimensionColumns(String path, TableOptions options) {
    return tables.dimensionColumns(path, options);
  }

  /**
   * A filter over every index of the array at {@code path}, narrowed by predicates on its dimension
   * columns as {@link #readTable} makes them (see {@link #dimensionColumns}).
   */
  public DimensionFilter dimensionFilter(String path, TableOptions options) {
    try (BufferAllocator allocator = new RootAllocator()) {
      return new DimensionFilter(dimensionColumns(path, options, allocator), meta(path).shape());
    }
  }

  /**
   * The table layout's schema of {@code selection} of the array at {@code path}, from metadata
   * alone (no chunk of the array or of its coordinates is read): the same fields {@link #readTable}
   * produces.
   */
  public Schema tableSchema(String path, Selection selection, TableOptions options) {
    return tables.tableSchema(path, selection, options);
  }

  /** Stores whose reads wait on a network: fetched by many workers at once. */
  private static boolean isRemote(Store store) {
    return store.capabilities().isRemote();
  }

  @Override
  public void close() {
    workers.shutdownNow();
    try {
      workers.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    scratch.close();
    if (cache != null && ownsCache) {
      cache.close();
    }
    store.close();
  }
}
