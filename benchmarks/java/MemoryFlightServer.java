import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.vector.FixedShapeTensorType;
import dev.zaro.arrow.vector.SlabVectors;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;

/**
 * The Arrow Java floor for flight_throughput.py: a minimal flight-core Flight server streaming an
 * array held in memory (read once with zaro), in 8 MiB batches of fixed_shape_tensor rows, with
 * zero-copy writes on and no backpressure wait beyond gRPC's own. Run with the CLI's class path:
 *
 * <pre>java --add-opens=java.base/java.nio=ALL-UNNAMED -cp 'zaro-cli/target/classes:zaro-cli/target/lib/*' \
 *     benchmarks/java/MemoryFlightServer.java STORE</pre>
 */
public class MemoryFlightServer {
  public static void main(String[] args) throws Exception {
    FixedShapeTensorType.register();
    BufferAllocator allocator = new RootAllocator();
    List<ArrowRecordBatch> batches = new ArrayList<>();
    VectorSchemaRoot schemaRoot;
    try (Zaro zaro = Zaro.open(args[0]); Slab slab = zaro.read("", "", allocator)) {
      long rows = SlabVectors.rows(slab);
      long perBatch = Math.max(1, (8L << 20) / (slab.byteSize() / rows));
      FieldVector first = null;
      for (long from = 0; from < rows; from += perBatch) {
        try (FieldVector v = SlabVectors.tensor(slab, from, Math.min(perBatch, rows - from));
            VectorSchemaRoot root =
                new VectorSchemaRoot(List.of(v.getField()), List.of(v), v.getValueCount())) {
          batches.add(new VectorUnloader(root).getRecordBatch());
          if (first == null) {
            first = v;
          }
        }
      }
      schemaRoot = VectorSchemaRoot.create(
          new org.apache.arrow.vector.types.pojo.Schema(List.of(first.getField())), allocator);
    }
    VectorSchemaRoot template = schemaRoot;
    NoOpFlightProducer producer =
        new NoOpFlightProducer() {
          @Override
          public FlightInfo getFlightInfo(CallContext context, FlightDescriptor descriptor) {
            return new FlightInfo(
                template.getSchema(),
                descriptor,
                List.of(new FlightEndpoint(new Ticket(new byte[] {1}))),
                -1,
                -1);
          }

          @Override
          public void getStream(CallContext context, Ticket ticket, ServerStreamListener listener) {
            listener.setUseZeroCopy(true);
            try (VectorSchemaRoot root = VectorSchemaRoot.create(template.getSchema(), allocator)) {
              listener.start(root);
              VectorLoader loader = new VectorLoader(root);
              for (ArrowRecordBatch b : batches) {
                loader.load(b);
                listener.putNext();
              }
              listener.completed();
            }
          }
        };
    FlightServer server =
        FlightServer.builder(allocator, Location.forGrpcInsecure("127.0.0.1", 0), producer).build();
    server.start();
    System.out.println("java serving at grpc://127.0.0.1:" + server.getPort());
    System.out.flush();
    server.awaitTermination();
  }
}
