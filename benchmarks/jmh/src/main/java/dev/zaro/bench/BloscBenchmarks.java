package dev.zaro.bench;

import dev.zaro.arrow.codec.BytesToBytesCodec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
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
 * zaro's pure-Java blosc decoding 32 MiB of the formula's uint16 values, one frame per blosc
 * variant that c-blosc wrote (benchmarks/make_codec_frames.py). Their limit is c-blosc itself on
 * the same frames: run-jmh.sh prints its times after the JMH table.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--add-opens=java.base/java.nio=ALL-UNNAMED")
public class BloscBenchmarks {
  @Param({
    "lz4-shuffle-ts2",
    "lz4-noshuffle-ts2",
    "lz4-bitshuffle-ts2",
    "zstd-shuffle-ts2",
    "blosclz-shuffle-ts2"
  })
  public String frame;

  BufferAllocator allocator;
  ArrowBuf encoded;
  ArrowBuf target;
  BytesToBytesCodec codec;

  @Setup(Level.Trial)
  public void setup() throws Exception {
    allocator = new RootAllocator();
    byte[] bytes = Files.readAllBytes(Path.of("benchmarks/data/codec/" + frame + ".blosc"));
    encoded = CodecBenchmarks.copy(allocator, bytes);
    target = allocator.buffer(CodecBenchmarks.SIZE);
    codec =
        CodecBenchmarks.codec(
            "{\"name\":\"blosc\",\"configuration\":{\"cname\":\"lz4\",\"clevel\":5,"
                + "\"shuffle\":\"shuffle\",\"typesize\":2,\"blocksize\":0}}"); // frames describe
    // themselves
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    encoded.close();
    target.close();
    allocator.close();
  }

  @Benchmark
  public boolean decode() {
    return codec.decodeInto(encoded, target, 0, CodecBenchmarks.SIZE);
  }
}
