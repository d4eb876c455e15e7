package dev.zaro.arrow.codec.blosc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.error.CodecException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Damaged c-blosc frames: truncated, lying headers, block offsets and stream sizes pointing outside
 * the frame, unknown compressors, corrupt streams. Each is a {@link CodecException} starting "codec
 * blosc: " that says what is wrong; nothing reads outside the buffer, hangs, or allocates what the
 * header claims instead of what the data supports.
 */
class BloscCorruptionTest extends AllocatorTest {
  private static final BloscCodec CODEC =
      new BloscCodec("lz4", 5, BloscCodec.Shuffle.SHUFFLE, 4, 0);

  /** Split into 4 streams, 2 blocks (the second 1 byte), lz4. */
  private static final String SPLIT = "lz4-shuffle-ts4-odd";

  /** 3 unsplit blocks (the last one short), blosclz. */
  private static final String BLOCKS = "blosclz-shuffle-ts4-blocks";

  /** One frame per compressor and layout, for the fuzzing tests. */
  static List<String> fuzzCases() {
    return List.of(
        "blosclz-shuffle-ts4-odd",
        "blosclz-noshuffle-ts2-blocks",
        "lz4-bitshuffle-ts8-blocks",
        "lz4hc-shuffle-ts2-mixed",
        "snappy-shuffle-ts4-odd",
        "snappy-noshuffle-ts24-blocks",
        "zlib-shuffle-ts3-odd",
        "zstd-bitshuffle-ts2-even8",
        "zstd-shuffle-ts12-blocks",
        "lz4-shuffle-ts4-clevel0");
  }

  private ArrowBuf buf(byte[] bytes) {
    ArrowBuf b = allocator.buffer(Math.max(1, bytes.length));
    b.setBytes(0, bytes);
    b.writerIndex(bytes.length);
    return b;
  }

  private static ByteBuffer le(byte[] frame) {
    return ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
  }

  /**
   * Decodes with the size known and unknown; both must fail with a blosc error containing {@code
   * words}.
   */
  private void assertFails(byte[] frame, long knownSize, String words) {
    for (long size : new long[] {knownSize, -1}) {
      try (BufferAllocator limited = allocator.newChildAllocator("limited", 0, 16 << 20);
          ArrowBuf in = buf(frame)) {
        CodecException e =
            assertThrows(
                CodecException.class,
                () -> CODEC.decode(in, size, limited).close(),
                "size " + size);
        assertTrue(e.getMessage().startsWith("codec blosc: "), e.getMessage());
        assertTrue(
            e.getMessage().contains(words), "expected '" + words + "' in: " + e.getMessage());
      }
    }
  }

