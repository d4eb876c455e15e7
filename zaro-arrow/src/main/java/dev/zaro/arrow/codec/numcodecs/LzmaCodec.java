package dev.zaro.arrow.codec.numcodecs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.codec.CodecCapability;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.internal.JsonDocument;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.tukaani.xz.BasicArrayCache;
import org.tukaani.xz.DeltaInputStream;
import org.tukaani.xz.LZMA2InputStream;
import org.tukaani.xz.LZMA2Options;
import org.tukaani.xz.LZMAInputStream;
import org.tukaani.xz.XZInputStream;

/**
 * numcodecs {@code lzma} {format, check, preset, filters}, decoded by XZ for Java as Python's
 * {@code lzma.decompress(buf, format, filters)} does: format 1 (xz, the default; concatenated
 * streams, integrity check verified), 2 (legacy .lzma "alone"), 0 (auto: xz or alone), or 3 (raw)
 * with a filter chain of an optional delta filter and one LZMA1 or LZMA2 filter. Decoder memory
 * (the dictionary) is limited to {@value #MEMORY_LIMIT_KIB} KiB.
 */
public record LzmaCodec(int format, List<RawFilter> filters) implements BytesToBytesCodec {

  public static final int FORMAT_AUTO = 0;
  public static final int FORMAT_XZ = 1;
  public static final int FORMAT_ALONE = 2;
  public static final int FORMAT_RAW = 3;

  /** Python's lzma filter ids. */
  static final long FILTER_LZMA1 = 0x4000000000000001L;

  static final long FILTER_LZMA2 = 0x21;
  static final long FILTER_DELTA = 0x03;

  /** Decoder memory limit: enough for preset 9 (a 64 MiB dictionary). */
  static final int MEMORY_LIMIT_KIB = 128 * 1024;

  /** One raw filter: its id and, for LZMA1/2, the dictionary size and literal/position bits. */
  public record RawFilter(long id, int dictSize, int lc, int lp, int pb, int dist) {}

  public LzmaCodec {
    filters = List.copyOf(filters);
  }

  static LzmaCodec create(CodecSpec spec) {
    CodecConfig config = new CodecConfig(spec).only("format", "check", "preset", "filters");
    int format = config.intValue("format", FORMAT_XZ);
    config.intValue("check", -1);
    JsonNode preset = config.node("preset");
    if (preset != null && !preset.isIntegralNumber()) {
      throw config.error(
          "configuration field 'preset' must be an integer, not " + JsonDocument.describe(preset));
    }
    if (format < 0 || format > 3) {
      throw config.error("format must be 0 (auto), 1 (xz), 2 (alone) or 3 (raw), not " + format);
    }
    List<RawFilter> filters = new ArrayList<>();
    JsonNode list = config.node("filters");
    if (format == FORMAT_RAW) {
      if (list == null || !list.isArray() || list.isEmpty()) {
        throw config.error("format 3 (raw) needs a list of filters");
      }
      for (int i = 0; i < list.size(); i++) {
        filters.add(rawFilter(config, i, list.get(i)));
      }
      long last = filters.get(filters.size() - 1).id();
      if (last != FILTER_LZMA1 && last != FILTER_LZMA2) {
        throw config.error("the last raw filter must be LZMA1 or LZMA2");
      }
      for (int i = 0; i < filters.size() - 1; i++) {
        if (filters.get(i).id() != FILTER_DELTA) {
          throw config.error(
              "raw filter "
                  + i
                  + " (id "
                  + filters.get(i).id()
                  + ") is not supported before the"
                  + " last one (only delta is)");
        }
      }
    } else if (list != null && !(list.isArray() && list.isEmpty())) {
      throw config.error(
          "filters are only read with format 3 (raw), found " + JsonDocument.describe(list));
    }
    return new LzmaCodec(format, filters);
  }

