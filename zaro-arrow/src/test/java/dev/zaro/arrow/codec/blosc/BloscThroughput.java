package dev.zaro.arrow.codec.blosc;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Decode throughput of a c-blosc frame against a plain memcpy of the decoded size (not a test: a
 * main). The frame comes from c-blosc, so first write it:
 *
 * <pre>
 * .venv/bin/python testdata/blosc/generate_blosc.py --bench /tmp/blosc-bench
 * mvn -q test-compile -pl zaro-arrow
 * mvn -q dependency:build-classpath -pl zaro-arrow -Dmdep.outputFile=/tmp/cp.txt
 * java --add-opens=java.base/java.nio=ALL-UNNAMED \
 *   -cp zaro-arrow/target/classes:zaro-arrow/target/test-classes:$(cat /tmp/cp.txt) \
 *   dev.zaro.arrow.codec.blosc.BloscThroughput /tmp/blosc-bench/bench-lz4-shuffle-u16-smooth [rounds]
 * </pre>
 *
 * (64 MiB of uint16, lz4, byte-shuffle, clevel 5, c-blosc's default 256 KiB blocks split in 2
 * streams; {@code -rough} is the same with a fast ripple, compressing 2x instead of 5.7x.) One
 * thread, like c-blosc with nthreads=1, whose speed the generator prints for comparison.
 */
public final class BloscThroughput {
  private BloscThroughput() {}

  public static void main(String[] args) throws Exception {
    String base = args.length > 0 ? args[0] : "/tmp/blosc-bench/bench-lz4-shuffle-u16-smooth";
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
    byte[] frame = Files.readAllBytes(Path.of(base + ".blosc"));
    byte[] raw = Files.readAllBytes(Path.of(base + ".raw"));
    BloscCodec codec = new BloscCodec("lz4", 5, BloscCodec.Shuffle.SHUFFLE, 2, 0);
    try (BufferAllocator allocator = new RootAllocator();
        ArrowBuf in = allocator.buffer(frame.length);
        ArrowBuf expected = allocator.buffer(raw.length);
        ArrowBuf out = allocator.buffer(raw.length)) {
      in.setBytes(0, frame);
      in.writerIndex(frame.length);
      expected.setBytes(0, raw);
      BloscHeader h = BloscHeader.read(in);
      System.out.printf(
          "frame: %d -> %d bytes (%.2fx), %s, %s, typesize %d, %d blocks of %d, %d streams per block%n",
          frame.length,
          raw.length,
          (double) raw.length / frame.length,
          h.compressor().formatName(),
          h.byteShuffle() ? "byte-shuffle" : h.bitShuffle() ? "bit-shuffle" : "no shuffle",
          h.typesize(),
          h.blockCount(),
          h.blocksize(),
          h.streams(0));

      codec.decodeInto(in, out, 0, raw.length);
      if (!out.nioBuffer(0, raw.length).equals(expected.nioBuffer(0, raw.length))) {
        throw new AssertionError("decoded bytes differ from the c-blosc input");
      }
      long n = raw.length;
      double[] blosc = new double[rounds];
      double[] copy = new double[rounds];
      double[] alloc = new double[rounds];
      for (int warm = 0; warm < 10; warm++) {
        codec.decodeInto(in, out, 0, n);
        MemoryUtil.copyMemory(expected.memoryAddress(), out.memoryAddress(), n);
      }
      for (int r = 0; r < rounds; r++) {
        long t0 = System.nanoTime();
        codec.decodeInto(in, out, 0, n);
        long t1 = System.nanoTime();
        MemoryUtil.copyMemory(expected.memoryAddress(), out.memoryAddress(), n);
        long t2 = System.nanoTime();
        ArrowBuf decoded = codec.decode(in, n, allocator);
        long t3 = System.nanoTime();
        decoded.close();
        alloc[r] = n / (double) (t3 - t2);
        blosc[r] = n / (double) (t1 - t0);
        copy[r] = n / (double) (t2 - t1);
      }
      report("blosc decodeInto (lz4 + unshuffle)", blosc);
      report("blosc decode (allocates output)", alloc);
      report("memcpy (MemoryUtil.copyMemory)", copy);
      System.out.printf("blosc decodeInto / memcpy (median): %.2f%n", median(blosc) / median(copy));
    }
  }

  private static void report(String what, double[] gbps) {
    double[] s = gbps.clone();
    Arrays.sort(s);
    System.out.printf(
        "%-36s median %6.2f GB/s, best %6.2f GB/s%n", what, median(gbps), s[s.length - 1]);
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }
}
