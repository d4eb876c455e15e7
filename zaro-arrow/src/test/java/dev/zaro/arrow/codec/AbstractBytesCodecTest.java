package dev.zaro.arrow.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.error.CodecException;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The checks every bytes-to-bytes codec passes: data encoded by an independent encoder decodes back
 * exactly (known and unknown size, into place), and truncated, corrupt or wrongly-sized input is a
 * {@link CodecException} naming the codec, never a wrong answer.
 */
public abstract class AbstractBytesCodecTest extends AllocatorTest {

  protected AbstractBytesCodecTest() {}

  /** The codec under test. */
  protected abstract BytesToBytesCodec codec();

  /** Encodes with an implementation independent of zaro's decoder. */
  protected abstract byte[] encode(byte[] data) throws Exception;

  /** Whether a flipped byte inside the stream is always detected (checksummed formats). */
  protected boolean detectsCorruption() {
    return true;
  }

  /**
   * Whether the encoding states its own length (a header, padding, a checksum), so truncated input
   * is an error even when the expected size is unknown, and a flipped header byte is caught. False
   * for a pure permutation such as shuffle, where any input of the right length is valid.
   */
  protected boolean framed() {
    return true;
  }

  /** Whether the independent encoder can encode {@code data} (shuffle: whole elements only). */
  protected boolean encodes(byte[] data) {
    return true;
  }

  static Stream<Arguments> payloads() {
    Random random = new Random(42);
    byte[] noise = new byte[70_000];
    random.nextBytes(noise);
    byte[] smooth = new byte[1 << 20];
    for (int i = 0; i < smooth.length; i++) {
      smooth[i] = (byte) (Math.sin(i / 500.0) * 100);
    }
    return Stream.of(
        Arguments.of("one byte", new byte[] {42}),
        Arguments.of("zeros", new byte[4096]),
        Arguments.of("noise", noise),
        Arguments.of("smooth 1 MiB", smooth));
  }

  protected ArrowBuf buf(byte[] bytes) {
    ArrowBuf buf = allocator.buffer(Math.max(1, bytes.length));
    buf.setBytes(0, bytes);
    buf.writerIndex(bytes.length);
    return buf;
  }