  @Test
  void theFixturesDecodeUntouched() {
    for (String name : List.of(SPLIT, BLOCKS)) {
      try (ArrowBuf in = buf(BloscFixtures.frame(name));
          ArrowBuf out = CODEC.decode(in, -1, allocator)) {
        byte[] got = new byte[(int) out.writerIndex()];
        out.getBytes(0, got);
        assertArrayEquals(BloscFixtures.raw(name), got);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {SPLIT, BLOCKS, "zstd-noshuffle-ts1-tiny"})
  void everyTruncationIsAnError(String name) {
    byte[] frame = BloscFixtures.frame(name);
    int size = BloscFixtures.raw(name).length;
    for (int len = 0; len < frame.length; len++) {
      byte[] cut = Arrays.copyOf(frame, len);
      assertFails(cut, size, len < 16 ? "shorter than the 16-byte header" : "frame is truncated");
    }
  }

  @Test
  void headerVersions() {
    byte[] frame = BloscFixtures.frame(SPLIT);
    int size = BloscFixtures.raw(SPLIT).length;
    for (int v : new int[] {0, 1, 3, 4, 0x5a}) {
      byte[] f = frame.clone();
      f[0] = (byte) v;
      assertFails(f, size, "unsupported format version " + v);
    }
    byte[] f = frame.clone();
    f[1] = 2;
    assertFails(f, size, "unsupported compressor format version 2");
  }

  @Test
  void unknownCompressorCodes() {
    byte[] frame = BloscFixtures.frame(SPLIT);
    int size = BloscFixtures.raw(SPLIT).length;
    for (int code = 5; code <= 7; code++) {
      byte[] f = frame.clone();
      f[2] = (byte) ((f[2] & 0x1f) | code << 5);
      assertFails(f, size, "unknown compressor code " + code);
    }
  }

  @Test
  void impossibleFlags() {
    byte[] frame = BloscFixtures.frame(SPLIT);
    int size = BloscFixtures.raw(SPLIT).length;
    byte[] f = frame.clone();
    f[2] |= 0x08;
    assertFails(f, size, "reserved flag bit 3");
    f = frame.clone();
    f[2] |= 0x05;
    assertFails(f, size, "both byte- and bit-shuffle");
  }

  @Test
  void typesizeZero() {
    byte[] f = BloscFixtures.frame(SPLIT);
    f[3] = 0;
    assertFails(f, BloscFixtures.raw(SPLIT).length, "typesize is 0");
  }

  @Test
  void aWrongTypesizeIsCaughtByTheStreams() {
    byte[] f = BloscFixtures.frame(SPLIT);
    f[3] = 8;
    assertFails(f, BloscFixtures.raw(SPLIT).length, "block 0");
  }

  @Test
  void nbytesThatDisagreesWithTheExpectedSize() {
    byte[] frame = BloscFixtures.frame(BLOCKS);
    int size = BloscFixtures.raw(BLOCKS).length;
    for (int delta : new int[] {-1, 1, 4096}) {
      byte[] f = frame.clone();
      le(f).putInt(4, size + delta);
      try (ArrowBuf in = buf(f)) {
        CodecException e =
            assertThrows(CodecException.class, () -> CODEC.decode(in, size, allocator));
        assertTrue(
            e.getMessage().startsWith("codec blosc: frame holds " + (size + delta)),
            e.getMessage());
        try (ArrowBuf target = allocator.buffer(size)) {
          e = assertThrows(CodecException.class, () -> CODEC.decodeInto(in, target, 0, size));
          assertTrue(
              e.getMessage().startsWith("codec blosc: frame holds " + (size + delta)),
              e.getMessage());
        }
      }
    }
    // size unknown: the blocks no longer add up
    byte[] f = frame.clone();
    le(f).putInt(4, size + 1);
    assertFails(f, -1, "block 2");
  }

  @Test
  void negativeNbytes() {
    byte[] f = BloscFixtures.frame(SPLIT);
    le(f).putInt(4, 0x80000000);
    assertFails(f, -1, "decoded size 2147483648 is out of range");
  }

  /** A header claiming 2 GiB over a few hundred bytes: refused before allocating anything. */
  @Test
  void decompressionBombIsRefusedWithoutAllocating() {
    byte[] frame = BloscFixtures.frame(BLOCKS);
    int claim = BloscHeader.MAX_NBYTES;
    // small blocks: the offset table alone would not fit
    byte[] f = frame.clone();
    le(f).putInt(4, claim);
    assertFails(f, -1, "offset table");
    // one 2 GiB block: its stream cannot decode to that
    f = frame.clone();
    le(f).putInt(4, claim).putInt(8, claim);
    assertFails(f, -1, "cannot decode to the " + claim + " bytes");
    // the same for every compressor (snappy states its size, the others have a ratio bound)
    for (String name : fuzzCases()) {
      f = BloscFixtures.frame(name);
      if ((f[2] & 0x02) != 0) {
        continue;
      }
      le(f).putInt(4, claim).putInt(8, claim);
      f[2] |= 0x10;
      assertFails(f, -1, "cannot decode to the " + claim + " bytes");
    }
  }

  @Test
  void badBlocksize() {
    byte[] frame = BloscFixtures.frame(BLOCKS);
    int size = BloscFixtures.raw(BLOCKS).length;
    for (int bs : new int[] {0, -1, Integer.MIN_VALUE}) {
      byte[] f = frame.clone();
      le(f).putInt(8, bs);
      assertFails(f, size, "blocksize " + bs + " is not positive");
    }
    byte[] f = frame.clone();
    le(f).putInt(8, Integer.MAX_VALUE);
    assertFails(f, size, "block 0");
  }

  /**
   * Found by CodecFuzzTest#blosc: a memcpyed frame's block size drives streaming, so it is checked
   * too.
   */
  @Test
  void memcpyedFrameWithBadBlocksize() {
    byte[] frame = BloscFixtures.frame("lz4-shuffle-ts4-clevel0");
    int size = BloscFixtures.raw("lz4-shuffle-ts4-clevel0").length;
    for (int bs : new int[] {0, -1, Integer.MIN_VALUE}) {
      byte[] f = frame.clone();
      le(f).putInt(8, bs);
      assertFails(f, size, "blocksize " + bs + " is not positive");
    }
  }

  @Test
  void badCbytes() {
    byte[] frame = BloscFixtures.frame(BLOCKS);
    int size = BloscFixtures.raw(BLOCKS).length;
    byte[] f = frame.clone();
    le(f).putInt(12, frame.length + 1);
    assertFails(f, size, "frame is truncated: header says " + (frame.length + 1));
    f = frame.clone();
    le(f).putInt(12, 15);
    assertFails(f, size, "smaller than the 16-byte header");
    f = frame.clone();
    le(f).putInt(12, 20);
    assertFails(f, size, "offset table");
    f = frame.clone();
    le(f).putInt(12, frame.length - 3);
    assertFails(f, size, "passes the end of the " + (frame.length - 3) + "-byte frame");
  }

  @Test
  void trailingBytesAfterTheFrameAreIgnored() {
    byte[] frame = BloscFixtures.frame(BLOCKS);
    byte[] padded = Arrays.copyOf(frame, frame.length + 100);
    try (ArrowBuf in = buf(padded);
        ArrowBuf out = CODEC.decode(in, -1, allocator)) {
      byte[] got = new byte[(int) out.writerIndex()];
      out.getBytes(0, got);
      assertArrayEquals(BloscFixtures.raw(BLOCKS), got);
    }
  }

  @Test
  void blockOffsetsOutsideTheFrame() {
    byte[] frame = BloscFixtures.frame(BLOCKS);
    int size = BloscFixtures.raw(BLOCKS).length;
    for (int block = 0; block < 3; block++) {
      for (int start :
          new int[] {
            frame.length, frame.length - 3, Integer.MAX_VALUE, -1, Integer.MIN_VALUE, 0, 16, 27
          }) {
        byte[] f = frame.clone();
        le(f).putInt(16 + 4 * block, start);
        assertFails(
            f,
            size,
            "block " + block + " of 3 starts at byte " + start + ", outside the frame's data");
      }
    }
  }

  @Test
  void streamSizesOutsideTheFrame() {
    byte[] frame = BloscFixtures.frame(SPLIT);
    int size = BloscFixtures.raw(SPLIT).length;
    int start = le(frame).getInt(16);
    int stream = start;
    for (int s = 0; s < 4; s++) {
      int csize = le(frame).getInt(stream);
      for (int bad : new int[] {-1, Integer.MIN_VALUE, Integer.MAX_VALUE, frame.length}) {
        byte[] f = frame.clone();
        le(f).putInt(stream, bad);
        assertFails(f, size, "block 0 stream " + s + ": compressed size " + bad);
      }
      stream += 4 + csize;
    }
  }

  @Test
  void memcpyedFrameWithWrongLength() {
    byte[] frame = BloscFixtures.frame("lz4-shuffle-ts4-clevel0");
    int size = BloscFixtures.raw("lz4-shuffle-ts4-clevel0").length;
    byte[] f = Arrays.copyOf(frame, frame.length + 8);
    le(f).putInt(12, frame.length + 8);
    assertFails(f, size, "memcpyed frame");
    // clearing the memcpyed flag makes the data a block table: garbage offsets
    f = frame.clone();
    f[2] &= ~0x02;
    assertFails(f, size, "block 0");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "blosclz-noshuffle-ts12-odd",
        "lz4-shuffle-ts2-even8",
        "lz4hc-noshuffle-ts4-blocks",
        "snappy-noshuffle-ts12-odd",
        "zlib-noshuffle-ts12-odd",
        "zstd-noshuffle-ts12-odd"
      })
  void corruptStreamsOfEveryCompressor(String name) {
    byte[] frame = BloscFixtures.frame(name);
    int size = BloscFixtures.raw(name).length;
    int stream;
    int csize;
    int index;
    try (ArrowBuf in = buf(frame)) {
      BloscHeader h = BloscHeader.read(in);
      int neblock = h.blockSize(0) / h.streams(0);
      stream = le(frame).getInt(16);
      index = 0;
      while (le(frame).getInt(stream) == neblock) {
        stream += 4 + neblock;
        index++;
        assertTrue(index < h.streams(0), name + ": no compressed stream in block 0");
      }
      csize = le(frame).getInt(stream);
    }
    String where = "block 0 stream " + index + " (";
    byte[] f = frame.clone();
    Arrays.fill(f, stream + 4, stream + 4 + csize, (byte) 0xff);
    assertFails(f, size, where);
    f = frame.clone();
    Arrays.fill(f, stream + 4, stream + 4 + csize, (byte) 0);
    assertFails(f, size, where);
    // a shorter size: this stream is cut, and the next stream's size is read from the wrong place
    for (int shorter : new int[] {csize - 1, csize / 2}) {
      f = frame.clone();
      le(f).putInt(stream, shorter);
      assertFails(f, size, "block 0 stream ");
    }
  }

  /**
   * Random damage anywhere in frames of every compressor: each decode either succeeds (blosc has no
   * checksum) or fails with a blosc CodecException; never another exception, a crash, or a large
   * allocation.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("fuzzCases")
  void randomDamageIsCaughtOrHarmless(String name) {
    byte[] frame = BloscFixtures.frame(name);
    int size = BloscFixtures.raw(name).length;
    Random random = new Random(name.hashCode());
    try (BufferAllocator limited = allocator.newChildAllocator("limited", 0, 64 << 20)) {
      for (int trial = 0; trial < 400; trial++) {
        byte[] f = frame.clone();
        int flips = 1 + random.nextInt(3);
        for (int i = 0; i < flips; i++) {
          int pos =
              trial % 4 == 0 ? random.nextInt(Math.min(f.length, 48)) : random.nextInt(f.length);
          f[pos] =
              random.nextInt(3) == 0
                  ? (byte) random.nextInt(256)
                  : (byte) (f[pos] ^ (1 << random.nextInt(8)));
        }
        if (trial % 7 == 0) {
          f = Arrays.copyOf(f, random.nextInt(f.length + 1));
        }
        for (long expected : new long[] {size, -1}) {
          try (ArrowBuf in = buf(f)) {
            try (ArrowBuf out = CODEC.decode(in, expected, limited)) {
              assertTrue(out.writerIndex() <= 64 << 20);
            } catch (CodecException e) {
              assertTrue(e.getMessage().startsWith("codec blosc: "), e.getMessage());
            } catch (RuntimeException e) {
              fail("trial " + trial + " (size " + expected + "): " + e, e);
            }
          }
        }
        try (ArrowBuf in = buf(f);
            ArrowBuf target = limited.buffer(size + 16)) {
          target.setBytes(0, ones((int) target.capacity()));
          try {
            CODEC.decodeInto(in, target, 8, size);
          } catch (CodecException e) {
            assertTrue(e.getMessage().startsWith("codec blosc: "), e.getMessage());
          }
          for (int i = 0; i < 8; i++) {
            assertTrue(
                target.getByte(i) == (byte) 0xff && target.getByte(8 + size + i) == (byte) 0xff,
                "trial " + trial + " wrote outside its region");
          }
        }
      }
    }
  }

  private static byte[] ones(int n) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) 0xff);
    return b;
  }
}
