package dev.zaro.flight;

import java.lang.reflect.Field;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.compression.NoCompressionCodec;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;

/**
 * Arrow IPC buffer compression of a stream (docs/contracts.md, "Compression on the wire"): none,
 * zstd or lz4 (LZ4_FRAME), as a Flight command's {@code "compression"} or HTTP's {@code
 * ?compression=} asks. The batches carry Arrow's BodyCompression field, so pyarrow, Arrow JS, R and
 * polars decompress them without being told.
 */
public enum WireCompression {
  /** Buffers as they are. */
  NONE(CompressionUtil.CodecType.NO_COMPRESSION),
  /** Zstandard, level 3 (arrow-compression's default). */
  ZSTD(CompressionUtil.CodecType.ZSTD),
  /** LZ4 frame format (compressed by {@link Lz4FrameCodec}). */
  LZ4(CompressionUtil.CodecType.LZ4_FRAME);

  private final CompressionUtil.CodecType type;

  WireCompression(CompressionUtil.CodecType type) {
    this.type = type;
  }

  /** The option's value: "" or null is {@link #NONE}, else "none", "zstd" or "lz4". */
  public static WireCompression parse(String name) {
    if (name == null || name.isEmpty()) {
      return NONE;
    }
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "none" -> NONE;
      case "zstd" -> ZSTD;
      case "lz4", "lz4_frame" -> LZ4;
      default ->
          throw CallStatus.INVALID_ARGUMENT
              .withDescription(
                  "compression must be \"zstd\", \"lz4\" or \"none\", not \"" + name + "\"")
              .toRuntimeException();
    };
  }

  /** The name a request spells this with ("" for none). */
  public String option() {
    return this == NONE ? "" : name().toLowerCase(Locale.ROOT);
  }

  /** A new codec (codecs are cheap; one per stream keeps them unshared). */
  public CompressionCodec codec() {
    return switch (this) {
      case NONE -> NoCompressionCodec.INSTANCE;
      case LZ4 -> new Lz4FrameCodec();
      case ZSTD -> CommonsCompressionFactory.INSTANCE.createCodec(type);
    };
  }

  /**
   * An unloader of {@code root} that compresses with this codec and adds each batch's body bytes
   * (what goes on the wire, after compression) to {@code wireBytes}.
   */
  public VectorUnloader unloader(VectorSchemaRoot root, LongAdder wireBytes) {
    return new VectorUnloader(root, true, codec(), true) {
      @Override
      public ArrowRecordBatch getRecordBatch() {
        ArrowRecordBatch batch = super.getRecordBatch();
        wireBytes.add(batch.computeBodyLength());
        return batch;
      }
    };
  }

  private static final Class<?> LISTENER;
  private static final Field UNLOADER;

  static {
    try {
      LISTENER = Class.forName("org.apache.arrow.flight.OutboundStreamListenerImpl");
      UNLOADER = LISTENER.getDeclaredField("unloader");
      UNLOADER.setAccessible(true);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * Makes a started Flight stream send its batches through {@link #unloader}. Flight Java 18 has no
   * public way to choose a stream's codec: its listener unloads {@code root} with an uncompressed
   * unloader made in {@code start}, so this replaces that field (the field is looked up once when
   * this class loads; a listener of another class fails clearly).
   */
  public void install(ServerStreamListener listener, VectorSchemaRoot root, LongAdder wireBytes) {
    if (!LISTENER.isInstance(listener)) {
      throw CallStatus.INTERNAL
          .withDescription(
              "this Flight listener ("
                  + listener.getClass().getName()
                  + ") does not let zaro choose the stream's compression")
          .toRuntimeException();
    }
    try {
      UNLOADER.set(listener, unloader(root, wireBytes));
    } catch (IllegalAccessException e) {
      throw CallStatus.INTERNAL.withDescription(e.toString()).toRuntimeException();
    }
  }
}
