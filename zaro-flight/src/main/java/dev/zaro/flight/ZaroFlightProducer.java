package dev.zaro.flight;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.plan.ReadPlan;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.Node;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.ReadStats;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.read.ZarrArray;
import dev.zaro.arrow.read.internal.NodeJson;
import dev.zaro.arrow.store.StoreKeys;
import dev.zaro.arrow.vector.SlabVectors;
import dev.zaro.arrow.vector.TableReader;
import io.grpc.Status;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.ActionType;
import org.apache.arrow.flight.BackpressureStrategy;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The Flight contract (README, "Clients") over one open hierarchy: list_flights, get_flight_info
 * for path and JSON command descriptors (large reads as several endpoints split on chunk boundaries
 * of the first dimension), do_get, and do_action("metadata", "stats").
 *
 * <p>Each do_get runs on a thread of its own (so gRPC can deliver the call's ready and cancel
 * callbacks while it streams), holds a {@link MemoryBudget} lease for its memory (waiting for one
 * when the budget or the stream slots are taken), decodes the next block while the current one is
 * sent, waits for the client with Flight's callback backpressure, and hands batches to gRPC without
 * copying (the buffers stay in the lease until gRPC has written them).
 */
public final class ZaroFlightProducer extends NoOpFlightProducer implements AutoCloseable {
  private final Zaro zaro;
  private final BufferAllocator allocator;
  private final FlightOptions options;
  private final MemoryBudget budget;
  private final ExecutorService streams = Executors.newCachedThreadPool(daemons("zaro-stream-"));
  private final ExecutorService prefetch = Executors.newCachedThreadPool(daemons("zaro-prefetch-"));
  private final Set<Sink> running = ConcurrentHashMap.newKeySet();
  private final LongAdder wireBytes = new LongAdder();

  /** Chunks decoded (and found missing) by every read since start, for the stats action. */
  private final ReadStats reads = new ReadStats();

  private final ReadOptions readOptions = ReadOptions.DEFAULT.withStats(reads);
  private volatile boolean stopping;

  /** Serving limits. */
  public record FlightOptions(long endpointBytes, long batchBytes, long requestBytes) {
    public static final FlightOptions DEFAULT = new FlightOptions(256L << 20, 8L << 20, 1L << 30);
  }

  /**
   * Serves {@code zaro} (not closed here); buffers come from a budget of {@code
   * options.maxMemory()} bytes under {@code allocator} (not closed here either).
   */
  public ZaroFlightProducer(Zaro zaro, BufferAllocator allocator, ServerOptions options) {
    this.zaro = zaro;
    this.allocator = allocator;
    this.options = options.limits();
    this.budget =
        new MemoryBudget(
            allocator, options.maxMemory(), options.maxStreams(), options.admissionWait());
  }

