package dev.zaro.flight;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.arrow.SlabVectors;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.error.MetadataException;
import dev.zaro.arrow.error.NodeNotFoundException;
import dev.zaro.arrow.error.SelectionException;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.read.Node;
import dev.zaro.arrow.read.NodeJson;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.plan.ReadPlan;
import dev.zaro.arrow.read.Selection;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.read.TableReader;
import dev.zaro.arrow.read.ZarrArray;
import dev.zaro.arrow.store.StoreKeys;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.ActionType;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightProducer;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The Flight contract (README, "Clients") over one open hierarchy: list_flights, get_flight_info for
 * path and JSON command descriptors (large reads as several endpoints split on chunk
 * boundaries of the first dimension), do_get, and do_action("metadata"). Streams are produced
 * as the client consumes them, each request on its own child allocator with a byte limit.
 */
public final class ZaroFlightProducer extends NoOpFlightProducer implements AutoCloseable {
  private final Zaro zaro;
  private final BufferAllocator allocator;
  private final FlightOptions options;

  /** Serving limits. */
  public record FlightOptions(long endpointBytes, long batchBytes, long requestBytes) {
    public static final FlightOptions DEFAULT = new FlightOptions(256L << 20, 8L << 20, 1L << 30);
  }

  /** Serves {@code zaro} (not closed here); buffers come from children of {@code allocator}. */
  public ZaroFlightProducer(Zaro zaro, BufferAllocator allocator, FlightOptions options) {
    this.zaro = zaro;
    this.allocator = allocator;
    this.options = options;
  }

  /** The Flight status of a zaro error, by its {@link dev.zaro.arrow.error.ErrorKind}. */
  public static FlightRuntimeException status(ZaroException e) {
    CallStatus status = switch (e.kind()) {
      case NOT_FOUND -> CallStatus.NOT_FOUND;
      case INVALID_ARGUMENT -> CallStatus.INVALID_ARGUMENT;
      default -> CallStatus.INTERNAL;
    };
    return status.withDescription(e.getMessage()).toRuntimeException();
  }

  private static RuntimeException translate(RuntimeException e) {
    if (e instanceof FlightRuntimeException) {
      return e;
    }
    if (e instanceof ZaroException z) {
      return status(z);
    }
    return CallStatus.INTERNAL.withDescription(e.toString()).withCause(e).toRuntimeException();
  }

  @Override
  public void listFlights(CallContext context, Criteria criteria, StreamListener<FlightInfo> listener) {
    try {
      for (Node node : zaro.list()) {
        if (node.isArray()) {
          listener.onNext(info(FlightDescriptor.path(node.path().isEmpty() ? "/" : node.path()),
              new ReadRequest(node.path(), "", "tensor", false)));
        }
      }
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(translate(e));
    }
  }

  @Override
  public FlightInfo getFlightInfo(CallContext context, FlightDescriptor descriptor) {
    try {
      ReadRequest request = descriptor.isCommand()
          ? ReadRequest.parse(descriptor.getCommand())
          : new ReadRequest(String.join("/", descriptor.getPath()), "", "tensor", false);
      return info(descriptor, request);
    } catch (RuntimeException e) {
      throw translate(e);
    }
  }

  private FlightInfo info(FlightDescriptor descriptor, ReadRequest request) {
    ZarrArray array = zaro.array(request.array());
    ArrayMetadata meta = array.metadata();
    Selection selection = Selection.parse(request.slice(), meta.shape());
    Schema schema = schema(request, array, selection);
    long elementBytes = meta.dataType().byteSize();
    long bytes = selection.size() * elementBytes;
    long records = request.layout().equals("table") ? selection.size() : SlabVectors.rows(selection.resultShape());
    return new FlightInfo(schema, descriptor, endpoints(request, array, selection), bytes, records);
  }

  private Schema schema(ReadRequest request, ZarrArray array, Selection selection) {
    if (request.layout().equals("table")) {
      try (BufferAllocator child = allocator.newChildAllocator("schema", 0, options.requestBytes());
           TableReader reader = zaro.readTable(request.array(), request.slice(), child,
               TableOptions.DEFAULT.withCf(!request.raw()), ReadOptions.DEFAULT)) {
        return reader.getVectorSchemaRoot().getSchema();
      } catch (java.io.IOException e) {
        throw CallStatus.INTERNAL.withDescription(e.toString()).toRuntimeException();
      }
    }
    List<String> names = new ArrayList<>();
    for (int d = 0; d < selection.dims().size(); d++) {
      if (!selection.dims().get(d).dropped()) {
        names.add(array.metadata().dimensionName(d));
      }
    }
    Field field = SlabVectors.tensorField(array.name(), array.metadata().dataType(), selection.resultShape(), names);
    return new Schema(List.of(field));
  }

  /** Endpoints along the first dimension, cut at chunk boundaries, each at most endpointBytes. */
  private List<FlightEndpoint> endpoints(ReadRequest request, ZarrArray array, Selection selection) {
    List<FlightEndpoint> out = new ArrayList<>();
    for (Selection part : ReadPlan.of(array, selection).splitFirst(options.endpointBytes(), Long.MAX_VALUE)) {
      out.add(new FlightEndpoint(new Ticket(part == selection ? request.toJson()
          : new ReadRequest(request.array(), part.canonical(), request.layout(), request.raw()).toJson())));
    }
    return out;
  }


