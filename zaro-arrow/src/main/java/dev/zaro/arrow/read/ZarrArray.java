package dev.zaro.arrow.read;

import dev.zaro.arrow.codec.Codec;
import dev.zaro.arrow.codec.CodecChain;
import dev.zaro.arrow.codec.Scratch;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.codec.VarHeap;
import dev.zaro.arrow.codec.internal.ChunkPart;
import dev.zaro.arrow.codec.internal.ScratchPool;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.SelectionException;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.exec.Budget;
import dev.zaro.arrow.exec.ConcurrencyPolicy;
import dev.zaro.arrow.exec.WorkRunner;
import dev.zaro.arrow.memory.BlockPool;
import dev.zaro.arrow.memory.HugePages;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.internal.ReadAccess;
import dev.zaro.arrow.read.internal.ReadSetup;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.Store;
import dev.zaro.arrow.store.StoreKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * An array opened for reading: its metadata and its codec chain, resolved once. Reads allocate the
 * output once, never pre-fill it, and decode every chunk into its own disjoint region of it on a
 * bounded number of workers. Thread-safe.
 */
public final class ZarrArray {
  private final Store store;
  private final String path;
  private final ArrayMetadata metadata;

  /** The chain of the first chunk's shape (every chunk's, on a regular grid). */
  private final CodecChain chain;

  /** Codec chains per chunk shape and the decode step. */
  private final ChunkDecoder decoder;

  private final Executor executor;
  private final int parallelism;

  /** Reused decode buffers, or null for a fresh scratch per read. */
  private final ScratchPool scratchPool;

  /** Chunk requests in flight for a remote store (see Prefetch), else 0. */
  private final int ioConcurrency;

  private final MissingChunks missingChunks;

