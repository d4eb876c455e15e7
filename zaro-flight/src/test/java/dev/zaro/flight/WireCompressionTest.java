package dev.zaro.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.LongAdder;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Compressed batches decode (with Arrow's own codec factory) to the same values, in fewer bytes.
 */
class WireCompressionTest extends AllocatorTest {

  @ParameterizedTest
  @EnumSource(WireCompression.class)
  void roundTripsAndCountsBodyBytes(WireCompression compression) throws IOException {
    // 6 MiB: two LZ4 blocks, the second (from 4 MiB on) random, so stored uncompressed
    int n = 6 << 18;
    int random = 4 << 18;
    Random rng = new Random(1);
    LongAdder wire = new LongAdder();
    try (Float4Vector v = new Float4Vector("v", allocator);
        VectorSchemaRoot root = new VectorSchemaRoot(List.of(v))) {
      v.allocateNew(n);
      for (int i = 0; i < n; i++) {
        v.set(i, i < random ? (i % 1000) * 0.5f : rng.nextFloat()); // repetitive, then random
      }
      root.setRowCount(n);
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      WriteChannel out = new WriteChannel(Channels.newChannel(bytes));
      MessageSerializer.serialize(out, root.getSchema());
      try (ArrowRecordBatch batch = compression.unloader(root, wire).getRecordBatch()) {
        MessageSerializer.serialize(out, batch);
      }
      ArrowStreamWriter.writeEndOfStream(out, IpcOption.DEFAULT);
      try (ArrowStreamReader reader =
          new ArrowStreamReader(
              new ByteArrayInputStream(bytes.toByteArray()),
              allocator,
              CommonsCompressionFactory.INSTANCE)) {
        assertTrue(reader.loadNextBatch());
        Float4Vector w = (Float4Vector) reader.getVectorSchemaRoot().getVector(0);
        assertEquals(n, w.getValueCount());
        for (int i = 0; i < n; i++) {
          assertEquals(v.get(i), w.get(i), "value " + i);
        }
        assertFalse(reader.loadNextBatch());
      }
      long raw = 4L * n;
      if (compression == WireCompression.NONE) {
        assertTrue(wire.sum() >= raw, wire.sum() + " body bytes");
      } else {
        assertTrue(wire.sum() < raw * 3 / 4, compression + ": " + wire.sum() + " body bytes");
      }
    }
  }

  @Test
  void unknownNamesAreInvalidArguments() {
    assertEquals(WireCompression.ZSTD, WireCompression.parse("ZSTD"));
    assertEquals(WireCompression.LZ4, WireCompression.parse("lz4"));
    assertEquals(WireCompression.NONE, WireCompression.parse(""));
    FlightRuntimeException e =
        assertThrows(FlightRuntimeException.class, () -> WireCompression.parse("gzip"));
    assertTrue(e.getMessage().contains("gzip"), e.getMessage());
  }
}
