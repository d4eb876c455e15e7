package dev.zaro.bench;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import java.util.zip.GZIPOutputStream;
import java.util.zip.Inflater;
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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Each zaro codec decoding a 32 MiB uint16 chunk (the benchmark formula's values, as in
 * benchmarks/make_datasets.py), beside its limit on this machine: the raw library call on the
 * same bytes (zstd-jni, Inflater, CRC32C) and memcpy of the decoded size. Scores are ms per
 * decode; GB/s = 33.55 / score.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--add-opens=java.base/java.nio=ALL-UNNAMED")
public class CodecBenchmarks {
  static final int N = 128;
  static final long SIZE = 2L * N * N * N * 8;

  BufferAllocator allocator;
  ArrowBuf raw;
  ArrowBuf target;
  ArrowBuf zstd;
  ArrowBuf gzip;
  ArrowBuf crc;
  ArrowBuf blosc;
  byte[] gzipBytes;
  BytesToBytesCodec zstdCodec;
  BytesToBytesCodec gzipCodec;
  BytesToBytesCodec crcCodec;
  BytesToBytesCodec bloscCodec;

  static ArrowBuf copy(BufferAllocator a, byte[] b) {
    ArrowBuf buf = a.buffer(b.length);
    buf.setBytes(0, b);
    buf.writerIndex(b.length);
    return buf;
  }

  static BytesToBytesCodec codec(String json) throws Exception {
    var node = Json.readTree(json);
    return (BytesToBytesCodec) CodecRegistry.defaults().create(new CodecSpec(node.get("name").asText(),
        node.get("configuration")), new ChunkSpec(new int[] {(int) (SIZE / 2)}, DataType.UINT16,
        FillValue.zero(DataType.UINT16)));
  }

  @Setup(Level.Trial)
  public void setup() throws Exception {
    allocator = new RootAllocator();
    ByteBuffer values = ByteBuffer.allocate((int) SIZE).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    for (long z = 0; z < 2L * N; z++) {
      for (long y = 0; y < 2L * N; y++) {
        for (long x = 0; x < 2L * N; x++) {
          values.putShort((short) ((x + y * y / 32 + z * z * z) % 65536));
        }
      }
    }
    byte[] data = values.array();
    raw = copy(allocator, data);
    target = allocator.buffer(SIZE);
    try (ZstdCompressCtx ctx = new ZstdCompressCtx()) {
      ctx.setLevel(3);
      zstd = copy(allocator, ctx.compress(data));
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(data);
    }
    gzipBytes = out.toByteArray();
    gzip = copy(allocator, gzipBytes);
    CRC32C c = new CRC32C();
    c.update(data);
    crc = copy(allocator, ByteBuffer.allocate(data.length + 4).order(java.nio.ByteOrder.LITTLE_ENDIAN)
        .put(data).putInt((int) c.getValue()).array());
    Path frame = Path.of(System.getProperty("zaro.blosc.frame", "benchmarks/data/codec/lz4-shuffle-ts2.blosc"));
    if (Files.exists(frame)) {
      blosc = copy(allocator, Files.readAllBytes(frame));
    }
    zstdCodec = codec("{\"name\":\"zstd\",\"configuration\":{\"level\":3}}");
    gzipCodec = codec("{\"name\":\"gzip\",\"configuration\":{\"level\":6}}");
    crcCodec = codec("{\"name\":\"crc32c\"}");
    bloscCodec = codec("{\"name\":\"blosc\",\"configuration\":{\"cname\":\"lz4\",\"clevel\":5,"
        + "\"shuffle\":\"shuffle\",\"typesize\":2,\"blocksize\":0}}");
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    for (ArrowBuf b : new ArrowBuf[] {raw, target, zstd, gzip, crc, blosc}) {
      if (b != null) {
        b.close();
      }
    }
    allocator.close();
  }

  @Benchmark
  public void memcpyLimit() {
    MemoryUtil.copyMemory(raw.memoryAddress(), target.memoryAddress(), SIZE);
  }

  @Benchmark
  public boolean zstdZaro() {
    return zstdCodec.decodeInto(zstd, target, 0, SIZE);
  }

  @Benchmark
  public long zstdJniLimit() {
    return Zstd.decompressUnsafe(target.memoryAddress(), SIZE, zstd.memoryAddress(), zstd.writerIndex());
  }

  @Benchmark
  public boolean gzipZaro() {
    return gzipCodec.decodeInto(gzip, target, 0, SIZE);
  }

  @Benchmark
  public int inflaterLimit() throws Exception {
    Inflater inflater = new Inflater(true);
    try {
      inflater.setInput(gzip.nioBuffer(10, (int) gzip.writerIndex() - 18));
      return inflater.inflate(target.nioBuffer(0, (int) SIZE));
    } finally {
      inflater.end();
    }
  }

  @Benchmark
  public void crc32cZaro() {
    crcCodec.decode(crc, SIZE, allocator).close();
  }

  @Benchmark
  public long crc32cLimit() {
    CRC32C c = new CRC32C();
    c.update(raw.nioBuffer(0, (int) SIZE));
    return c.getValue();
  }

  /** blosc variants and their c-blosc limits: {@link BloscBenchmarks}. */
  @Benchmark
  public boolean bloscLz4ShuffleZaro() {
    return blosc != null && bloscCodec.decodeInto(blosc, target, 0, SIZE);
  }
}