  private static ThreadFactory daemons(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * The Flight status of a zaro error, by its {@link dev.zaro.arrow.error.ErrorKind}: NOT_FOUND,
   * INVALID_ARGUMENT, UNIMPLEMENTED (unsupported), UNAVAILABLE (a store failure), else INTERNAL.
   * Corrupt data is INTERNAL here, Arrow Flight's vocabulary having no DATA_LOSS; {@link #onWire}
   * sends it as gRPC's DATA_LOSS. The zaro error is the status's cause.
   */
  public static FlightRuntimeException status(ZaroException e) {
    CallStatus status =
        switch (e.kind()) {
          case NOT_FOUND -> CallStatus.NOT_FOUND;
          case INVALID_ARGUMENT -> CallStatus.INVALID_ARGUMENT;
          case UNSUPPORTED -> CallStatus.UNIMPLEMENTED;
          case IO -> CallStatus.UNAVAILABLE;
          case CORRUPT, MISSING_CHUNK, INTERNAL -> CallStatus.INTERNAL;
        };
    return status.withDescription(e.getMessage()).withCause(e).toRuntimeException();
  }

  /**
   * What a gRPC call sends for {@code status}: the status itself, except corrupt data (a zaro error
   * of kind CORRUPT as its cause), which goes out as gRPC's DATA_LOSS with the same message, as
   * DESIGN.md states. Flight's clients read DATA_LOSS as INTERNAL (Java) or an internal/IO error
   * (C++, pyarrow); the message names the chunk key either way. Arrow's transport passes a gRPC
   * status exception through unchanged.
   */
  public static RuntimeException onWire(FlightRuntimeException status) {
    if (status.status().cause() instanceof ZaroException z && z.kind() == ErrorKind.CORRUPT) {
      return Status.DATA_LOSS
          .withDescription(status.status().description())
          .withCause(z)
          .asRuntimeException();
    }
    return status;
  }

  /**
   * The Flight status of any failure of a call (zaro errors by kind, memory, the rest INTERNAL).
   */
  static FlightRuntimeException translate(RuntimeException e) {
    if (e instanceof FlightRuntimeException f) {
      return f;
    }
    if (e instanceof ZaroException z) {
      return status(z);
    }
    if (e instanceof OutOfMemoryException) {
      return CallStatus.RESOURCE_EXHAUSTED
          .withDescription(
              "the request ran out of memory: "
                  + e.getMessage()
                  + " (its limit is --max-request-bytes, all requests together share --max-memory)")
          .toRuntimeException();
    }
    return CallStatus.INTERNAL.withDescription(e.toString()).withCause(e).toRuntimeException();
  }

  @Override
  public void listFlights(
      CallContext context, Criteria criteria, StreamListener<FlightInfo> listener) {
    try {
      for (Node node : zaro.list()) {
        if (node.isArray()) {
          listener.onNext(
              info(
                  FlightDescriptor.path(node.path().isEmpty() ? "/" : node.path()),
                  new ReadRequest(node.path(), "", "tensor", false)));
        }
      }
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(onWire(translate(e)));
    }
  }

  @Override
  public FlightInfo getFlightInfo(CallContext context, FlightDescriptor descriptor) {
    try {
      ReadRequest request =
          descriptor.isCommand()
              ? ReadRequest.parse(descriptor.getCommand())
              : new ReadRequest(String.join("/", descriptor.getPath()), "", "tensor", false);
      return info(descriptor, request);
    } catch (RuntimeException e) {
      throw onWire(translate(e));
    }
  }

  private FlightInfo info(FlightDescriptor descriptor, ReadRequest request) {
    ZarrArray array = zaro.array(request.array());
    ArrayMetadata meta = array.metadata();
    Selection selection = Selection.parse(request.slice(), meta.shape());
    Schema schema = schema(request, array, selection);
    long elementBytes = meta.dataType().byteSize();
    long bytes = selection.size() * elementBytes;
    long records =
        request.layout().equals("table")
            ? selection.size()
            : SlabVectors.rows(selection.resultShape());
    return new FlightInfo(schema, descriptor, endpoints(request, array, selection), bytes, records);
  }

  private Schema schema(ReadRequest request, ZarrArray array, Selection selection) {
    if (request.layout().equals("table")) {
      try (BufferAllocator child =
              budget.allocator().newChildAllocator("schema", 0, options.requestBytes());
          TableReader reader =
              zaro.readTable(
                  request.array(),
                  request.slice(),
                  child,
                  TableOptions.DEFAULT.withCf(!request.raw()).withColumns(request.columns()),
                  ReadOptions.DEFAULT)) {
        return reader.getVectorSchemaRoot().getSchema();
      } catch (IOException e) {
        throw CallStatus.INTERNAL.withDescription(e.toString()).toRuntimeException();
      }
    }
    List<String> names = new ArrayList<>();
    for (int d = 0; d < selection.dims().size(); d++) {
      if (!selection.dims().get(d).dropped()) {
        names.add(array.metadata().dimensionName(d));
      }
    }
    Field field =
        SlabVectors.withAttributes(
            SlabVectors.tensorField(
                array.name(), array.metadata().dataType(), selection.resultShape(), names),
            array.metadata().attributes());
    return new Schema(List.of(field));
  }

  /** Endpoints along the first dimension, cut at chunk boundaries, each at most endpointBytes. */
  private List<FlightEndpoint> endpoints(
      ReadRequest request, ZarrArray array, Selection selection) {
    List<FlightEndpoint> out = new ArrayList<>();
    for (Selection part :
        ReadPlan.of(array.metadata(), selection)
            .splitFirst(options.endpointBytes(), Long.MAX_VALUE)) {
      out.add(
          new FlightEndpoint(
              new Ticket(
                  part.equals(selection)
                      ? request.toJson()
                      : request.withSlice(part.canonical()).toJson())));
    }
    return out;
  }

  @Override
  public void getStream(CallContext context, Ticket ticket, ServerStreamListener listener) {
    ReadRequest request;
    try {
      request = ReadRequest.parse(ticket.getBytes());
    } catch (RuntimeException e) {
      listener.error(onWire(translate(e)));
      return;
    }
    listener.setUseZeroCopy(true);
    submit(request, new FlightSink(listener, "do_get " + describe(request)));
  }

  /**
   * Runs a read on a stream thread of its own, into {@code sink} (a do_get's listener or an HTTP
   * response); a server that is shutting down fails it UNAVAILABLE.
   */
  void submit(ReadRequest request, Sink sink) {
    try {
      streams.execute(() -> serve(request, sink));
    } catch (RejectedExecutionException e) {
      sink.error(
          CallStatus.UNAVAILABLE
              .withDescription("the server is shutting down")
              .toRuntimeException());
    }
  }

  /**
   * Where a read's batches go: a Flight do_get or an HTTP response. The producer loads each batch
   * into the root it gave {@link #start}, waits for {@link #awaitReady}, then calls {@link
   * #putNext}; memory stays in the read's lease until the sink lets go of it.
   */
  interface Sink {
    /** Sends the schema; from now on batches are unloaded from {@code root}. */
    void start(VectorSchemaRoot root, WireCompression compression);

    /** Whether {@link #start} was called (something may be on its way to the client). */
    boolean started();

    /** Sends what {@code root} holds now. */
    void putNext();

    /** Ends the stream successfully. */
    void completed();

    /** Ends the stream with a Flight status (the HTTP sink maps it to a status code). */
    void error(FlightRuntimeException status);

    /** Whether the client went away. */
    boolean cancelled();

    /** What the stream sends, for the log line when its client leaves early. */
    String what();

    /** Waits until the client can take a batch; false when it left or {@link #stop} was called. */
    boolean awaitReady();

    /** Whether shutdown asked the stream to stop. */
    boolean stopped();

    /** Asks the stream to stop before its next batch, waking a wait for the client. */
    void stop();

    /** Called when the client leaves, so a request waiting for memory stops waiting. */
    default boolean gone() {
      return stopped() || cancelled();
    }
  }

  /** The request as log lines name it: {@code '/t2m' [0:24]}. */
  static String describe(ReadRequest request) {
    return "'/" + StoreKeys.stripSlashes(request.array()) + "' [" + request.slice() + "]";
  }

  /** One do_get: its listener, its backpressure wait, and whether shutdown asked it to stop. */
  private final class FlightSink extends BackpressureStrategy.CallbackBackpressureStrategy
      implements Sink {
    final ServerStreamListener listener;
    private final String what;
    volatile boolean stopped;
    private volatile boolean started;

    FlightSink(ServerStreamListener listener, String what) {
      this.listener = listener;
      this.what = what;
      register(listener);
    }

    @Override
    public void start(VectorSchemaRoot root, WireCompression compression) {
      started = true;
      listener.start(root);
      compression.install(listener, root, wireBytes);
    }

    @Override
    public boolean started() {
      return started;
    }

    @Override
    public void putNext() {
      listener.putNext();
    }

    @Override
    public void completed() {
      listener.completed();
    }

    @Override
    public void error(FlightRuntimeException status) {
      listener.error(onWire(status));
    }

    @Override
    public boolean cancelled() {
      return listener.isCancelled();
    }

    @Override
    public String what() {
      return what;
    }

    @Override
    public boolean stopped() {
      return stopped;
    }

    /** Waits (woken by gRPC's ready and cancel callbacks) until the client can take a batch. */
    @Override
    public boolean awaitReady() {
      return !stopped && waitForListener(0) == WaitResult.READY && !stopped;
    }

    @Override
    protected boolean shouldContinueWaiting(ServerStreamListener l, long remaining) {
      return !stopped;
    }

    @Override
    protected void cancelCallback() {
      budget.wake();
    }

    @Override
    public void stop() {
      stopped = true;
      interruptWait();
      budget.wake();
    }
  }

  private void serve(ReadRequest request, Sink stream) {
    running.add(stream);
    try {
      if (stopping) {
        throw CallStatus.UNAVAILABLE
            .withDescription("the server is shutting down")
            .toRuntimeException();
      }
      ZarrArray array = zaro.array(request.array());
      Selection selection = Selection.parse(request.slice(), array.metadata().shape());
      boolean table = request.layout().equals("table");
      List<Selection> blocks = table ? List.of() : readBlocks(array, selection);
      RuntimeException beforeStart = null;
      try (MemoryBudget.Lease lease =
          budget.acquire(
              "do_get " + request.array(),
              table ? tableReservation(selection) : tensorReservation(array, blocks),
              options.requestBytes(),
              stream::gone)) {
        try {
          if (table) {
            streamTable(request, lease.allocator(), stream);
          } else {
            streamTensor(request, array, selection, blocks, lease.allocator(), stream);
          }
        } catch (RuntimeException e) {
          if (stream.started()) {
            fail(stream, e); // before the lease waits for gRPC to let go of what it still holds
          } else {
            beforeStart = e; // nothing sent, nothing held: answered once the memory is back
          }
        }
      }
      if (beforeStart != null) {
        fail(stream, beforeStart);
      }
    } catch (RuntimeException e) {
      fail(stream, e);
    } finally {
      synchronized (running) {
        running.remove(stream);
        running.notifyAll();
      }
    }
  }

  private static void fail(Sink stream, RuntimeException e) {
    if (!stream.cancelled()) {
      stream.error(translate(e));
    }
  }

  /**
   * The memory a tensor stream expects to hold at once: the block being sent, the next one being
   * decoded, one more pinned by gRPC until written, and two chunks' worth of input.
   */
  private static long tensorReservation(ZarrArray array, List<Selection> blocks) {
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

  /** A table batch (at most 8 bytes a column, index columns plus the value) twice over. */
  private long tableReservation(Selection selection) {
    return 2 * tableBatchRows() * 8 * (selection.dims().size() + 2);
  }

  private long tableBatchRows() {
    return Math.max(1024, options.batchBytes() / 16);
  }

  private void streamTensor(
      ReadRequest request,
      ZarrArray array,
      Selection selection,
      List<Selection> blocks,
      BufferAllocator child,
      Sink stream) {
    Schema schema = schema(request, array, selection);
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
      next = readAsync(array, blocks.get(0), child, buffers);
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
  private boolean send(Slab slab, VectorLoader loader, Sink stream) {
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
      if (!ready(stream)) {
        return false;
      }
      stream.putNext();
      if (rows == 0) {
        break;
      }
    }
    return true;
  }

  /** Waits for the client; false when it left or shutdown stopped the stream (then says so). */
  private static boolean ready(Sink stream) {
    if (stream.awaitReady()) {
      return true;
    }
    if (stream.cancelled()) {
      TransportLogs.clientLeft(stream.what());
    }
    if (stream.stopped() && !stream.cancelled()) {
      stream.error(
          CallStatus.UNAVAILABLE
              .withDescription(
                  "the server is shutting down and its grace period for running streams is over")
              .toRuntimeException());
    }
    return false;
  }

  private CompletableFuture<List<Slab>> readAsync(
      ZarrArray array, Selection block, BufferAllocator child, BlockBuffers buffers) {
    return CompletableFuture.supplyAsync(
        () -> {
          List<Slab> cached = readCached(array, block, child);
          if (cached != null) {
            return cached;
          }
          Slab assembled =
              zaro.cache() == null ? null : array.readAssembled(block, child, readOptions);
          return List.of(assembled != null ? assembled : read(array, block, child, buffers));
        },
        prefetch);
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
  private List<Selection> readBlocks(ZarrArray array, Selection selection) {
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

  private void streamTable(ReadRequest request, BufferAllocator child, Sink stream) {
    try (TableReader reader =
        zaro.readTable(
            request.array(),
            request.slice(),
            child,
            TableOptions.DEFAULT
                .withCf(!request.raw())
                .withColumns(request.columns())
                .withBatchRows(tableBatchRows()),
            readOptions)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      stream.start(root, request.compression());
      while (reader.loadNextBatch()) {
        if (!ready(stream)) {
          return;
        }
        stream.putNext();
      }
      stream.completed();
    } catch (IOException e) {
      throw CallStatus.INTERNAL.withDescription(e.toString()).toRuntimeException();
    }
  }

  /** From now on, do_get calls (running ones excepted) fail UNAVAILABLE, waiting ones too. */
  public void stopAdmitting() {
    stopping = true;
    budget.stopAdmitting();
  }

  /** Waits until no do_get is running; false if some still are after {@code timeout}. */
  public boolean awaitStreams(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (running) {
      while (!running.isEmpty()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        running.wait(Math.max(1, left / 1_000_000));
      }
    }
    return true;
  }

  /** Ends every running do_get: each stops before its next batch and fails UNAVAILABLE. */
  public void cancelStreams() {
    for (Sink s : running) {
      s.stop();
    }
  }

  @Override
  public void doAction(CallContext context, Action action, StreamListener<Result> listener) {
    try {
      if (action.getType().equals("stats")) {
        listener.onNext(new Result(statsJson().getBytes(StandardCharsets.UTF_8)));
        listener.onCompleted();
        return;
      }
      if (action.getType().equals("describe")) {
        describe(GroupDescription.Request.parse(action.getBody()), listener);
        return;
      }
      if (!action.getType().equals("metadata")) {
        throw CallStatus.INVALID_ARGUMENT
            .withDescription(
                "unknown action '"
                    + action.getType()
                    + "' (zaro serves: metadata, describe, stats)")
            .toRuntimeException();
      }
      listener.onNext(
          new Result(
              metadataJson(new String(action.getBody(), StandardCharsets.UTF_8))
                  .getBytes(StandardCharsets.UTF_8)));
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(onWire(translate(e)));
    }
  }

  /**
   * The describe action: a group's JSON, then each array's tensor-layout IPC stream (schema, and
   * the values of small arrays), read inside the memory budget.
   */
  private void describe(GroupDescription.Request request, StreamListener<Result> listener) {
    GroupDescription description = new GroupDescription(zaro, request);
    List<byte[]> streams;
    try (BufferAllocator child =
        budget.allocator().newChildAllocator("describe", 0, options.requestBytes())) {
      streams = description.streams(child, readOptions);
    }
    listener.onNext(new Result(description.json().toString().getBytes(StandardCharsets.UTF_8)));
    for (byte[] stream : streams) {
      listener.onNext(new Result(stream));
    }
    listener.onCompleted();
  }

  /** GET /describe/{path}: a group's JSON with the values of its small arrays inline. */
  String describeJson(GroupDescription.Request request) {
    try (BufferAllocator child =
        budget.allocator().newChildAllocator("describe", 0, options.requestBytes())) {
      return new GroupDescription(zaro, request).jsonWithValues(child, readOptions).toString();
    }
  }

  /** The stats action's JSON: memory, the budget, streams, and body bytes sent. */
  String statsJson() {
    return "{\"allocated_bytes\":"
        + allocator.getAllocatedMemory()
        + ",\"peak_allocated_bytes\":"
        + allocator.getPeakMemoryAllocation()
        + ",\"stream_body_bytes\":"
        + wireBytes.sum()
        + (zaro.cache() == null
            ? ""
            : ",\"cache_allocated_bytes\":"
                + zaro.cache().allocatedBytes()
                + ","
                + zaro.cache().stats().jsonFields())
        + ","
        + budget.statsJson()
        + ",\"chunks_decoded\":"
        + reads.chunksDecoded()
        + ",\"chunks_missing\":"
        + reads.chunksMissing()
        + "}";
  }

  /** The metadata action's JSON: the normalized metadata of the node at {@code path}. */
  String metadataJson(String path) {
    String p = StoreKeys.stripSlashes(path);
    Node node = new Node(p, zaro.node(p));
    var children = node.isArray() ? null : zaro.hierarchy().children(p);
    return NodeJson.of(node, children).toString();
  }

  /** Every node of the hierarchy as {@code {"nodes": [metadata JSON of each]}}. */
  String hierarchyJson() {
    ArrayNode nodes = Json.nodeFactory().arrayNode();
    for (Node node : zaro.list()) {
      nodes.add(NodeJson.of(node, node.isArray() ? null : zaro.hierarchy().children(node.path())));
    }
    ObjectNode out = Json.createObjectNode();
    out.set("nodes", nodes);
    return out.toString();
  }

  /** Wakes requests waiting for memory, so one whose client left stops waiting. */
  void wakeBudget() {
    budget.wake();
  }

  /** The counter of Arrow IPC body bytes sent by every stream (after compression). */
  LongAdder wireBytes() {
    return wireBytes;
  }

  @Override
  public void listActions(CallContext context, StreamListener<ActionType> listener) {
    listener.onNext(
        new ActionType("metadata", "A node's normalized metadata as JSON; body: the node path"));
    listener.onNext(
        new ActionType(
            "describe",
            "A group in one answer: its JSON (groups, arrays' metadata), then each array's"
                + " tensor-layout Arrow IPC stream (values for 1-D arrays up to inline_bytes);"
                + " body: the group path or {\"group\", \"inline_bytes\", \"recursive\"}"));
    listener.onNext(
        new ActionType(
            "stats",
            "Server memory: allocated and peak bytes;"
                + " the budget, its use, and streams active and queued;"
                + " chunks decoded and found missing since start;"
                + " stream_body_bytes: Arrow IPC body bytes sent (after compression)"));
    listener.onCompleted();
  }

  /**
   * Stops the stream threads (after {@link #cancelStreams()} they end quickly) and closes the
   * budget; the hierarchy and the allocator belong to the caller.
   */
  @Override
  public void close() {
    stopAdmitting();
    cancelStreams();
    streams.shutdown();
    prefetch.shutdown();
    try {
      streams.awaitTermination(30, TimeUnit.SECONDS);
      prefetch.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    budget.close();
  }
}
