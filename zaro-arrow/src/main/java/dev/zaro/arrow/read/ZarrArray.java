package dev.zaro.arrow.read;

import dev.zaro.arrow.codec.CodecChain;
import dev.zaro.arrow.codec.VarHeap;
import dev.zaro.arrow.codec.internal.ChunkPart;
import dev.zaro.arrow.error.SelectionException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.exec.Budget;
import dev.zaro.arrow.memory.BlockPool;
import dev.zaro.arrow.memory.HugePages;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.internal.ReadAccess;
import dev.zaro.arrow.read.internal.ReadSetup;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * An array opened for reading: its metadata and its codec chain, resolved once. Reads allocate the
 * output once, never pre-fill it, and decode every chunk into its own disjoint region of it on a
 * bounded number of workers. Thread-safe.
 */
public final class ZarrArray {
  private final String path;
  private final ArrayMetadata metadata;

  /** The chain of the first chunk's shape (every chunk's, on a regular grid). */
  private final CodecChain chain;

  /** Codec chains per chunk shape and the decode step. */
  private final ChunkDecoder decoder;

  private final Executor executor;
  private final int parallelism;

  /** Each read's chunk tasks: fetched, decoded or filled into the output. */
  private final ChunkTasks chunkTasks;

  /** Fetched bytes a remote read holds ahead of its decoders by default (256 MiB). */
  public static final long DEFAULT_MAX_BYTES_IN_FLIGHT = 256L << 20;

  static {
    ReadAccess.install(
        new ReadAccess() {
          @Override
          public ZarrArray open(Store store, String path, ArrayMetadata metadata, ReadSetup setup) {
            return new ZarrArray(store, path, metadata, setup);
          }

          @Override
          public Budget budget(ZarrArray array) {
            return array.budget();
          }
        });
  }

  /**
   * An array ready to read; {@code Zaro.array} makes them from its options, through {@link
   * ReadAccess#open}, with what every array of that {@code Zaro} shares ({@link ReadSetup}).
   */
  private ZarrArray(Store store, String path, ArrayMetadata metadata, ReadSetup setup) {
    this.path = StoreKeys.stripSlashes(path);
    this.metadata = metadata;
    this.executor = setup.executor();
    this.parallelism = Math.max(1, setup.parallelism());
    this.decoder =
        new ChunkDecoder(
            store, displayPath(), metadata, setup.registry(), setup.scratchPool(), setup.cache());
    this.chain =
        decoder.resolve(metadata.chunkGrid().chunkShape(new long[metadata.rank()])).chain();
    this.chunkTasks =
        new ChunkTasks(
            store,
            displayPath(),
            metadata.chunkGrid(),
            this::chunkKey,
            decoder,
            executor,
            parallelism,
            setup.scratchPool(),
            setup.ioConcurrency(),
            setup.missingChunks(),
            setup.maxBytesInFlight());
  }

  /** The array's metadata, as it is read (ML floats widened unless asked otherwise). */
  public ArrayMetadata metadata() {
    return metadata;
  }

  /** The array's path in the store, without leading or trailing slashes. */
  public String path() {
    return path;
  }

  /** The codec chain of the first chunk's shape (every chunk's on a regular grid). */
  public CodecChain codecChain() {
    return chain;
  }

  /**
   * A budget of this array's read threads (its executor and parallelism), for work beside a read's
   * chunks, such as the table layout's dimension columns; {@link ReadAccess#budget} for the layers
   * above. Not public: {@code exec} is not exported.
   */
  Budget budget() {
    return new Budget(executor, parallelism);
  }

  /** The node's name: the last path component, or {@code data} for a root array. */
  public String name() {
    return path.isEmpty() ? "data" : path.substring(path.lastIndexOf('/') + 1);
  }

  private String displayPath() {
    return "/" + path;
  }

  /** The store key of the chunk at {@code index}. */
  public String chunkKey(long[] index) {
    return metadata.chunkKeyEncoding().key(path, index);
  }

  /**
   * Reads {@code selection} (numpy-style text) with the default options; the caller closes the
   * slab.
   */
  public Slab read(String selection, BufferAllocator allocator) {
    return read(Selection.parse(selection, metadata.shape()), allocator, ReadOptions.DEFAULT);
  }