  @Override
  public void getStream(CallContext context, Ticket ticket, ServerStreamListener listener) {
    ReadRequest request;
    try {
      request = ReadRequest.parse(ticket.getBytes());
    } catch (RuntimeException e) {
      listener.error(translate(e));
      return;
    }
    try (BufferAllocator child = allocator.newChildAllocator("do_get " + request.array(), 0, options.requestBytes())) {
      if (request.layout().equals("table")) {
        streamTable(request, child, listener);
      } else {
        streamTensor(request, child, listener);
      }
    } catch (RuntimeException e) {
      listener.error(translate(e));
    }
  }

  private void streamTensor(ReadRequest request, BufferAllocator child, ServerStreamListener listener) {
    ZarrArray array = zaro.array(request.array());
    Selection selection = Selection.parse(request.slice(), array.metadata().shape());
    Schema schema = schema(request, array, selection);
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, child)) {
      listener.start(root);
      VectorLoader loader = new VectorLoader(root);
      for (Selection block : readBlocks(array, selection)) {
        if (listener.isCancelled()) {
          return;
        }
        try (Slab slab = array.read(block, child, ReadOptions.DEFAULT)) {
          long rows = SlabVectors.rows(slab);
          long rowBytes = Math.max(1, rows == 0 ? 1 : slab.byteSize() / rows);
          long perBatch = Math.max(1, options.batchBytes() / rowBytes);
          for (long from = 0; from < rows || (rows == 0 && from == 0); from += Math.max(1, perBatch)) {
            long n = Math.min(perBatch, rows - from);
            try (FieldVector vector = SlabVectors.tensor(slab, from, n);
                 VectorSchemaRoot batch = new VectorSchemaRoot(List.of(vector.getField()), List.of(vector),
                     vector.getValueCount());
                 ArrowRecordBatch record = new VectorUnloader(batch).getRecordBatch()) {
              loader.load(record);
            }
            if (!awaitReady(listener)) {
              return;
            }
            listener.putNext();
            if (rows == 0) {
              break;
            }
          }
        }
      }
      listener.completed();
    }
  }

  /**
   * Splits a selection into reads along the first dimension that follow chunk boundaries (so
   * no chunk is decoded twice), each holding at most a quarter of the request memory limit.
   */
  private List<Selection> readBlocks(ZarrArray array, Selection selection) {
    Selection.Dim first = selection.dims().isEmpty() ? null : selection.dims().get(0);
    long rowBytes = first == null || first.count() == 0 ? 1
        : Math.max(1, selection.size() / first.count() * array.metadata().dataType().byteSize());
    long maxRows = Math.max(1, options.requestBytes() / 4 / rowBytes);
    return ReadPlan.of(array, selection).splitFirst(options.batchBytes() * 4, maxRows);
  }


  private void streamTable(ReadRequest request, BufferAllocator child, ServerStreamListener listener) {
    try (TableReader reader = zaro.readTable(request.array(), request.slice(), child,
        TableOptions.DEFAULT.withCf(!request.raw()).withBatchRows(Math.max(1024, options.batchBytes() / 16)),
        ReadOptions.DEFAULT)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      listener.start(root);
      while (!listener.isCancelled() && reader.loadNextBatch()) {
        if (!awaitReady(listener)) {
          return;
        }
        listener.putNext();
      }
      listener.completed();
    } catch (java.io.IOException e) {
      throw CallStatus.INTERNAL.withDescription(e.toString()).toRuntimeException();
    }
  }

  /** Waits until the client can take another batch; false if it went away. */
  public static boolean awaitReady(ServerStreamListener listener) {
    while (!listener.isReady()) {
      if (listener.isCancelled()) {
        return false;
      }
      try {
        TimeUnit.MILLISECONDS.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return !listener.isCancelled();
  }

  @Override
  public void doAction(CallContext context, Action action, StreamListener<Result> listener) {
    try {
      if (action.getType().equals("stats")) {
        String stats = "{\"allocated_bytes\":" + allocator.getAllocatedMemory()
            + ",\"peak_allocated_bytes\":" + allocator.getPeakMemoryAllocation() + "}";
        listener.onNext(new Result(stats.getBytes(StandardCharsets.UTF_8)));
        listener.onCompleted();
        return;
      }
      if (!action.getType().equals("metadata")) {
        throw CallStatus.INVALID_ARGUMENT.withDescription("unknown action '" + action.getType()
            + "' (zaro serves: metadata, stats)").toRuntimeException();
      }
      String path = StoreKeys.stripSlashes(new String(action.getBody(), StandardCharsets.UTF_8));
      Node node = new Node(path, zaro.node(path));
      var children = node.isArray() ? null : zaro.hierarchy().children(path);
      listener.onNext(new Result(NodeJson.of(node, children).toString().getBytes(StandardCharsets.UTF_8)));
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(translate(e));
    }
  }

  @Override
  public void listActions(CallContext context, StreamListener<ActionType> listener) {
    listener.onNext(new ActionType("metadata", "A node's normalized metadata as JSON; body: the node path"));
    listener.onNext(new ActionType("stats", "Server memory: allocated and peak allocated bytes"));
    listener.onCompleted();
  }

  @Override
  public void close() {
    // the hierarchy and the allocator belong to the caller
  }
}
