package dev.zaro.arrow.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.ZstdCompressCtx;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Chunks much larger than the 256 KiB streaming window, decoded with a scratch (streaming) and
 * compared element by element with the selection computed directly from the original values.
 */
class StreamingDecodeTest extends AllocatorTest {

  /** zstd-jni's or the JDK's gzip encoder on the test's bytes. */
  private static byte[] encode(String codec, byte[] data) throws IOException {
    if (codec.equals("gzip")) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
        gz.write(data);
      }
      return out.toByteArray();
    }
    try (ZstdCompressCtx ctx = new ZstdCompressCtx()) {
      return ctx.compress(data);
    }
  }

  /**
   * zstep 24 selects planes 3..147 of 173 (most of the chunk: it streams through the window); zstep
   * 5 selects planes 3..33 (a prefix: zstd decodes just that, gzip the whole chunk).
   */
  @ParameterizedTest
  @CsvSource({
    "complex128, 16, false, zstd, 24",
    "int16, 2, true, zstd, 24",
    "float64, 8, false, zstd, 5",
    "uint8, 1, false, zstd, 24",
    "complex128, 16, false, gzip, 24",
    "int16, 2, true, gzip, 24",
    "int16, 2, false, gzip, 5",
    "float64, 8, true, zstd, 5"
  })
  void stridedViewsOfLargeChunks(
      String type, int itemSize, boolean bigEndian, String codec, int zstep) throws Exception {
    int[] shape = {173, 211, 59};
    long n = (long) shape[0] * shape[1] * shape[2];
    byte[] data = new byte[(int) (n * itemSize)];
    new Random(itemSize).nextBytes(data);
    byte[] encoded = encode(codec, data);
    DataType dt = DataType.ofV3Name(type, "test");
    String endian = bigEndian ? "big" : "little";
    CodecChain chain =
        CodecChain.resolve(
            List.of(
                new CodecSpec("bytes", Json.readTree("{\"endian\":\"" + endian + "\"}")),
                new CodecSpec(codec, null)),
            new ChunkSpec(shape, dt, FillValue.zero(dt)),
            CodecRegistry.defaults());
    assertTrue(
        chain.decodedSpec().byteSize() > CodecChain.STREAM_ABOVE || itemSize < 2,
        "a chunk that streams");
    // the selection 3::zstep (7 planes), 1:60, 2:51:7 as starts, steps and counts
    long[] start = {3, 1, 2};
    long[] step = {zstep, 1, 7};
    long[] count = {7, 59, 7};
    long outElements = count[0] * count[1] * count[2];
    try (ArrowBuf in = allocator.buffer(encoded.length);
        ArrowBuf out = allocator.buffer(outElements * itemSize);
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
            long src =
                (((start[0] + a * step[0]) * shape[1] + start[1] + b * step[1]) * shape[2]
                        + start[2]
                        + c * step[2])
                    * itemSize;
            for (int k = 0; k < itemSize; k++) {
              byte want = data[(int) (src + (swap > 0 ? itemSize - 1 - k : k))];
              assertEquals(want, out.getByte(o * itemSize + k), "element " + o + " byte " + k);
            }
          }
        }
      }
      // a stream that ends before the bytes the view needs is an error, never a partial answer
      // (random data: the first tenth of the stream holds about a tenth of the values)
      int keep = encoded.length / 10;
      try (ArrowBuf cut = allocator.buffer(keep)) {
        cut.setBytes(0, encoded, 0, keep);
        cut.writerIndex(keep);
        assertThrows(CodecException.class, () -> chain.decodeInto(cut, view, allocator, scratch));
      }
    }
  }
}