  /**
   * Reads a selection.
   *
   * @return a slab the caller closes
   */
  public Slab read(Selection selection, BufferAllocator allocator, ReadOptions options) {
    return read(selection, null, allocator, options);
  }

  /**
   * The selection as a slab over a cached chunk's memory, with no fetch, decoding or copy, when it
   * is one contiguous C-order region of a single fixed-width chunk cached under its version (see
   * {@link #contiguousInChunk}); null otherwise (read it then). The slab holds a reference to the
   * cached chunk: evicting it frees the memory only once the slab and the vectors built from it are
   * closed; until then it stays accounted to the cache, not to {@code allocator} ({@link
   * ChunkCache#region}). Counts one cache hit by reference when it returns a slab, nothing
   * otherwise.
   */
  public Slab readCached(Selection selection, BufferAllocator allocator) {
    List<Slab> slabs = readCached(List.of(selection), allocator);
    return slabs == null ? null : slabs.get(0);
  }

  /**
   * Every piece as a slab over a cached chunk's memory ({@link #readCached(Selection,
   * BufferAllocator)}), or null if any piece is not such a region now (then none is taken and
   * nothing is counted, so the read that follows counts each chunk once, as a hit or a miss). When
   * it returns the slabs, each piece (one chunk's) counts as one hit by reference.
   *
   * @return slabs the caller closes, in the pieces' order, or null
   */
  public List<Slab> readCached(List<Selection> pieces, BufferAllocator allocator) {
    List<Slab> slabs = new ArrayList<>(pieces.size());
    for (Selection piece : pieces) {
      Slab slab = takeCached(piece, allocator);
      if (slab == null) {
        slabs.forEach(Slab::close);
        return null;
      }
      slabs.add(slab);
    }
    decoder.countByReference(slabs.size());
    return slabs;
  }

  private Slab takeCached(Selection selection, BufferAllocator allocator) {
    long[] region = contiguousInChunk(selection);
    if (region == null) {
      return null;
    }
    int rank = metadata.rank();
    long[] chunkIndex = new long[rank];
    for (int d = 0; d < rank; d++) {
      Selection.Dim dim = selection.dims().get(d);
      chunkIndex[d] =
          ChunkPart.split(dim.start(), dim.step(), dim.count(), metadata.chunkGrid().dim(d))
              .get(0)
              .chunk();
    }
    ArrowBuf data = decoder.cachedRegion(chunkKey(chunkIndex), region[0], region[1], allocator);
    return data == null
        ? null
        : new Slab(
            name(), metadata.dataType(), selection.resultShape(), resultNames(selection), data);
  }

  /** At most this many chunks in one assembly ({@link #readAssembled}): its key names each. */
  private static final int MAX_ASSEMBLED_CHUNKS = 4096;

  /**
   * The selection as one slab over the cache's memory, its C-order bytes kept there whole (an
   * assembly), with no decoding: the first call for a selection whose chunks are all cached under
   * their versions copies them ({@link CachedGather}) into an assembly the cache keeps, keyed by
   * the selection and every chunk's version; later calls for the same selection take it by
   * reference, with no copy at all (a server sending the same slice again). A rewritten chunk has a
   * new version, so an assembly is never served stale. The cache may hold both an assembly and its
   * chunks; the least recently used entries are evicted first. The memory stays the cache's ({@link
   * ChunkCache#region}).
   *
   * <p>Null (nothing taken or counted: read the selection then) without a cache, for a
   * variable-length type, an empty or 0-d selection, more than {@value #MAX_ASSEMBLED_CHUNKS}
   * chunks, a chunk not cached or without a version (remote stores, a file modified in the last
   * seconds), or an assembly over a quarter of the cache. Counts each chunk as one cache hit: by
   * reference when the assembly was cached, copied when it is made now.
   *
   * @return a slab the caller closes, or null
   */
  public Slab readAssembled(Selection selection, BufferAllocator allocator, ReadOptions options) {
    int rank = metadata.rank();
    if (rank == 0
        || selection.size() == 0
        || metadata.dataType().isVariableLength()
        || selection.hasLists()) {
      return null;
    }
    List<List<ChunkPart>> parts = chunkParts(selection);
    long count = 1;
    for (List<ChunkPart> p : parts) {
      count *= p.size();
      if (count > MAX_ASSEMBLED_CHUNKS) {
        return null;
      }
    }
    List<ChunkCache.Key> chunks = new ArrayList<>((int) count);
    for (int t = 0; t < count; t++) {
      chunks.add(decoder.cacheKey(chunkKey(ReadTarget.chunkIndexOf(parts, t))));
    }
    ChunkCache.Key key = decoder.assembledKey(selection.dims().toString(), chunks);
    if (key == null) {
      return null;
    }
    long bytes = Math.multiplyExact(selection.size(), (long) metadata.dataType().byteSize());
    ArrowBuf data = decoder.cachedRegion(key, bytes, allocator);
    if (data != null) {
      decoder.countByReference(chunks.size());
    } else {
      for (ChunkCache.Key chunk : chunks) {
        if (!decoder.isCached(chunk)) {
          return null;
        }
      }
      ChunkCache.Pending assembly = decoder.reserveAssembly(key, bytes);
      if (assembly == null) {
        return null;
      }
      try {
        readInto(selection, assembly.decoded(), allocator, options).close();
      } catch (RuntimeException | Error e) {
        assembly.discard();
        throw e;
      }
      data = decoder.keepAssembly(key, assembly, allocator);
    }
    return new Slab(
        name(), metadata.dataType(), selection.resultShape(), resultNames(selection), data);
  }

