package dev.zaro.bench;

import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.memory.HugePages;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The scatter of a sharded read all (compare.py's sharded_zstd and sharded_128_32): every inner
 * chunk of a 512^3 uint16 array, decoded C-order into one hot buffer, copied by {@link
 * SlabView#scatterFrom} into its place in the 256 MiB output (huge-page advice and already
 * touched, as the output pool lends it): rows of 64 or 32 elements, 128 or 64 bytes. Beside it, the same rows copied
 * inline one {@code Unsafe.copyMemory} call per row (the stub call the scatter made before
 * 2026-11-26) and with 8-byte loads and stores. Scores are ms per 256 MiB output.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 6, time = 1)
@Fork(value = 1, jvmArgsAppend = "--add-opens=java.base/java.nio=ALL-UNNAMED")
public class SlabViewBenchmarks {
  static final int N = 512;
  static final int ITEM = 2;

  /** The inner chunk's edge: 64 (sharded_zstd) or 32 (sharded_128_32). */
  @Param({"64", "32"})
  int chunk;

  BufferAllocator allocator;
  ArrowBuf source;
  ArrowBuf output;
  SlabView[] views;

  @Setup(Level.Trial)
  public void setup() {
    allocator = new RootAllocator();
    long chunkBytes = (long) chunk * chunk * chunk * ITEM;
    source = allocator.buffer(chunkBytes);
    for (long i = 0; i < chunkBytes; i += 8) {
      source.setLong(i, i * 0x9E3779B97F4A7C15L);
    }
    long outBytes = (long) N * N * N * ITEM;
    output = allocator.buffer(outBytes);
    HugePages.advise(output.memoryAddress(), outBytes); // as ZarrArray advises a read's output
    output.setZero(0, outBytes);
    int per = N / chunk;
    views = new SlabView[per * per * per];
    int[] shape = {chunk, chunk, chunk};
    long[] start = {0, 0, 0};
    long[] step = {1, 1, 1};
    long[] count = {chunk, chunk, chunk};
    long[] stride = {(long) N * N * ITEM, (long) N * ITEM, ITEM};
    int v = 0;
    for (int z = 0; z < per; z++) {
      for (int y = 0; y < per; y++) {
        for (int x = 0; x < per; x++) {
          long offset = (((long) z * chunk * N + (long) y * chunk) * N + (long) x * chunk) * ITEM;
          views[v++] = new SlabView(output, offset, ITEM, shape, start, step, count, stride);
        }
      }
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    source.close();
    output.close();
    allocator.close();
  }

  /** zaro's scatter, whatever this build's {@link SlabView} does. */
  @Benchmark
  public long scatterFrom() {
    long bytes = source.capacity();
    for (SlabView view : views) {
      view.scatterFrom(source, bytes, 0);
    }
    return output.getLong(0);
  }

  /** One {@code Unsafe.copyMemory} per row. */
  @Benchmark
  public long rowsCopyMemory() {
    long src = source.memoryAddress();
    long rowBytes = (long) chunk * ITEM;
    for (SlabView view : views) {
      long dstPlane = output.memoryAddress() + view.offset();
      long s = src;
      for (int z = 0; z < chunk; z++) {
        long d = dstPlane + (long) z * N * N * ITEM;
        for (int y = 0; y < chunk; y++, s += rowBytes, d += (long) N * ITEM) {
          MemoryUtil.copyMemory(s, d, rowBytes);
        }
      }
    }
    return output.getLong(0);
  }

  /** Each row 8 bytes at a time. */
  @Benchmark
  public long rowsLongs() {
    long src = source.memoryAddress();
    int rowBytes = chunk * ITEM;
    for (SlabView view : views) {
      long dstPlane = output.memoryAddress() + view.offset();
      long s = src;
      for (int z = 0; z < chunk; z++) {
        long d = dstPlane + (long) z * N * N * ITEM;
        for (int y = 0; y < chunk; y++, s += rowBytes, d += (long) N * ITEM) {
          for (int i = 0; i < rowBytes; i += 8) {
            MemoryUtil.putLong(d + i, MemoryUtil.getLong(s + i));
          }
        }
      }
    }
    return output.getLong(0);
  }
}
