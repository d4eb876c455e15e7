package dev.zaro.arrow.codec.blosc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecCapability;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.codec.Scratch;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.exec.WorkRunner;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.internal.JsonDocument;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * {@code blosc}: a c-blosc 1.x frame (what numcodecs, zarr-python and tensorstore write), decoded
 * in pure Java: blosclz, lz4/lz4hc and snappy by zaro's own decoders, zlib by {@link
 * java.util.zip.Inflater}, zstd by zstd-jni; byte- and bit-unshuffle on buffer addresses.
 *
 * <p>Decoding follows the frame's own header (compressor, shuffle, typesize, block size, split
 * streams), never this configuration, which only describes how the data was (or would be) encoded.
 * Every size and offset in the frame is checked against the buffer before memory is read, and a
 * header whose decoded size its compressed data cannot produce is refused before anything is
 * allocated.
 *
 * @param cname the compressor: blosclz, lz4, lz4hc, snappy, zlib or zstd
 * @param clevel compression level 0..9
 * @param shuffle the shuffle filter
 * @param typesize the element size the shuffle works on
 * @param blocksize bytes per block, 0 for automatic
 */
public record BloscCodec(String cname, int clevel, Shuffle shuffle, int typesize, int blocksize)
    implements BytesToBytesCodec {

  /** The compressor names c-blosc knows. */
  public static final List<String> CNAMES =
      List.of("blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd");

  /** Shuffle filters, named as in the v3 configuration. */
  public enum Shuffle {
    NOSHUFFLE,
    SHUFFLE,
    BITSHUFFLE;

    /** The v3 configuration name ({@code "bitshuffle"}). */
    public String configName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public BloscCodec {
    if (!CNAMES.contains(cname)) {
      throw new CodecException(
          "codec blosc: unknown cname \""
              + cname
              + "\" (known: "
              + String.join(", ", CNAMES)
              + ")");
    }
    if (clevel < 0 || clevel > 9) {
      throw new CodecException("codec blosc: clevel must be 0..9, not " + clevel);
    }
    if (shuffle == null) {
      throw new CodecException("codec blosc: shuffle is missing");
    }
    if (typesize < 1) {
      throw new CodecException("codec blosc: typesize must be positive, not " + typesize);
    }
    if (blocksize < 0) {
      throw new CodecException(
          "codec blosc: blocksize must be 0 (automatic) or positive, not " + blocksize);
    }
  }

  /**
   * The v3 codec {@code {"name": "blosc", "configuration": {cname, clevel, shuffle, typesize,
   * blocksize}}} for chunks of {@code input}. Missing fields take tensorstore's defaults: lz4,
   * level 5, typesize the element size, bit-shuffle for 1-byte elements else byte-shuffle,
   * automatic block size.
   *
   * @throws CodecException if a field is unknown or invalid
   */
  public static BloscCodec create(CodecSpec spec, ChunkSpec input) {
    CodecConfig config =
        new CodecConfig(spec).only("cname", "clevel", "shuffle", "typesize", "blocksize");
    int elementSize = Math.max(1, input.dataType().byteSize());
    int typesize = config.intValue("typesize", elementSize);
    String shuffleName = config.string("shuffle", typesize == 1 ? "bitshuffle" : "shuffle");
    Shuffle shuffle =
        switch (shuffleName) {
          case "noshuffle" -> Shuffle.NOSHUFFLE;
          case "shuffle" -> Shuffle.SHUFFLE;
          case "bitshuffle" -> Shuffle.BITSHUFFLE;
          default ->
              throw config.error(
                  "shuffle must be \"noshuffle\", \"shuffle\" or \"bitshuffle\", not \""
                      + shuffleName
                      + "\"");
        };
    return new BloscCodec(
        config.string("cname", "lz4"),
        config.intValue("clevel", 5),
        shuffle,
        typesize,
        config.intValue("blocksize", 0));
  }

  /**
   * The codec a Zarr v2 {@code compressor} (numcodecs {@code {"id": "blosc", "cname", "clevel",
   * "shuffle", "blocksize"}}) describes for elements of {@code itemSize} bytes. Shuffle is 0
   * (none), 1 (byte), 2 (bit) or -1 (automatic: bit-shuffle for 1-byte elements, else byte);
   * missing fields take numcodecs' defaults (lz4, level 5, byte-shuffle, automatic block size).
   *
   * @throws CodecException if the configuration is not a valid blosc compressor
   */
  public static BloscCodec fromNumcodecs(JsonNode compressor, int itemSize) {
    if (compressor == null || !compressor.isObject()) {
      throw new CodecException(
          "codec blosc: compressor must be an object, not "
              + (compressor == null ? "nothing" : JsonDocument.describe(compressor)));
    }
    JsonNode id = compressor.get("id");
    if (id != null && !(id.isTextual() && id.textValue().equals("blosc"))) {
      throw new CodecException("codec blosc: compressor id is " + id + ", not \"blosc\"");
    }
    var names = compressor.fieldNames();
    while (names.hasNext()) {
      String f = names.next();
      if (!List.of("id", "cname", "clevel", "shuffle", "blocksize", "typesize").contains(f)) {
        throw new CodecException(
            "codec blosc: unknown compressor field '"
                + f
                + "' (known: id, cname, clevel, shuffle, blocksize, typesize)");
      }
    }
    String cname = text(compressor, "cname", "lz4");
    int clevel = integer(compressor, "clevel", 5);
    int typesize = integer(compressor, "typesize", Math.max(1, itemSize));
    int code = integer(compressor, "shuffle", 1);
    Shuffle shuffle =
        switch (code) {
          case 0 -> Shuffle.NOSHUFFLE;
          case 1 -> Shuffle.SHUFFLE;
          case 2 -> Shuffle.BITSHUFFLE;
          case -1 -> itemSize == 1 ? Shuffle.BITSHUFFLE : Shuffle.SHUFFLE;
          default ->
              throw new CodecException("codec blosc: shuffle must be 0, 1, 2 or -1, not " + code);
        };
    return new BloscCodec(cname, clevel, shuffle, typesize, integer(compressor, "blocksize", 0));
  }

  private static String text(JsonNode config, String field, String defaultValue) {
    JsonNode node = config.get(field);
    if (node == null || node.isNull()) {
      return defaultValue;
    }
    if (!node.isTextual()) {
      throw new CodecException(
          "codec blosc: compressor field '"
              + field
              + "' must be a string, not "
              + JsonDocument.describe(node));
    }
    return node.textValue();
  }

  private static int integer(JsonNode config, String field, int defaultValue) {
    JsonNode node = config.get(field);
    if (node == null || node.isNull()) {
      return defaultValue;
    }
    if (!node.isIntegralNumber() || !node.canConvertToInt()) {
      throw new CodecException(
          "codec blosc: compressor field '"
              + field
              + "' must be an integer, not "
              + JsonDocument.describe(node));
    }
    return node.intValue();
  }

  @Override
  public String name() {
    return "blosc";
  }

  @Override
  public Set<CodecCapability> capabilities() {
    return Set.of(
        CodecCapability.DECODE_IN_PLACE,
        CodecCapability.DECODE_RANGE,
        CodecCapability.DECODE_STREAMING);
  }

  /**
   * Decodes the frame in {@code encoded[0, writerIndex)} (not closed here; bytes after the frame's
   * {@code cbytes} are ignored).
   *
   * @param decodedSize the exact decoded size, or -1 to take the header's (after checking that the
   *     frame's streams can produce it)
   * @return a new buffer of the decoded bytes that the caller closes
   */
  @Override
  public ArrowBuf decode(ArrowBuf encoded, long decodedSize, BufferAllocator allocator) {
    BloscHeader h = header(encoded, decodedSize);
    BloscDecoder.validate(h, encoded.memoryAddress());
    ArrowBuf out = allocator.buffer(h.nbytes());
    try {
      BloscDecoder.decode(h, encoded.memoryAddress(), out.memoryAddress());
      out.writerIndex(h.nbytes());
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
  }

  /**
   * Decodes straight into {@code target[offset, offset + size)}; {@code target} stays owned by the
   * caller, {@code encoded} is not closed. Nothing outside the region is written. A frame whose
   * header or block table is bad fails before anything is written; a corrupt stream found while
   * decoding leaves the region partly written.
   *
   * @return true (blosc always decodes in place)
   */
  @Override
  public boolean decodeInto(ArrowBuf encoded, ArrowBuf target, long offset, long size) {
    return decodeInto(encoded, target, offset, size, null);
  }

  /** With lent threads, independent blocks decode in parallel (contiguous runs of blocks each). */
  @Override
  public boolean decodeInto(
      ArrowBuf encoded, ArrowBuf target, long offset, long size, Scratch scratch) {
    BytesToBytesCodec.checkRegion(target, offset, size);
    BloscHeader h = header(encoded, size);
    BloscDecoder.validate(h, encoded.memoryAddress());
    long dst = target.memoryAddress() + offset;
    if (scratch == null || scratch.helpers() < 1 || size < PARALLEL_ABOVE) {
      BloscDecoder.decode(h, encoded.memoryAddress(), dst);
      return true;
    }
    int blocks = h.blockCount();
    int parts = Math.min(scratch.helpers() + 1, blocks);
    List<Runnable> runs = new ArrayList<>(parts);
    for (int p = 0; p < parts; p++) {
      long from = (long) blocks * p / parts * h.blocksize();
      long to = Math.min(size, (long) blocks * (p + 1) / parts * h.blocksize());
      runs.add(() -> BloscDecoder.decode(h, encoded.memoryAddress(), dst, from, to));
    }
    WorkRunner.run(runs, scratch.helperExecutor(), parts - 1);
    return true;
  }

  /** Chunks at least this large split their blocks over lent threads. */
  static final long PARALLEL_ABOVE = 1L << 20;

  /**
   * Decodes block by block through {@code window} (when a block fits in it and blocks hold whole
   * elements), so a large chunk needs no buffer of its own.
   */
  @Override
  public boolean decodeStreaming(
      ArrowBuf encoded, long decodedSize, ArrowBuf window, int unit, Sink sink) {
    BloscHeader h = header(encoded, decodedSize);
    if (h.blocksize() > window.capacity() || h.blocksize() % unit != 0) {
      return false;
    }
    BloscDecoder.validate(h, encoded.memoryAddress());
    long windowAddress = window.memoryAddress();
    BloscDecoder.decodeThrough(
        h,
        encoded.memoryAddress(),
        windowAddress,
        (i, address, size) -> {
          if (address != windowAddress) { // a memcpyed frame: the block is the frame's own bytes
            window.setBytes(0, encoded, address - encoded.memoryAddress(), size);
          }
          sink.accept(window, 0, (long) i * h.blocksize(), size);
        });
    return true;
  }

  /**
   * Decodes only the blocks that hold bytes {@code [from, to)}, each at its offset in {@code
   * target}.
   */
  @Override
  public boolean decodeRange(
      ArrowBuf encoded, ArrowBuf target, long size, long from, long to, Scratch scratch) {
    if (from < 0 || to < from || to > size || size > target.capacity()) {
      throw new IllegalArgumentException(
          "bytes ["
              + from
              + ", "
              + to
              + ") of "
              + size
              + " in a "
              + target.capacity()
              + "-byte target");
    }
    BloscHeader h = header(encoded, size);
    BloscDecoder.validate(h, encoded.memoryAddress());
    BloscDecoder.decode(h, encoded.memoryAddress(), target.memoryAddress(), from, to);
    return true;
  }

  private static BloscHeader header(ArrowBuf encoded, long decodedSize) {
    if (!MemoryUtil.LITTLE_ENDIAN) {
      throw new CodecException("codec blosc: big-endian platforms are not supported");
    }
    BloscHeader h = BloscHeader.read(encoded);
    if (decodedSize >= 0 && h.nbytes() != decodedSize) {
      throw new CodecException(
          "codec blosc: frame holds " + h.nbytes() + " decoded bytes, expected " + decodedSize);
    }
    return h;
  }
}