  private static RawFilter rawFilter(CodecConfig config, int i, JsonNode f) {
    if (!f.isObject() || !f.path("id").canConvertToLong() || !f.path("id").isIntegralNumber()) {
      throw config.error(
          "filter "
              + i
              + " must be an object with an integer \"id\", not "
              + JsonDocument.describe(f));
    }
    long id = f.get("id").longValue();
    if (id == FILTER_DELTA) {
      int dist = f.path("dist").asInt(1);
      if (dist < 1 || dist > 256) {
        throw config.error("filter " + i + " (delta): dist must be 1..256, not " + dist);
      }
      return new RawFilter(id, 0, 0, 0, 0, dist);
    }
    if (id != FILTER_LZMA1 && id != FILTER_LZMA2) {
      throw config.error(
          "filter "
              + i
              + ": id "
              + id
              + " is not supported (LZMA1 "
              + FILTER_LZMA1
              + ", LZMA2 "
              + FILTER_LZMA2
              + " and delta "
              + FILTER_DELTA
              + " are)");
    }
    int preset = (int) (f.path("preset").asLong(6) & 0x1f);
    if (preset > 9) {
      throw config.error("filter " + i + ": preset must be 0..9, not " + preset);
    }
    LZMA2Options options;
    try {
      options = new LZMA2Options(preset);
    } catch (Exception e) {
      throw config.error("filter " + i + ": " + e.getMessage());
    }
    long dictSize = f.has("dict_size") ? f.get("dict_size").asLong() : options.getDictSize();
    int lc = f.has("lc") ? f.get("lc").asInt() : options.getLc();
    int lp = f.has("lp") ? f.get("lp").asInt() : options.getLp();
    int pb = f.has("pb") ? f.get("pb").asInt() : options.getPb();
    if (dictSize < 4096
        || dictSize > (long) MEMORY_LIMIT_KIB * 1024
        || lc < 0
        || lp < 0
        || lc + lp > 4
        || pb < 0
        || pb > 4) {
      throw config.error(
          "filter "
              + i
              + ": dict_size "
              + dictSize
              + ", lc "
              + lc
              + ", lp "
              + lp
              + ", pb "
              + pb
              + " are out of range (dict_size 4 KiB.."
              + MEMORY_LIMIT_KIB / 1024
              + " MiB, lc + lp <= 4, pb <= 4)");
    }
    return new RawFilter(id, (int) dictSize, lc, lp, pb, 0);
  }

  @Override
  public String name() {
    return "numcodecs.lzma";
  }

  @Override
  public Set<CodecCapability> capabilities() {
    return Set.of(CodecCapability.DECODE_IN_PLACE);
  }

  private InputStream open(InputStream in) throws IOException {
    BasicArrayCache cache = BasicArrayCache.getInstance();
    return switch (format) {
      case FORMAT_XZ -> new XZInputStream(in, MEMORY_LIMIT_KIB, true, cache);
      case FORMAT_ALONE -> new LZMAInputStream(in, MEMORY_LIMIT_KIB, cache);
      case FORMAT_AUTO -> {
        BufferedInputStream b = new BufferedInputStream(in, 8);
        b.mark(6);
        byte[] magic = b.readNBytes(6);
        b.reset();
        boolean xz =
            magic.length == 6
                && (magic[0] & 0xff) == 0xfd
                && magic[1] == '7'
                && magic[2] == 'z'
                && magic[3] == 'X'
                && magic[4] == 'Z'
                && magic[5] == 0;
        yield xz
            ? new XZInputStream(b, MEMORY_LIMIT_KIB, true, cache)
            : new LZMAInputStream(b, MEMORY_LIMIT_KIB, cache);
      }
      default -> {
        RawFilter last = filters.get(filters.size() - 1);
        InputStream s =
            last.id() == FILTER_LZMA2
                ? new LZMA2InputStream(in, last.dictSize())
                : new LZMAInputStream(
                    in, -1, last.lc(), last.lp(), last.pb(), last.dictSize(), null, cache);
        for (int i = filters.size() - 2; i >= 0; i--) {
          s = new DeltaInputStream(s, filters.get(i).dist());
        }
        yield s;
      }
    };
  }

  @Override
  public ArrowBuf decode(ArrowBuf encoded, long decodedSize, BufferAllocator allocator) {
    return StreamDecoder.decode(name(), this::open, encoded, decodedSize, allocator);
  }

  @Override
  public boolean decodeInto(ArrowBuf encoded, ArrowBuf target, long offset, long size) {
    return StreamDecoder.decodeInto(name(), this::open, encoded, target, offset, size);
  }
}
