package dev.zaro.arrow.codec.blosc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every frame generate_blosc.py wrote with c-blosc (each cname x shuffle x typesize x size kind)
 * decodes to the bytes c-blosc was given: with the size known, unknown, and straight into a region
 * of a larger buffer.
 */
class BloscFixtureTest extends AllocatorTest {
  private static final BloscCodec CODEC =
      new BloscCodec("lz4", 5, BloscCodec.Shuffle.SHUFFLE, 4, 0);

  static List<String> cases() {
    return BloscFixtures.cases();
  }

  private ArrowBuf buf(byte[] bytes) {
    ArrowBuf b = allocator.buffer(Math.max(1, bytes.length));
    b.setBytes(0, bytes);
    b.writerIndex(bytes.length);
    return b;
  }

  private static byte[] bytes(ArrowBuf b, long offset, long length) {
    byte[] out = new byte[(int) length];
    b.getBytes(offset, out);
    return out;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void decodesWhatCbloscWrote(String name) {
    byte[] frame = BloscFixtures.frame(name);
    byte[] raw = BloscFixtures.raw(name);
    try (ArrowBuf in = buf(frame)) {
      BloscHeader h = BloscHeader.read(in);
      assertEquals(raw.length, h.nbytes());
      assertEquals(Integer.parseInt(name.split("-", -1)[2].substring(2)), h.typesize(), "typesize");
      try (ArrowBuf out = CODEC.decode(in, raw.length, allocator)) {
        assertArrayEquals(raw, bytes(out, 0, out.writerIndex()));
      }
      try (ArrowBuf out = CODEC.decode(in, -1, allocator)) {
        assertArrayEquals(raw, bytes(out, 0, out.writerIndex()));
      }
      try (ArrowBuf target = allocator.buffer(raw.length + 40)) {
        target.setBytes(0, ones((int) target.capacity()));
        assertTrue(CODEC.decodeInto(in, target, 24, raw.length));
        assertArrayEquals(raw, bytes(target, 24, raw.length));
        byte[] before = bytes(target, 0, 24);
        byte[] after = bytes(target, 24 + raw.length, target.capacity() - 24 - raw.length);
        byte[] ones = new byte[24];
        Arrays.fill(ones, (byte) 0xff);
        assertArrayEquals(ones, before, "wrote before its region");
        for (byte b : after) {
          assertEquals((byte) 0xff, b, "wrote past its region");
        }
      }
    }
  }

  /** Block by block through a window of one block: the pieces, in order, are c-blosc's input. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void streamsBlockByBlockWhatCbloscWrote(String name) {
    byte[] frame = BloscFixtures.frame(name);
    byte[] raw = BloscFixtures.raw(name);
    try (ArrowBuf in = buf(frame)) {
      BloscHeader h = BloscHeader.read(in);
      if (raw.length == 0 || h.blocksize() % h.typesize() != 0) {
        return;
      }
      byte[] got = new byte[raw.length];
      long[] next = {0};
      try (ArrowBuf window = allocator.buffer(h.blocksize())) {
        assertTrue(
            CODEC.decodeStreaming(
                in,
                raw.length,
                window,
                h.typesize(),
                (buf, off, position, length) -> {
                  assertEquals(next[0], position, "pieces in order");
                  buf.getBytes(off, got, (int) position, (int) length);
                  next[0] += length;
                }));
      }
      assertEquals(raw.length, next[0]);
      assertArrayEquals(raw, got);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void headerMatchesTheCase(String name) {
    String[] parts = name.split("-", -1);
    String cname = parts[0];
    String shuffle = parts[1];
    try (ArrowBuf in = buf(BloscFixtures.frame(name))) {
      BloscHeader h = BloscHeader.read(in);
      if (!h.memcpyed()) {
        String format = cname.equals("lz4hc") ? "lz4" : cname;
        assertEquals(format, h.compressor().formatName());
      }
      assertEquals(shuffle.equals("shuffle"), h.byteShuffle(), "byte-shuffle flag");
      assertEquals(shuffle.equals("bitshuffle"), h.bitShuffle(), "bit-shuffle flag");
    }
  }

  /** The c-blosc frames cover every branch of the format this decoder has. */
  @Test
  void fixturesCoverTheFormat() {
    Set<String> seen = new TreeSet<>();
    List<byte[]> frames = new ArrayList<>(BloscFixtures.suiteFrames());
    BloscFixtures.cases().forEach(c -> frames.add(BloscFixtures.frame(c)));
    for (byte[] frame : frames) {
      try (ArrowBuf in = buf(frame)) {
        BloscHeader h = BloscHeader.read(in);
        seen.add("typesize " + h.typesize());
        if (h.memcpyed()) {
          seen.add("memcpyed" + (h.byteShuffle() || h.bitShuffle() ? " with a shuffle flag" : ""));
          continue;
        }
        seen.add("compressor " + h.compressor().formatName());
        seen.add(h.byteShuffle() ? "byte-shuffle" : h.bitShuffle() ? "bit-shuffle" : "no shuffle");
        int blocks = h.blockCount();
        seen.add(blocks > 1 ? "several blocks" : "one block");
        for (int i = 0; i < blocks; i++) {
          int size = h.blockSize(i);
          int streams = h.streams(i);
          if (size < h.blocksize()) {
            seen.add("short last block");
            if (size < h.typesize()) {
              seen.add("last block shorter than typesize");
            }
            if (!h.dontSplit()
                && h.typesize() > 1
                && h.typesize() <= 16
                && size / h.typesize() >= 128) {
              seen.add("short last block of a splittable size, not split");
            }
          }
          if (streams > 1) {
            seen.add(blocks > 1 ? "split streams, several blocks" : "split streams");
            seen.add("split " + h.compressor().formatName());
          } else if (h.dontSplit()
              && h.typesize() > 1
              && h.typesize() <= 16
              && size / h.typesize() >= 128) {
            seen.add("don't-split flag on a splittable block");
          }
          if (h.bitShuffle() && (size / h.typesize()) % 8 != 0) {
            seen.add("bit-shuffle block with elements not a multiple of 8");
          }
          if (h.bitShuffle() && size % h.typesize() != 0) {
            seen.add("bit-shuffle block with trailing bytes");
          }
          if (h.byteShuffle() && h.typesize() > 1 && size % h.typesize() != 0) {
            seen.add("byte-shuffle block with trailing bytes");
          }
          long pos = in.getInt(BloscHeader.LENGTH + 4L * i);
          for (int s = 0; s < streams; s++) {
            int csize = in.getInt(pos);
            if (csize == size / streams) {
              seen.add("raw stream");
            }
            pos += 4 + csize;
          }
        }
      }
    }
    List<String> required =
        List.of(
            "typesize 1",
            "typesize 2",
            "typesize 3",
            "typesize 4",
            "typesize 8",
            "typesize 12",
            "typesize 24",
            "typesize 255",
            "memcpyed",
            "memcpyed with a shuffle flag",
            "compressor blosclz",
            "compressor lz4",
            "compressor snappy",
            "compressor zlib",
            "compressor zstd",
            "byte-shuffle",
            "bit-shuffle",
            "no shuffle",
            "several blocks",
            "one block",
            "short last block",
            "short last block of a splittable size, not split",
            "last block shorter than typesize",
            "split streams",
            "split streams, several blocks",
            "split blosclz",
            "split lz4",
            "split snappy",
            "split zlib",
            "split zstd",
            "don't-split flag on a splittable block",
            "bit-shuffle block with elements not a multiple of 8",
            "bit-shuffle block with trailing bytes",
            "byte-shuffle block with trailing bytes",
            "raw stream");
    Set<String> missing =
        required.stream()
            .filter(r -> !seen.contains(r))
            .collect(Collectors.toCollection(TreeSet::new));
    assertTrue(missing.isEmpty(), "fixtures lack " + missing + "; seen " + seen);
    assertFalse(frames.isEmpty());
  }

  private static byte[] ones(int n) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) 0xff);
    return b;
  }
}