  protected static byte[] bytes(ArrowBuf buf) {
    byte[] out = new byte[(int) buf.writerIndex()];
    buf.getBytes(0, out);
    return out;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("payloads")
  void decodesWhatAnIndependentEncoderWrote(String name, byte[] data) throws Exception {
    assumeTrue(encodes(data), "the encoder cannot encode this payload");
    byte[] encoded = encode(data);
    try (ArrowBuf in = buf(encoded)) {
      try (ArrowBuf out = codec().decode(in, data.length, allocator)) {
        assertArrayEquals(data, bytes(out));
      }
      try (ArrowBuf out = codec().decode(in, -1, allocator)) {
        assertArrayEquals(data, bytes(out));
      }
      assertEquals(encoded.length, in.writerIndex(), "decode must not consume its input");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("payloads")
  void decodesIntoPlaceWhenItCan(String name, byte[] data) throws Exception {
    assumeTrue(encodes(data), "the encoder cannot encode this payload");
    try (ArrowBuf in = buf(encode(data));
        ArrowBuf target = allocator.buffer(data.length + 16)) {
      target.setOne(0L, target.capacity());
      if (codec().decodeInto(in, target, 8, data.length)) {
        byte[] out = new byte[data.length];
        target.getBytes(8, out);
        assertArrayEquals(data, out);
        assertEquals((byte) 0xff, target.getByte(7), "wrote before its region");
        assertEquals((byte) 0xff, target.getByte(8 + data.length), "wrote past its region");
      }
    }
  }

  /**
   * A region that does not lie inside the target is refused before anything is decoded, with or
   * without a worker's scratch (a codec that writes through raw addresses would otherwise write
   * past the target's memory); a codec that cannot decode in place may say so instead. The regions
   * are given against the target's capacity: one byte past its end, a negative offset, one byte
   * more than it holds, an offset past its end.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"past the end", "negative offset", "larger than the target", "after it"})
  void aRegionOutsideTheTargetIsRefused(String region) throws Exception {
    byte[] data = new byte[4096]; // the "zeros" payload, which every encoder has encoded
    assumeTrue(encodes(data), "the encoder cannot encode this payload");
    try (Scratch scratch = new Scratch(allocator);
        ArrowBuf in = buf(encode(data));
        ArrowBuf target = allocator.buffer(data.length + 8)) {
      long capacity = target.capacity();
      long offset =
          switch (region) {
            case "past the end" -> capacity - data.length + 1;
            case "negative offset" -> -1;
            case "larger than the target" -> 0;
            default -> capacity + 1;
          };
      long size =
          switch (region) {
            case "larger than the target" -> capacity + 1;
            case "after it" -> 0;
            default -> data.length;
          };
      for (Scratch s : Arrays.asList(null, scratch)) {
        String what =
            "["
                + offset
                + ", "
                + offset
                + " + "
                + size
                + ") of a "
                + capacity
                + "-byte target"
                + (s == null ? "" : ", with a scratch");
        try {
          boolean decoded =
              s == null
                  ? codec().decodeInto(in, target, offset, size)
                  : codec().decodeInto(in, target, offset, size, s);
          assertFalse(decoded, "decoded into " + what);
        } catch (IllegalArgumentException e) {
          assertTrue(e.getMessage().contains("outside"), what + ": " + e.getMessage());
        }
      }
    }
  }

  /** Decodes as a read's worker does: into place with its scratch (reused decoder state). */
  private void decodeWithScratch(ArrowBuf in, long size, Scratch scratch) {
    try (ArrowBuf target = allocator.buffer(Math.max(1, size))) {
      if (!codec().decodeInto(in, target, 0, size, scratch)) {
        codec().decode(in, size, allocator).close();
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("payloads")
  void decodesIntoPlaceWithAWorkersScratch(String name, byte[] data) throws Exception {
    assumeTrue(encodes(data), "the encoder cannot encode this payload");
    try (Scratch scratch = new Scratch(allocator);
        ArrowBuf in = buf(encode(data));
        ArrowBuf target = allocator.buffer(data.length + 16)) {
      for (int round = 0; round < 2; round++) { // the second round reuses the decoder state
        target.setOne(0L, target.capacity());
        if (codec().decodeInto(in, target, 8, data.length, scratch)) {
          byte[] out = new byte[data.length];
          target.getBytes(8, out);
          assertArrayEquals(data, out, "round " + round);
          assertEquals((byte) 0xff, target.getByte(7), "wrote before its region");
          assertEquals((byte) 0xff, target.getByte(8 + data.length), "wrote past its region");
        }
      }
    }
  }

  /**
   * With idle threads lent (a read with fewer chunks than threads), a codec that splits still
   * decodes right.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("payloads")
  void decodesIntoPlaceWithLentThreads(String name, byte[] data) throws Exception {
    assumeTrue(encodes(data), "the encoder cannot encode this payload");
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try (Scratch scratch = new Scratch(allocator);
        ArrowBuf in = buf(encode(data));
        ArrowBuf target = allocator.buffer(data.length + 16)) {
      scratch.bind(allocator, () -> 3, pool);
      target.setOne(0L, target.capacity());
      if (codec().decodeInto(in, target, 8, data.length, scratch)) {
        byte[] out = new byte[data.length];
        target.getBytes(8, out);
        assertArrayEquals(data, out);
        assertEquals((byte) 0xff, target.getByte(7), "wrote before its region");
        assertEquals((byte) 0xff, target.getByte(8 + data.length), "wrote past its region");
      }
      byte[] corrupt = encode(data);
      if (detectsCorruption() && corrupt.length > 64) {
        corrupt[corrupt.length / 2] ^= 0x5a;
        try (ArrowBuf bad = buf(corrupt)) {
          assertThrows(
              CodecException.class,
              () -> {
                if (!codec().decodeInto(bad, target, 8, data.length, scratch)) {
                  codec().decode(bad, data.length, allocator).close();
                }
              });
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * A codec that decodes part of a stream (blosc: only the blocks a read needs) gets that part
   * right.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("payloads")
  void decodesTheRangeAReadNeeds(String name, byte[] data) throws Exception {
    assumeTrue(encodes(data), "the encoder cannot encode this payload");
    int n = data.length;
    long[][] ranges = {
      {0, 0}, {0, 1}, {0, n / 3}, {n / 3, n / 2 + 1}, {n / 2, n}, {n - 1, n}, {0, n}
    };
    try (Scratch scratch = new Scratch(allocator);
        ArrowBuf in = buf(encode(data));
        ArrowBuf target = allocator.buffer(Math.max(1, n))) {
      for (long[] r : ranges) {
        if (r[0] > r[1] || r[1] > n || r[0] < 0) {
          continue;
        }
        target.setZero(0, target.capacity());
        if (codec().decodeRange(in, target, n, r[0], r[1], scratch)) {
          byte[] got = new byte[(int) (r[1] - r[0])];
          target.getBytes(r[0], got);
          assertArrayEquals(
              Arrays.copyOfRange(data, (int) r[0], (int) r[1]), got, "bytes " + r[0] + ".." + r[1]);
        }
      }
    }
  }

  @Test
  void badInputThroughAWorkersScratchIsAnErrorAndTheScratchStaysUsable() throws Exception {
    byte[] data = new byte[5000];
    new Random(2)
        .nextBytes(data); // the payload of truncatedInputIsAnError (blosc has its c-blosc frame)
    byte[] encoded = encode(data);
    try (Scratch scratch = new Scratch(allocator)) {
      try (ArrowBuf in = buf(Arrays.copyOf(encoded, encoded.length / 2))) {
        assertThrows(
            CodecException.class, () -> decodeWithScratch(in, data.length, scratch), "truncated");
      }
      try (ArrowBuf in = buf(encoded)) {
        for (long size : new long[] {data.length - 1, data.length + 1}) {
          CodecException e =
              assertThrows(CodecException.class, () -> decodeWithScratch(in, size, scratch));
          assertTrue(e.getMessage().startsWith("codec " + codec().name()), e.getMessage());
        }
        decodeWithScratch(in, data.length, scratch);
      }
    }
  }

  @Test
  void aWrongExpectedSizeIsAnError() throws Exception {
    byte[] data = new byte[1000];
    new Random(1).nextBytes(data);
    try (ArrowBuf in = buf(encode(data))) {
      for (long size : new long[] {999, 1001, 10}) {
        CodecException e =
            assertThrows(CodecException.class, () -> codec().decode(in, size, allocator).close());
        assertTrue(e.getMessage().startsWith("codec " + codec().name()), e.getMessage());
      }
    }
  }

  @Test
  void truncatedInputIsAnError() throws Exception {
    byte[] data = new byte[5000];
    new Random(2).nextBytes(data);
    byte[] encoded = encode(data);
    for (int cut : new int[] {1, 5, encoded.length / 2, encoded.length - 1}) {
      byte[] truncated = Arrays.copyOf(encoded, encoded.length - cut);
      try (ArrowBuf in = buf(truncated)) {
        assertThrows(
            CodecException.class,
            () -> codec().decode(in, data.length, allocator).close(),
            "cut " + cut);
        if (framed()) {
          assertThrows(
              CodecException.class, () -> codec().decode(in, -1, allocator).close(), "cut " + cut);
        }
      }
    }
  }

  @Test
  void corruptInputIsAnError() throws Exception {
    assumeTrue(framed(), "every input of the right length is a valid encoding");
    byte[] data = new byte[20000];
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) (i % 251);
    }
    byte[] encoded = encode(data);
    int[] positions =
        detectsCorruption()
            ? new int[] {encoded.length / 3, encoded.length / 2, encoded.length - 2}
            : new int[] {0, 1, 2};
    for (int pos : positions) {
      byte[] corrupt = encoded.clone();
      corrupt[pos] ^= 0x5a;
      try (ArrowBuf in = buf(corrupt)) {
        assertThrows(
            CodecException.class,
            () -> codec().decode(in, data.length, allocator).close(),
            "byte " + pos);
      }
    }
  }

  @Test
  void garbageIsAnError() {
    byte[] garbage = new byte[300];
    new Random(3).nextBytes(garbage);
    try (ArrowBuf in = buf(garbage)) {
      assertThrows(CodecException.class, () -> codec().decode(in, 1000, allocator).close());
    }
  }
}
