package dev.zaro.flight;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.read.ZarrArray;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.LongAdder;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A tensor read handed to a client on the same machine through a shared-memory file, so its values
 * cross no socket: the {@code do_exchange} of a read command (docs/ARCHITECTURE.md, "Same-machine
 * reads").
 *
 * <p>The exchange, after the client's descriptor (the same JSON command as a do_get ticket):
 *
 * <ol>
 *   <li>the server sends the read's schema, as do_get would, then one metadata message: {@code
 *       {"shared_memory": PATH, "bytes": N, "element_bytes": E}} naming an empty file it has just
 *       created in {@code /dev/shm} ({@code zaro-<pid>-<random>.bin}), readable by the server's
 *       user only; or {@code {"shared_memory": null, "reason": ...}} when it will not (the table
 *       layout, a variable-length type, a read over the request limit, no shared-memory directory),
 *       and the exchange ends: the client reads with do_get instead;
 *   <li>the client opens the file and answers {@code {"opened": true}}, or {@code false} when it
 *       cannot (another user, another machine behind a tunnel to loopback); a file not answered for
 *       within {@link #ANSWER_WAIT} is unlinked anyway;
 *   <li>the server unlinks the file at once, whatever the answer, so nothing is left behind; if the
 *       client opened it, the server writes the selection into it in C order (the layout of a
 *       {@link Slab}: little-endian, E bytes an element) and completes. The client maps its open
 *       descriptor, and the memory is the client's from then on.
 * </ol>
 *
 * Errors are the statuses do_get gives, sent on the exchange. The reads hold a {@link MemoryBudget}
 * lease for their decoding buffers, as a do_get does; the file's pages are handed over, so a file
 * is offered only for reads up to the request limit and when the directory has room for it twice
 * over.
 */
final class SharedMemoryDelivery {
  private static final Path DIRECTORY = Path.of("/dev/shm");

  /** How long an offered file waits for the client to open it before it is unlinked anyway. */
  static final Duration ANSWER_WAIT = Duration.ofSeconds(30);

  /** Unlinks files whose client has not answered in time (the exchange itself waits on). */
  private static final ScheduledExecutorService UNLINKER =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "zaro-shm-unlink");
            t.setDaemon(true);
            return t;
          });

  /** What the producer lends: the schema of a read, as do_get sends it. */
  interface Schemas {
    Schema schema(ReadRequest request, ZarrArray array, Selection selection);
  }

  private final Zaro zaro;
  private final MemoryBudget budget;
  private final ZaroFlightProducer.FlightOptions options;
  private final ReadOptions readOptions;
  private final Schemas schemas;
  private final TensorStream tensors;
  private final Path directory;
  private final LongAdder written = new LongAdder();

  SharedMemoryDelivery(
      Zaro zaro,
      MemoryBudget budget,
      ZaroFlightProducer.FlightOptions options,
      ReadOptions readOptions,
      Schemas schemas,
      TensorStream tensors) {
    this(zaro, budget, options, readOptions, schemas, tensors, DIRECTORY);
  }

  SharedMemoryDelivery(
      Zaro zaro,
      MemoryBudget budget,
      ZaroFlightProducer.FlightOptions options,
      ReadOptions readOptions,
      Schemas schemas,
      TensorStream tensors,
      Path directory) {
    this.zaro = zaro;
    this.budget = budget;
    this.options = options;
    this.readOptions = readOptions;
    this.schemas = schemas;
    this.tensors = tensors;
    this.directory = directory;
  }

  /** Bytes written into shared-memory files since start, for the stats action. */
  long bytesWritten() {
    return written.sum();
  }

  /** Runs one exchange to its end (the listener completed or failed). */
  void exchange(FlightStream reader, ServerStreamListener listener) {
    Path file = null;
    try {
      ReadRequest request = ReadRequest.parse(reader.getDescriptor().getCommand());
      ZarrArray array = zaro.array(request.array());
      ArrayMetadata meta = array.metadata();
      Selection selection = Selection.parse(request.slice(), meta.shape());
      Schema schema = schemas.schema(request, array, selection);
      try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, budget.allocator())) {
        listener.start(root);
        long elementBytes = meta.dataType().byteSize();
        long bytes = Math.multiplyExact(selection.size(), elementBytes);
        String refusal = refusal(request, meta, bytes);
        if (refusal == null) {
          try {
            file = create();
          } catch (IOException | UnsupportedOperationException e) {
            refusal = "no shared-memory file could be made in " + directory + ": " + e;
          }
        }
        if (refusal != null) {
          put(listener, Json.createObjectNode().putNull("shared_memory").put("reason", refusal));
          listener.completed();
          return;
        }
        ObjectNode offer = Json.createObjectNode();
        offer.put("shared_memory", file.toString()).put("bytes", bytes);
        offer.put("element_bytes", elementBytes);
        put(listener, offer);
        Path offered = file;
        ScheduledFuture<?> unlink =
            UNLINKER.schedule(() -> deleteQuietly(offered), ANSWER_WAIT.toMillis(), MILLISECONDS);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
          boolean opened = opened(reader);
          unlink.cancel(false);
          Files.deleteIfExists(file);
          file = null;
          if (opened) {
            fill(channel, request, array, selection, bytes, listener);
          }
        }
        if (!listener.isCancelled()) {
          listener.completed();
        }
      }
    } catch (IOException e) {
      listener.error(
          FlightErrors.onWire(
              CallStatus.UNAVAILABLE
                  .withDescription("writing the shared-memory file failed: " + e)
                  .toRuntimeException()));
    } catch (RuntimeException e) {
      listener.error(FlightErrors.onWire(FlightErrors.translate(e)));
    } finally {
      if (file != null) {
        deleteQuietly(file);
      }
    }
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // a file of the server's own in /dev/shm, empty until the client answered; nothing to do
    }
  }

  /** Why this read goes by do_get, or null when a file may carry it. */
  private String refusal(ReadRequest request, ArrayMetadata meta, long bytes) {
    if (!request.layout().equals("tensor")) {
      return "only the tensor layout goes through shared memory";
    }
    if (meta.dataType().isVariableLength()) {
      return "variable-length values go by do_get";
    }
    if (bytes > options.requestBytes()) {
      return "the read's " + bytes + " bytes exceed the request limit of " + options.requestBytes();
    }
    try {
      if (!Files.isDirectory(directory)
          || Files.getFileStore(directory).getUsableSpace() / 2 < bytes) {
        return directory + " is missing or has no room for " + bytes + " bytes";
      }
    } catch (IOException e) {
      return directory + " cannot be used: " + e;
    }
    return null;
  }

  private Path create() throws IOException {
    return Files.createTempFile(
        directory,
        "zaro-" + ProcessHandle.current().pid() + "-",
        ".bin",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
  }

  private void put(ServerStreamListener listener, ObjectNode json) {
    BufferAllocator allocator = budget.allocator();
    byte[] bytes = json.toString().getBytes(StandardCharsets.UTF_8);
    try (ArrowBuf buf = allocator.buffer(bytes.length)) {
      buf.setBytes(0, bytes);
      buf.writerIndex(bytes.length);
      buf.getReferenceManager().retain(); // putMetadata takes one reference
      listener.putMetadata(buf);
    }
  }

  /** The client's answer: whether it opened the file (false if it left without one). */
  private static boolean opened(FlightStream reader) {
    try {
      while (reader.next()) {
        ArrowBuf m = reader.getLatestMetadata();
        if (m != null) {
          byte[] bytes = new byte[(int) m.readableBytes()];
          m.getBytes(0, bytes);
          JsonNode answer = Json.readTree(bytes);
          return answer != null && answer.path("opened").asBoolean(false);
        }
      }
      return false;
    } catch (IOException | RuntimeException e) {
      return false; // the client left or sent something else: it has no file
    }
  }

  /** Writes the selection into the file, block by block along the first dimension. */
  private void fill(
      FileChannel channel,
      ReadRequest request,
      ZarrArray array,
      Selection selection,
      long bytes,
      ServerStreamListener listener)
      throws IOException {
    long blockBytes = options.batchBytes() * 4;
    long position = 0;
    try (MemoryBudget.Lease lease =
        budget.acquire(
            "do_exchange " + ZaroFlightProducer.describe(request),
            2 * Math.min(bytes, blockBytes),
            options.requestBytes(),
            listener::isCancelled)) {
      BufferAllocator child = lease.allocator();
      for (Selection block : tensors.blocks(array, selection)) { // as do_get cuts them
        if (listener.isCancelled()) {
          return;
        }
        if (block.size() == 0) {
          continue;
        }
        try (Slab slab = array.read(block, child, readOptions)) {
          position = write(channel, slab.data(), slab.byteSize(), position);
          written.add(slab.byteSize());
        }
      }
    }
    if (position != bytes) {
      throw CallStatus.INTERNAL
          .withDescription(
              "the shared-memory file got " + position + " bytes, the read holds " + bytes)
          .toRuntimeException();
    }
  }

  private static long write(FileChannel channel, ArrowBuf data, long size, long position)
      throws IOException {
    for (long done = 0; done < size; ) {
      int n = (int) Math.min(Integer.MAX_VALUE - 8, size - done);
      ByteBuffer view = data.nioBuffer(done, n);
      while (view.hasRemaining()) {
        position += channel.write(view, position);
      }
      done += n;
    }
    return position;
  }
}