  /**
   * Where {@code selection} lies in the decoded bytes of the one chunk it touches, as {offset,
   * length}, when those bytes are contiguous: every dimension before some k holds a single index,
   * k's indices are consecutive, and every dimension after k spans the whole chunk (a chunk
   * spanning the array's trailing dimensions, such as {@code [c, full, full]}). Null when the
   * selection is empty or 0-d, touches several chunks, has a step or an index list, does not span
   * them, or the data type is variable-length.
   */
  public long[] contiguousInChunk(Selection selection) {
    int rank = metadata.rank();
    if (rank == 0
        || selection.size() == 0
        || metadata.dataType().isVariableLength()
        || selection.hasLists()) {
      return null;
    }
    long[] chunkIndex = new long[rank];
    long[] start = new long[rank];
    long[] count = new long[rank];
    for (int d = 0; d < rank; d++) {
      Selection.Dim dim = selection.dims().get(d);
      List<ChunkPart> parts =
          ChunkPart.split(dim.start(), dim.step(), dim.count(), metadata.chunkGrid().dim(d));
      if (parts.size() != 1 || (dim.step() != 1 && dim.count() > 1)) {
        return null;
      }
      chunkIndex[d] = parts.get(0).chunk();
      start[d] = parts.get(0).localStart();
      count[d] = parts.get(0).count();
    }
    int[] chunkShape = metadata.chunkGrid().chunkShape(chunkIndex);
    int k = 0;
    while (k < rank - 1 && count[k] == 1) {
      k++;
    }
    long offset = 0;
    long stride = metadata.dataType().byteSize();
    for (int d = rank - 1; d >= 0; d--) {
      if (d > k && (start[d] != 0 || count[d] != chunkShape[d])) {
        return null;
      }
      offset += start[d] * stride;
      stride *= chunkShape[d];
    }
    return new long[] {offset, selection.size() * metadata.dataType().byteSize()};
  }

  private List<String> resultNames(Selection selection) {
    List<String> names = new ArrayList<>();
    for (int d = 0; d < metadata.rank(); d++) {
      if (!selection.dims().get(d).dropped()) {
        names.add(metadata.dimensionName(d));
      }
    }
    return names;
  }

  /**
   * Reads a selection into the start of {@code out}, a buffer the caller owns and keeps owning, so
   * one buffer can serve read after read (a fresh buffer costs a page fault per page on first
   * touch). Every byte of the selection is written (decoded or fill); bytes past it are left alone.
   * Fixed-size data types only. Scratch comes from a child of {@code allocator}.
   *
   * @return a slab over the first bytes of {@code out}, holding its own reference to it: closing
   *     the slab does not release the caller's
   * @throws SelectionException if {@code out} is smaller than the selection or the data type is
   *     variable-length
   */
  public Slab readInto(
      Selection selection, ArrowBuf out, BufferAllocator allocator, ReadOptions options) {
    return read(selection, Objects.requireNonNull(out, "out"), allocator, options);
  }