  /** Remote stores: bodies held ahead of the decoders before requesting more; see Prefetch. */
  private final long maxBytesInFlight;

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
    this.maxBytesInFlight = setup.maxBytesInFlight();
    this.missingChunks = setup.missingChunks();
    this.scratchPool = setup.scratchPool();
    this.ioConcurrency = setup.ioConcurrency();
    this.store = store;
    this.path = StoreKeys.stripSlashes(path);
    this.metadata = metadata;
    this.executor = setup.executor();
    this.parallelism = Math.max(1, setup.parallelism());
    this.decoder =
        new ChunkDecoder(
            store, displayPath(), metadata, setup.registry(), setup.scratchPool(), setup.cache());
    this.chain =
        decoder.resolve(metadata.chunkGrid().chunkShape(new long[metadata.rank()])).chain();
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
   * their versions copies them ({@link #gatherCached}) into an assembly the cache keeps, keyed by
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
      chunks.add(decoder.cacheKey(chunkKey(chunkIndexOf(parts, t))));
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
        runChunks(
            new Target(
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

  /**
   * Where one read's chunks go: the output, its strides, the per-dimension chunk parts; and how
   * many of its threads are running a chunk (the rest may help decode one shard's inner chunks).
   * With index lists ({@code lists} not null), each task decodes into its own buffer, gathered into
   * the output after.
   */
  @SuppressWarnings("ArrayRecordComponent") // a read's private carrier, never compared
  private record Target(
      ArrowBuf out,
      int itemSize,
      long[] stride,
      long[] step,
      List<List<ChunkPart>> parts,
      VarHeap heap,
      byte[] fill,
      Budget budget,
      ReadStats stats,
      BufferAllocator scratch,
      IndexLists lists) {}

  /**
   * Reads every chunk task on the calling thread plus up to {@code parallelism - 1} (or {@code
   * ioConcurrency - 1}) workers, through the one {@link WorkRunner}. A worker holds a scratch only
   * while it runs a task, so nothing of a read is in use once the read returns.
   */
  private void runChunks(Target target, int tasks, BufferAllocator allocator, ReadOptions options) {
    if (tasks == 0) {
      return; // an empty selection touches no chunk
    }
    if (gatherCached(target, tasks)) {
      return;
    }
    // remote: fetches run ahead of the decoders (Prefetch), decoding keeps `threads`; a shard's
    // fetch is its index (unless cached) then its needed ranges, or the whole shard at once
    ChunkDecoder.Resolved first =
        decoder.resolve(metadata.chunkGrid().chunkShape(chunkIndexOf(target.parts(), 0)));
    ShardReader sharded = first.shardReader();
    ConcurrencyPolicy policy =
        ConcurrencyPolicy.of(
            parallelism, ioConcurrency, tasks, sharded == null || sharded.prefetchable());
    boolean ahead = policy.fetchAhead();
    // what one fetch is expected to hold before any has arrived: a decoded chunk (or shard)
    long firstGuess =
        Math.multiplyExact(
            Math.max(1, target.itemSize()), first.chain().decodedSpec().elementCount());
    // the streamed shards' chunks, decoded by any thread of the read as they land
    LandedChunks landed = ahead && sharded != null ? new LandedChunks() : null;
    try (Prefetch<ArrowBuf> chunks =
            ahead && sharded == null
                ? new Prefetch<>(
                    tasks,
                    t -> fetchChunk(target, t, allocator),
                    ArrowBuf::capacity,
                    firstGuess,
                    policy.requestsInFlight(),
                    maxBytesInFlight)
                : null;
        Prefetch<ShardReader.Fetched> shards =
            ahead && sharded != null
                ? new Prefetch<>(
                    tasks,
                    t -> fetchShard(target, t, allocator, landed),
                    ShardReader.Fetched::heldBytes,
                    ShardReader.Fetched::settled,
                    firstGuess,
                    policy.requestsInFlight(),
                    maxBytesInFlight)
                : null) {
      if (chunks != null) {
        chunks.pump();
      }
      if (shards != null) {
        shards.pump();
      }
      WorkRunner.run(
          tasks,
          t -> {
            Scratch scratch =
                scratchPool != null
                    ? scratchPool.borrow(
                        target.scratch(), target.budget()::idle, target.budget().executor())
                    : new Scratch(target.scratch())
                        .bind(target.scratch(), target.budget()::idle, target.budget().executor());
            try {
              readChunk(target, t, allocator, scratch, chunks, shards);
            } finally {
              if (scratchPool != null) {
                scratchPool.release(scratch);
              } else {
                scratch.close();
              }
            }
          },
          executor,
          policy.chunkThreads() - 1,
          options.control(),
          target.budget());
    } catch (Error e) {
      throw new ZaroException("reading array '" + displayPath() + "' failed: " + e, e);
    }
  }

  /**
   * When every chunk of the read is cached under its version (and would be copied from the cache by
   * {@link #readChunk}: not sharded, no straight fixed-size read, a fixed-width type, a step of 1
   * in the last dimension), copies them into the output in the output's order, row by row, each row
   * from the chunks it crosses: every output page is written once, in order, where copying chunk by
   * chunk writes a tile's short runs across all of them (measured 1.3-2x slower for [64, 128, 128]
   * float32 chunks into [16, 512, 512] blocks). Counts one hit per chunk. False (nothing copied,
   * nothing counted) otherwise: the read then goes chunk by chunk.
   */
  private static final long MAX_GATHER_INDICES = 1 << 20;

  private boolean gatherCached(Target target, int tasks) {
    List<List<ChunkPart>> parts = target.parts();
    int rank = parts.size();
    int last = rank - 1;
    if (rank == 0 || target.heap() != null || target.step()[last] != 1 || target.lists() != null) {
      return false;
    }
    for (int d = 0; d < last; d++) {
      ChunkPart end = parts.get(d).get(parts.get(d).size() - 1);
      if (end.outStart() + end.count() > MAX_GATHER_INDICES) {
        return false; // gather's per-index tables would be too large: chunk by chunk then
      }
    }
    ArrowBuf[] chunks = new ArrowBuf[tasks];
    long[][] chunkStride = new long[tasks][];
    try {
      for (int t = 0; t < tasks; t++) {
        TaskView tv = taskView(target, t);
        ChunkCache.Key key = decoder.cacheKey(chunkKey(tv.chunkIndex()), tv.view());
        ChunkDecoder.Resolved r = decoder.resolve(tv.chunkShape());
        if (key == null
            || r.shardReader() != null
            || (r.chain().encodedSize() >= 0 && ioConcurrency == 0)) {
          return false;
        }
        chunks[t] = decoder.retainCached(key, tv.view().chunkBytes());
        if (chunks[t] == null) {
          return false;
        }
        long[] cs = new long[rank];
        long s = target.itemSize();
        for (int d = last; d >= 0; d--) {
          cs[d] = s;
          s *= tv.chunkShape()[d];
        }
        chunkStride[t] = cs;
      }
      gather(target, chunks, chunkStride);
      decoder.countHits(tasks);
      return true;
    } finally {
      for (ArrowBuf chunk : chunks) {
        if (chunk != null) {
          chunk.getReferenceManager().release();
        }
      }
    }
  }

  /** Copies the retained chunks (task order) into the output row by row ({@link #gatherCached}). */
  private static void gather(Target target, ArrowBuf[] chunks, long[][] chunkStride) {
    List<List<ChunkPart>> parts = target.parts();
    int last = parts.size() - 1;
    long[] stride = target.stride();
    long[] step = target.step();
    // for each output index of each leading dimension: its part and its index in that part's chunk
    int[][] partOf = new int[last][];
    long[][] local = new long[last][];
    long[] counts = new long[last];
    for (int d = 0; d < last; d++) {
      List<ChunkPart> dimParts = parts.get(d);
      ChunkPart end = dimParts.get(dimParts.size() - 1);
      int n = (int) (end.outStart() + end.count());
      counts[d] = n;
      partOf[d] = new int[n];
      local[d] = new long[n];
      for (int p = 0; p < dimParts.size(); p++) {
        ChunkPart part = dimParts.get(p);
        for (long k = 0; k < part.count(); k++) {
          int i = (int) (part.outStart() + k);
          partOf[d][i] = p;
          local[d][i] = part.localStart() + k * step[d];
        }
      }
    }
    List<ChunkPart> rowParts = parts.get(last);
    int itemSize = target.itemSize();
    long out = target.out().memoryAddress();
    long[] idx = new long[last];
    while (true) {
      int base = 0;
      long dst = out;
      for (int d = 0; d < last; d++) {
        base = base * parts.get(d).size() + partOf[d][(int) idx[d]];
        dst += idx[d] * stride[d];
      }
      for (int p = 0; p < rowParts.size(); p++) {
        ChunkPart part = rowParts.get(p);
        int t = base * rowParts.size() + p;
        long[] cs = chunkStride[t];
        long src = chunks[t].memoryAddress() + part.localStart() * cs[last];
        for (int d = 0; d < last; d++) {
          src += local[d][(int) idx[d]] * cs[d];
        }
        MemoryUtil.copyMemory(src, dst + part.outStart() * itemSize, part.count() * itemSize);
      }
      int d = last - 1;
      while (d >= 0 && ++idx[d] == counts[d]) {
        idx[d] = 0;
        d--;
      }
      if (d < 0) {
        return;
      }
    }
  }

  /**
   * The request for task {@code t}'s chunk (a null body: the chunk is absent); none for a chunk
   * cached under its version now: an empty buffer then tells {@link #readChunk} to copy it from the
   * cache (or, evicted meanwhile, to fetch it after all).
   */
  private CompletableFuture<ArrowBuf> fetchChunk(Target target, int t, BufferAllocator allocator) {
    String key = chunkKey(chunkIndexOf(target.parts(), t));
    if (target.heap() == null && decoder.isCached(decoder.cacheKey(key))) {
      return CompletableFuture.completedFuture(allocator.getEmpty());
    }
    return store
        .getAsync(key, ByteRange.ALL, allocator, executor)
        .thenApply(body -> body.orElse(null));
  }

  /** The fetch step of task {@code t}'s shard read (its view planned, not written). */
  private CompletableFuture<ShardReader.Fetched> fetchShard(
      Target target, int t, BufferAllocator allocator, LandedChunks landed) {
    TaskView tv = taskView(target, t);
    ChunkDecoder.Resolved r = decoder.resolve(tv.chunkShape());
    return r.shardReader()
        .fetchAsync(
            chunkKey(tv.chunkIndex()),
            r.chain().encodedView(tv.view()),
            tv.whole(),
            allocator,
            executor,
            target.stats(),
            landed);
  }

  /** The chunk index of task {@code task}: C order over the per-dimension chunk parts. */
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

  private static long[] chunkIndexOf(List<List<ChunkPart>> parts, int task) {
    long[] chunkIndex = new long[parts.size()];
    int rest = task;
    for (int d = parts.size() - 1; d >= 0; d--) {
      List<ChunkPart> dimParts = parts.get(d);
      chunkIndex[d] = dimParts.get(rest % dimParts.size()).chunk();
      rest /= dimParts.size();
    }
    return chunkIndex;
  }

  /**
   * Where task {@code t} reads: its chunk, the chunk's shape, the view of the output, and whether
   * the view takes every element of the chunk that lies inside the array.
   */
  @SuppressWarnings("ArrayRecordComponent") // a read's private carrier, never compared
  private record TaskView(long[] chunkIndex, int[] chunkShape, SlabView view, boolean whole) {}

  private TaskView taskView(Target target, int task) {
    List<List<ChunkPart>> parts = target.parts();
    long[] stride = target.stride();
    int rank = parts.size();
    long[] chunkIndex = new long[rank];
    long[] start = new long[rank];
    long[] count = new long[rank];
    long offset = 0;
    int rest = task;
    for (int d = rank - 1; d >= 0; d--) {
      List<ChunkPart> dimParts = parts.get(d);
      ChunkPart part = dimParts.get(rest % dimParts.size());
      rest /= dimParts.size();
      chunkIndex[d] = part.chunk();
      start[d] = part.localStart();
      count[d] = part.count();
      offset += part.outStart() * stride[d];
    }
    int[] chunkShape = metadata.chunkGrid().chunkShape(chunkIndex);
    boolean whole = true;
    for (int d = 0; d < rank && whole; d++) {
      var dim = metadata.chunkGrid().dim(d);
      long inside = Math.min(chunkShape[d], dim.size() - dim.start(chunkIndex[d]));
      whole = start[d] == 0 && (target.step()[d] == 1 || count[d] == 1) && count[d] == inside;
    }
    ArrowBuf into = target.out();
    if (target.lists() != null) {
      // the task's own buffer, C order over its counts; gathered into the output after decoding
      offset = 0;
      stride = new long[rank];
      long s = target.itemSize();
      for (int d = rank - 1; d >= 0; d--) {
        stride[d] = s;
        s *= count[d];
      }
      into = target.lists().buffer(task, s, target.scratch());
    }
    SlabView view =
        new SlabView(
            into,
            offset,
            target.itemSize(),
            chunkShape,
            start,
            target.step(),
            count,
            stride,
            target.heap());
    return new TaskView(chunkIndex, chunkShape, view, whole);
  }

  private void readChunk(
      Target target,
      int task,
      BufferAllocator allocator,
      Scratch scratch,
      Prefetch<ArrowBuf> chunks,
      Prefetch<ShardReader.Fetched> shards) {
    TaskView tv = taskView(target, task);
    decodeChunk(target, task, tv, allocator, scratch, chunks, shards);
    if (target.lists() != null) {
      target.lists().gather(task, tv.view(), target.out(), target.stride());
    }
  }

  /** Decodes (or fills) task {@code task}'s chunk into its view. */
  private void decodeChunk(
      Target target,
      int task,
      TaskView tv,
      BufferAllocator allocator,
      Scratch scratch,
      Prefetch<ArrowBuf> chunks,
      Prefetch<ShardReader.Fetched> shards) {
    long[] chunkIndex = tv.chunkIndex();
    SlabView view = tv.view();
    ChunkDecoder.Resolved r = decoder.resolve(tv.chunkShape());
    CodecChain chain = r.chain();
    String key = chunkKey(chunkIndex);
    if (r.shardReader() != null) {
      boolean present;
      try (ShardReader.Fetched fetched =
          shards != null ? takeShard(shards, task, key, chunkIndex) : null) {
        // null: fetched on this thread (nested sharding)
        present =
            decoder.decodeShard(
                r,
                fetched,
                view,
                allocator,
                scratch,
                target.budget(),
                target.stats(),
                key,
                chunkIndex);
      }
      if (!present) {
        missing(key, chunkIndex, view, target);
      }
      return;
    }
    long fixedSize = chain.encodedSize();
    if (fixedSize >= 0 && ioConcurrency == 0) {
      readFixedSize(key, chunkIndex, view, fixedSize, target, chain, allocator, scratch);
      return;
    }
    // a chunk cached under its version (asked of the store before any fetch) is not fetched
    ChunkCache.Key cacheKey = decoder.cacheKey(key, view);
    Optional<ArrowBuf> encoded;
    try {
      ArrowBuf ahead = chunks != null ? chunks.take(task) : null;
      // empty: cached when the window reached it, not fetched (or a stored chunk of 0 bytes,
      // then fetched again below)
      boolean skipped = ahead != null && ahead.capacity() == 0;
      boolean hit;
      try {
        hit = decoder.fromCache(cacheKey, view);
      } catch (RuntimeException | Error e) {
        if (ahead != null) {
          ahead.close();
        }
        throw e;
      }
      if (hit) {
        if (ahead != null) {
          ahead.close(); // fetched before another read cached the chunk
        }
        return;
      }
      encoded = chunks == null || skipped ? store.get(key, allocator) : Optional.ofNullable(ahead);
      if (skipped) {
        ahead.close(); // the empty buffer: a no-op
      }
    } catch (ZaroException e) {
      throw new StoreException(decoder.context(key, chunkIndex) + e.getMessage(), e);
    }
    if (encoded.isEmpty()) {
      missing(key, chunkIndex, view, target);
      view.fill(target.fill());
      return;
    }
    try (ArrowBuf buf = encoded.get()) {
      decoder.decode(
          buf, view, chain, allocator, scratch, target.stats(), key, chunkIndex, cacheKey);
    }
  }

  /** A shard fetched ahead, its fetch failure naming the array, chunk and key. */
  private ShardReader.Fetched takeShard(
      Prefetch<ShardReader.Fetched> shards, int task, String key, long[] chunkIndex) {
    try {
      return shards.take(task);
    } catch (CodecException | IllegalArgumentException | IndexOutOfBoundsException e) {
      throw new CodecException(decoder.context(key, chunkIndex) + e.getMessage(), e);
    } catch (StoreException e) {
      throw new StoreException(decoder.context(key, chunkIndex) + e.getMessage(), e);
    }
  }

  /**
   * Chunks of a fixed stored size (uncompressed): read straight into place when the chunk is a
   * contiguous region of the output and needs no decoding, else into the worker's scratch.
   */
  private void readFixedSize(
      String key,
      long[] chunkIndex,
      SlabView view,
      long size,
      Target target,
      CodecChain chain,
      BufferAllocator allocator,
      Scratch scratch) {
    boolean direct = chain.isPlain() && view.isWholeContiguous();
    ArrowBuf into = direct ? view.target() : scratch.buffer(size);
    long at = direct ? view.offset() : 0;
    OptionalLong n;
    try {
      n = store.getInto(key, ByteRange.ALL, into, at, size);
    } catch (StoreException e) {
      throw new StoreException(decoder.context(key, chunkIndex) + e.getMessage(), e);
    }
    if (n.isEmpty()) {
      missing(key, chunkIndex, view, target);
      view.fill(target.fill());
      return;
    }
    if (target.stats() != null) {
      target.stats().fetched(n.getAsLong());
      target.stats().decoded(1, view.byteSize());
    }
    if (n.getAsLong() != size) {
      List<Codec> codecs = chain.codecs(); // the last one reads the stored bytes
      throw new CodecException(
          decoder.context(key, chunkIndex)
              + "codec "
              + codecs.get(codecs.size() - 1).name()
              + ": chunk has "
              + n.getAsLong()
              + " bytes, expected "
              + size);
    }
    if (!direct) {
      ArrowBuf encoded = into.slice(0, size);
      encoded.writerIndex(size);
      decoder.decodeFixed(encoded, view, chain, allocator, key, chunkIndex);
    }
  }

  /** A chunk absent from the store: an error under {@link MissingChunks#ERROR}, else nothing. */
  private void missing(String key, long[] chunkIndex, SlabView view, Target target) {
    if (target.stats() != null) {
      target.stats().missing(view.byteSize());
    }
    if (missingChunks == MissingChunks.ERROR) {
      throw new StoreException(
          ErrorKind.MISSING_CHUNK,
          decoder.context(key, chunkIndex)
              + "the chunk is absent from the store (missing chunks are errors here; by default they read as the"
              + " fill value)");
    }
  }
}
