package dev.zaro.flight;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.plan.ReadPlan;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.Node;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.ReadStats;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.read.ZarrArray;
import dev.zaro.arrow.store.StoreKeys;
import dev.zaro.arrow.vector.SlabVectors;
import dev.zaro.arrow.vector.TableReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.ActionType;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The Flight contract (docs/serving.md, "Arrow Flight") over one open hierarchy: list_flights,
 * get_flight_info for path and JSON command descriptors (large reads as several endpoints split on
 * chunk boundaries of the first dimension), do_get, and do_action("metadata", "stats").
 *
 * <p>Each do_get runs on a thread of its own (so gRPC can deliver the call's ready and cancel
 * callbacks while it streams), holds a {@link MemoryBudget} lease for its memory (waiting for one
 * when the budget or the stream slots are taken), decodes the next block while the current one is
 * sent, waits for the client with Flight's callback backpressure, and hands batches to gRPC without
 * copying (the buffers stay in the lease until gRPC has written them).
 */
public final class ZaroFlightProducer extends NoOpFlightProducer implements AutoCloseable {
  private final Zaro zaro;
  private final FlightOptions options;
  private final MemoryBudget budget;
  private final ExecutorService streams = Executors.newCachedThreadPool(daemons("zaro-stream-"));
  private final ExecutorService prefetch = Executors.newCachedThreadPool(daemons("zaro-prefetch-"));
  private final Set<ReadSink> running = ConcurrentHashMap.newKeySet();
  private final LongAdder wireBytes = new LongAdder();

  /** Chunks decoded (and found missing) by every read since start, for the stats action. */
  private final ReadStats reads = new ReadStats();

  private final ReadOptions readOptions = ReadOptions.DEFAULT.withStats(reads);
  private final SharedMemoryDelivery sharedMemory;
  private final TensorStream tensors;
  private final ServerDocuments documents;
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
    this.options = options.limits();
    this.budget =
        new MemoryBudget(
            allocator, options.maxMemory(), options.maxStreams(), options.admissionWait());
    this.tensors = new TensorStream(zaro, this.options, readOptions, prefetch);
    this.sharedMemory =
        new SharedMemoryDelivery(zaro, budget, this.options, readOptions, this::schema, tensors);
    this.documents =
        new ServerDocuments(
            zaro, allocator, budget, this.options, readOptions, reads, wireBytes, sharedMemory);
  }

  private static ThreadFactory daemons(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
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
      listener.onError(FlightErrors.onWire(FlightErrors.translate(e)));
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
      throw FlightErrors.onWire(FlightErrors.translate(e));
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
      listener.error(FlightErrors.onWire(FlightErrors.translate(e)));
      return;
    }
    listener.setUseZeroCopy(true);
    submit(request, new FlightSink(listener, "do_get " + describe(request), wireBytes, budget));
  }

  /**
   * A tensor read handed over through a shared-memory file to a client on this machine ({@link
   * SharedMemoryDelivery}); the descriptor is a do_get ticket's JSON command.
   */
  @Override
  public void doExchange(CallContext context, FlightStream reader, ServerStreamListener writer) {
    sharedMemory.exchange(reader, writer);
  }

  /**
   * Runs a read on a stream thread of its own, into {@code client} (a do_get's listener or an HTTP
   * response), within the request's timeout if it has one; a server that is shutting down fails it
   * UNAVAILABLE.
   */
  void submit(ReadRequest request, ReadSink client) {
    ReadSink sink =
        ReadDeadline.of(client, request, zaro.store().describe()); // its "timeout", if any
    try {
      streams.execute(() -> serve(request, sink));
    } catch (RejectedExecutionException e) {
      sink.error(
          CallStatus.UNAVAILABLE
              .withDescription("the server is shutting down")
              .toRuntimeException());
    }
  }

  /** The request as log lines name it: {@code '/t2m' [0:24]}. */
  static String describe(ReadRequest request) {
    return "'/" + StoreKeys.stripSlashes(request.array()) + "' [" + request.slice() + "]";
  }

  private void serve(ReadRequest request, ReadSink stream) {
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
      List<Selection> blocks = table ? List.of() : tensors.blocks(array, selection);
      RuntimeException beforeStart = null;
      try (MemoryBudget.Lease lease =
          budget.acquire(
              "do_get " + request.array(),
              table ? tableReservation(selection) : TensorStream.reservation(array, blocks),
              options.requestBytes(),
              stream::gone)) {
        try {
          if (table) {
            streamTable(request, lease.allocator(), stream);
          } else {
            tensors.stream(
                request,
                schema(request, array, selection),
                array,
                blocks,
                lease.allocator(),
                stream);
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

  private static void fail(ReadSink stream, RuntimeException e) {
    if (!stream.cancelled()) {
      stream.error(FlightErrors.translate(e));
    }
  }

  /** A table batch (at most 8 bytes a column, index columns plus the value) twice over. */
  private long tableReservation(Selection selection) {
    return 2 * tableBatchRows() * 8 * (selection.dims().size() + 2);
  }

  private long tableBatchRows() {
    return Math.max(1024, options.batchBytes() / 16);
  }

  private void streamTable(ReadRequest request, BufferAllocator child, ReadSink stream) {
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
        if (!stream.readyForNext()) {
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
    for (ReadSink s : running) {
      s.stop();
    }
  }

  @Override
  public void doAction(CallContext context, Action action, StreamListener<Result> listener) {
    try {
      if (action.getType().equals("stats")) {
        listener.onNext(new Result(documents.statsJson().getBytes(StandardCharsets.UTF_8)));
        listener.onCompleted();
        return;
      }
      if (action.getType().equals("describe")) {
        documents.describe(GroupDescription.Request.parse(action.getBody()), listener);
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
              documents
                  .metadataJson(new String(action.getBody(), StandardCharsets.UTF_8))
                  .getBytes(StandardCharsets.UTF_8)));
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(FlightErrors.onWire(FlightErrors.translate(e)));
    }
  }

  /** The JSON documents the actions and the HTTP server answer with. */
  ServerDocuments documents() {
    return documents;
  }

  /** The hierarchy served (the HTTP explorer's reads); owned by whoever made this producer. */
  Zaro zaro() {
    return zaro;
  }

  /** The memory budget every request is admitted by. */
  MemoryBudget budget() {
    return budget;
  }

  /** The read options of every read (they count chunks for the stats action). */
  ReadOptions readOptions() {
    return readOptions;
  }

  /** The serving limits. */
  FlightOptions limits() {
    return options;
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
                + " stream_body_bytes: Arrow IPC body bytes sent (after compression);"
                + " shared_memory_bytes: bytes handed over in shared-memory files"));
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
