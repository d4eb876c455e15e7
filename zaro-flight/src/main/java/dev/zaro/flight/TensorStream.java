package dev.zaro.flight;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.plan.ReadPlan;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.read.ZarrArray;
import dev.zaro.arrow.vector.SlabVectors;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The tensor layout's streams: a selection split into blocks along the first dimension on chunk
 * boundaries ({@link #blocks}), the first block read on the stream's thread and each later one
 * (from the cache by reference where it can be) on a prefetch thread while the one before it is
 * sent, and sent as batches of about {@code batchBytes}. Thread-safe: one instance serves every
 * stream of a producer.
 */
final class TensorStream {
  private final Zaro zaro;
  private final ZaroFlightProducer.FlightOptions options;
  private final ReadOptions readOptions;
  private final Executor prefetch;

  /**
   * @param prefetch where the next block is read while the current one is sent
   */
  TensorStream(
      Zaro zaro,
      ZaroFlightProducer.FlightOptions options,
      ReadOptions readOptions,
      Executor prefetch) {
    this.zaro = zaro;
    this.options = options;
    this.readOptions = readOptions;
    this.prefetch = prefetch;
  }

  /**
   * The memory a tensor stream expects to hold at once: the block being sent, the next one being
   * decoded, one more pinned by gRPC until written, and two chunks' worth of input.
   */
  static long reservation(ZarrArray array, List<Selection> blocks) {
    long elementBytes = array.metadata().dataType().byteSize();
    long block = 0;
    for (Selection b : blocks) {
      block = Math.max(block, b.size() * elementBytes);
    }
    double chunk = (double) elementBytes; // the largest chunk (grids may be rectilinear)
    for (int d = 0; d < array.metadata().chunkGrid().rank(); d++) {
      chunk *= array.metadata().chunkGrid().dim(d).maxLength();
    }
    return 3 * block + 2 * (long) Math.min(chunk, (double) block);
  }

  /**
   * Streams {@code blocks} of {@code array} into {@code stream} as batches of {@code schema}, each
   * read ahead on a prefetch thread; buffers come from {@code child} (the request's lease).
   */
  void stream(
      ReadRequest request,
      Schema schema,
      ZarrArray array,
      List<Selection> blocks,
      BufferAllocator child,
      ReadSink stream) {
    CompletableFuture<List<Slab>> next = null;
    // the block being sent, the next one being read, and the two that gRPC may still hold when that
    // read starts: Flight lets a do_get queue up to its backpressure threshold (10 MiB) before it
    // stops being ready, so after a block's last 8 MiB batch the queue can reach back into the two
    // 16 MiB blocks before it; with three buffers a cached stream's reads kept missing the pool and
    // paid the kernel for zeroing fresh pages (perf: clear_page_erms on the prefetch threads, gone
    // with four). With a cache only: an uncached server's 64 MiB blocks reused in three buffers
    // measured both cheaper (direct pairs) and dearer (flight_throughput.py) than fresh ones
    try (BlockBuffers buffers = new BlockBuffers(zaro.cache() == null ? 0 : 4);
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, child)) {
      stream.start(root, request.compression());
      VectorLoader loader = new VectorLoader(root);
      // the first block on this thread: nothing is sent before it, and a small read (one block)
      // then costs no hand-over to a prefetch thread and back, each a wake-up on a busy machine
      next = CompletableFuture.completedFuture(readBlock(array, blocks.get(0), child, buffers));
      for (int i = 0; i < blocks.size(); i++) {
        List<Slab> current = await(next);
        next =
            i + 1 < blocks.size() && !stream.gone()
                ? readAsync(array, blocks.get(i + 1), child, buffers)
                : null;
        try {
          for (Slab slab : current) {
            if (!send(slab, loader, stream)) {
              return;
            }
          }
        } finally {
          current.forEach(Slab::close);
        }
      }
      stream.completed();
    } finally {
      discard(next);
    }
  }

  /** Sends one decoded block as batches of about batchBytes; false if the stream must end. */
  private boolean send(Slab slab, VectorLoader loader, ReadSink stream) {
    long rows = SlabVectors.rows(slab);
    long rowBytes = Math.max(1, rows == 0 ? 1 : slab.byteSize() / rows);
    long perBatch = Math.max(1, options.batchBytes() / rowBytes);
    for (long from = 0; from < rows || (rows == 0 && from == 0); from += perBatch) {
      long n = Math.min(perBatch, rows - from);
      try (FieldVector vector = SlabVectors.tensor(slab, from, n);
          VectorSchemaRoot batch =
              new VectorSchemaRoot(
                  List.of(vector.getField()), List.of(vector), vector.getValueCount());
          ArrowRecordBatch record = new VectorUnloader(batch).getRecordBatch()) {
        loader.load(record);
      }
      if (!stream.readyForNext()) {
        return false;
      }
      stream.putNext();
      if (rows == 0) {
        break;
      }
    }
    return true;
  }

  private CompletableFuture<List<Slab>> readAsync(
      ZarrArray array, Selection block, BufferAllocator child, BlockBuffers buffers) {
    return CompletableFuture.supplyAsync(() -> readBlock(array, block, child, buffers), prefetch);
  }

  /** One block: from the cache by reference, as a cached assembly, or read. */
  private List<Slab> readBlock(
      ZarrArray array, Selection block, BufferAllocator child, BlockBuffers buffers) {
    List<Slab> cached = readCached(array, block, child);
    if (cached != null) {
      return cached;
    }
    Slab assembled = zaro.cache() == null ? null : array.readAssembled(block, child, readOptions);
    return List.of(assembled != null ? assembled : read(array, block, child, buffers));
  }

  /** Reads a block into a free buffer of the stream's pool, or into a fresh one. */
  private Slab read(ZarrArray array, Selection block, BufferAllocator child, BlockBuffers buffers) {
    ArrayMetadata metadata = array.metadata();
    ArrowBuf into =
        metadata.dataType().isVariableLength() || block.size() == 0
            ? null
            : buffers.acquire(block.size() * metadata.dataType().byteSize());
    if (into == null) {
      Slab slab = array.read(block, child, readOptions);
      if (slab.heap() == null) {
        buffers.adopt(slab.data());
      }
      return slab;
    }
    try (into) {
      return array.readInto(block, into, child, readOptions);
    }
  }

  /**
   * The block as slabs over cached chunks' memory, one a chunk along its first dimension, when each
   * of them is a cached chunk's contiguous region (chunks spanning the trailing dimensions): they
   * are then sent by reference, not decoded or copied ({@link ZarrArray#readCached}). Null
   * otherwise (without a cache, or a chunk not cached or not contiguous): the block is read, and
   * its chunks are counted then, each once.
   */
  private List<Slab> readCached(ZarrArray array, Selection block, BufferAllocator child) {
    if (zaro.cache() == null) {
      return null;
    }
    return array.readCached(
        ReadPlan.of(array.metadata(), block).splitFirst(1, Long.MAX_VALUE), child);
  }

  private static List<Slab> await(CompletableFuture<List<Slab>> future) {
    try {
      return future.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r
          ? r
          : new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CallStatus.UNAVAILABLE
          .withDescription("the server is shutting down")
          .toRuntimeException();
    }
  }

  /** Waits for a read nobody will send and frees what it made. */
  private static void discard(CompletableFuture<List<Slab>> future) {
    if (future == null) {
      return;
    }
    try {
      future.join().forEach(Slab::close);
    } catch (RuntimeException e) {
      // the read failed; it freed its own buffers
    }
  }

  /**
   * Splits a selection into reads along the first dimension that follow chunk boundaries (so no
   * chunk is decoded twice), each holding at most a quarter of the request memory limit. With a
   * cache that holds a run of the first dimension's chunks twice over, and chunks that are copied
   * into blocks (not sent by reference), blocks hold two batches and may cut a chunk: the chunk
   * decoded for the first block that touches it is a cache hit for the next, and the stream reuses
   * its three block buffers over many more blocks ({@link BlockBuffers}).
   */
  List<Selection> blocks(ZarrArray array, Selection selection) {
    long rows = SlabVectors.rows(selection.resultShape()); // the first kept dimension's
    long rowBytes =
        rows == 0
            ? 1
            : Math.max(1, selection.size() / rows * array.metadata().dataType().byteSize());
    long maxRows = Math.max(1, options.requestBytes() / 4 / rowBytes);
    ReadPlan plan = ReadPlan.of(array.metadata(), selection);
    List<Selection> blocks = plan.splitFirst(options.batchBytes() * 4, maxRows);
    if (zaro.cache() == null
        || rows == 0
        || selection.size() == 0
        || sentByReference(array, blocks)) {
      return blocks;
    }
    int first = 0; // the first kept dimension
    while (first < selection.dims().size() - 1 && selection.dims().get(first).dropped()) {
      first++;
    }
    double chunkRows = (double) rowBytes * array.metadata().chunkGrid().dim(first).maxLength();
    long small = Math.max(1, 2 * options.batchBytes() / rowBytes);
    return 2 * chunkRows <= zaro.cache().stats().capacity() && small < maxRows
        ? plan.splitFirst(options.batchBytes() * 4, small)
        : blocks;
  }

  /**
   * Whether cached chunks of these blocks are sent by reference (the first block's first piece is a
   * contiguous region of one chunk): no block buffers to reuse then, and blocks keep whole chunks.
   */
  private static boolean sentByReference(ZarrArray array, List<Selection> blocks) {
    List<Selection> pieces =
        ReadPlan.of(array.metadata(), blocks.get(0)).splitFirst(1, Long.MAX_VALUE);
    return !pieces.isEmpty() && array.contiguousInChunk(pieces.get(0)) != null;
  }
}
