package dev.zaro.flight;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.util.List;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.junit.jupiter.api.Test;

/**
 * An HTTP record batch body is one direct Netty buffer over the vectors' memory: Netty's NIO
 * transport copies any buffer with a heap part into a fresh direct one before writing it, which
 * cost a copy of every byte served (and a fresh buffer's page faults) before the IPC headers were
 * copied into direct buffers too.
 */
class HttpBodyTest extends AllocatorTest {

  @Test
  void aBatchIsOneDirectBufferWrappingTheVectorsMemory() throws IOException {
    int n = 1 << 14;
    try (Float4Vector v = new Float4Vector("v", allocator);
        VectorSchemaRoot root = new VectorSchemaRoot(List.of(v))) {
      v.allocateNew(n);
      for (int i = 0; i < n; i++) {
        v.set(i, i * 0.25f);
      }
      root.setRowCount(n);
      ByteArrayOutputStream expected = new ByteArrayOutputStream();
      ZaroHttpServer.Buffers out = new ZaroHttpServer.Buffers(PooledByteBufAllocator.DEFAULT);
      try (ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch()) {
        MessageSerializer.serialize(
            new WriteChannel(Channels.newChannel(expected)), batch, IpcOption.DEFAULT);
        MessageSerializer.serialize(new WriteChannel(out), batch, IpcOption.DEFAULT);
      }
      ByteBuf body = out.composite;
      try {
        assertTrue(body.isDirect(), "a heap part makes Netty copy the whole body");
        assertArrayEquals(expected.toByteArray(), ByteBufUtil.getBytes(body));
        long values = v.getDataBuffer().memoryAddress();
        boolean wrapped = false;
        for (int i = 0; i < out.composite.numComponents(); i++) {
          ByteBuf part = out.composite.internalComponent(i);
          wrapped |= part.hasMemoryAddress() && part.memoryAddress() == values;
        }
        assertTrue(wrapped, "the values are wrapped, not copied");
      } finally {
        body.release();
      }
    }
    assertEquals(0, allocator.getAllocatedMemory());
  }
}
