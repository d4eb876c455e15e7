package dev.zaro.arrow.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.github.luben.zstd.ZstdCompressCtx;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import dev.zaro.arrow.metadata.JsonDocument;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Chunks much larger than the 256 KiB streaming window, decoded with a scratch (streaming) and
 * compared element by element with the selection computed directly from the original values.
 */
class StreamingDecodeTest extends AllocatorTest {

  @ParameterizedTest
  @CsvSource({"complex128, 16, false", "int16, 2, true", "float64, 8, false", "uint8, 1, false"})
  void stridedViewsOfLargeChunks(String type, int itemSize, boolean bigEndian) throws Exception {
    int[] shape = {37, 61, 53};
    long n = (long) shape[0] * shape[1] * shape[2];
    byte[] data = new byte[(int) (n * itemSize)];
    new Random(itemSize).nextBytes(data);
    byte[] encoded;
    try (ZstdCompressCtx ctx = new ZstdCompressCtx()) {
      encoded = ctx.compress(data);
    }
    DataType dt = DataType.ofV3Name(type, "test");
    String endian = bigEndian ? "big" : "little";
    CodecChain chain = CodecChain.resolve(List.of(
        new CodecSpec("bytes", JsonDocument.MAPPER.readTree("{\"endian\":\"" + endian + "\"}")),
        new CodecSpec("zstd", null)), new ChunkSpec(shape, dt, FillValue.zero(dt)), CodecRegistry.defaults());
    // the selection 3:37:5, 1:60, 2:51:7 as starts, steps and counts
    long[] start = {3, 1, 2};
    long[] step = {5, 1, 7};
    long[] count = {7, 59, 7};
    long outElements = count[0] * count[1] * count[2];
    try (ArrowBuf in = allocator.buffer(encoded.length); ArrowBuf out = allocator.buffer(outElements * itemSize);
         Scratch scratch = new Scratch(allocator)) {
      in.setBytes(0, encoded);
      in.writerIndex(encoded.length);
      long[] stride = {count[1] * count[2] * itemSize, count[2] * itemSize, itemSize};
      SlabView view = new SlabView(out, 0, itemSize, shape, start, step, count, stride);
      chain.decodeInto(in, view, allocator, scratch);
      int swap = bigEndian ? itemSize : 0;
      long o = 0;
      for (long a = 0; a < count[0]; a++) {
        for (long b = 0; b < count[1]; b++) {
          for (long c = 0; c < count[2]; c++, o++) {
            long src = (((start[0] + a * step[0]) * shape[1] + start[1] + b * step[1]) * shape[2]
                + start[2] + c * step[2]) * itemSize;
            for (int k = 0; k < itemSize; k++) {
              byte want = data[(int) (src + (swap > 0 ? itemSize - 1 - k : k))];
              assertEquals(want, out.getByte(o * itemSize + k), "element " + o + " byte " + k);
            }
          }
        }
      }
      // truncated and oversized streams are errors, never partial answers
      try (ArrowBuf cut = allocator.buffer(encoded.length / 2)) {
        cut.setBytes(0, encoded, 0, encoded.length / 2);
        cut.writerIndex(encoded.length / 2);
        assertThrows(CodecException.class, () -> chain.decodeInto(cut, view, allocator, scratch));
      }
    }
  }
}