  private Slab read(
      Selection selection, ArrowBuf into, BufferAllocator allocator, ReadOptions options) {
    long[] shape = metadata.shape();
    int rank = shape.length;
    int itemSize = metadata.dataType().byteSize();
    long[] counts = selection.counts();
    long[] stride = new long[rank];
    long s = itemSize;
    for (int d = rank - 1; d >= 0; d--) {
      stride[d] = s;
      s = Math.multiplyExact(s, counts[d]);
    }
    long outBytes = s;
    // index lists: grouped by the chunks holding their indices, each task into its own buffer
    IndexLists lists =
        selection.hasLists() && selection.size() > 0
            ? IndexLists.of(selection, metadata.chunkGrid(), chain, itemSize, allocator)
            : null;
    List<List<ChunkPart>> parts = lists != null ? lists.parts() : chunkParts(selection);
    long tasks = 1;
    for (List<ChunkPart> p : parts) {
      tasks *= p.size();
    }
    if (tasks > Integer.MAX_VALUE) {
      throw new ZaroException(
          "selection '"
              + selection
              + "' of array '"
              + displayPath()
              + "' touches "
              + tasks
              + " chunks; read it in parts");
    }
    ArrowBuf out;
    if (into == null && !metadata.dataType().isVariableLength()) {
      // every byte is written below (decoded or fill), so the memory of a freed output can be
      // reused: no page faults, no zeroing by the kernel
      out = BlockPool.shared().buffer(allocator, outBytes);
    } else if (into == null) {
      out = allocator.buffer(outBytes);
      HugePages.advise(out.memoryAddress(), outBytes);
    } else if (metadata.dataType().isVariableLength() || into.capacity() < outBytes) {
      throw new SelectionException(
          "selection '"
              + selection
              + "' of array '"
              + displayPath()
              + "': "
              + (metadata.dataType().isVariableLength()
                  ? "a variable-length data type cannot be read into a caller's buffer"
                  : "needs "
                      + outBytes
                      + " bytes, the buffer it should be read into holds "
                      + into.capacity()));
    } else {
      into.getReferenceManager().retain();
      out = into.slice(0, outBytes);
    }
    VarHeap heap = metadata.dataType().isVariableLength() ? new VarHeap(allocator) : null;
    try {
      out.writerIndex(outBytes);
      long[] step = selection.dims().stream().mapToLong(d -> d.isList() ? 1 : d.step()).toArray();
      byte[] fill =
          heap == null ? metadata.fillValue().bytes() : heap.element(metadata.fillValue().bytes());
      // scratch comes from a child of the caller's allocator, so the caller's limit covers it
      try (BufferAllocator scratch =
              allocator.newChildAllocator(
                  "zaro scratch " + displayPath(), 0, allocator.getLimit());
          IndexLists held = lists) {
        chunkTasks.runChunks(
            new ReadTarget(
                out,
                itemSize,
                stride,
                step,
                parts,
                heap,
                fill,
                new Budget(executor, parallelism),
                options.stats(),
                scratch,
                held),
            (int) tasks,
            allocator,
            options);
      }
      return new Slab(
          name(), metadata.dataType(), selection.resultShape(), resultNames(selection), out, heap);
    } catch (RuntimeException | Error e) {
      out.close();
      if (heap != null) {
        heap.close();
      }
      throw e;
    }
  }

  /** Per dimension, the parts of the chunks {@code selection} touches, in chunk order. */
  private List<List<ChunkPart>> chunkParts(Selection selection) {
    List<List<ChunkPart>> parts = new ArrayList<>(metadata.rank());
    for (int d = 0; d < metadata.rank(); d++) {
      Selection.Dim dim = selection.dims().get(d);
      if (dim.isList() && selection.size() > 0) {
        throw new IllegalStateException("index lists are split by IndexLists: " + selection);
      }
      parts.add(
          dim.isList()
              ? List.of()
              : ChunkPart.split(dim.start(), dim.step(), dim.count(), metadata.chunkGrid().dim(d)));
    }
    return parts;
  }
}
