package dev.zaro.arrow.codec.ext;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.codec.ArrayToArrayCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.codec.numcodecs.Filters;
import dev.zaro.arrow.error.MetadataException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import dev.zaro.arrow.metadata.internal.JsonDocument;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * {@code cast_value} {data_type, rounding, out_of_range, scalar_map} (zarr-extensions): chunks are
 * stored as {@code data_type}; decoding casts each value back to the array's type by value ({@link
 * RealCast}: {@code scalar_map.decode}, exact values, then rounding and {@code out_of_range}). The
 * stored fill value is the array's, cast the other way ({@code scalar_map.encode}); a fill value
 * that cannot be cast is refused when the array opens.
 */
public final class CastValueCodec implements ArrayToArrayCodec {
  private final DataType stored;
  private final RealCast decode;
  private final FillValue storedFill;

  private CastValueCodec(DataType stored, RealCast decode, FillValue storedFill) {
    this.stored = stored;
    this.decode = decode;
    this.storedFill = storedFill;
  }

  static CastValueCodec create(CodecSpec spec, ChunkSpec input) {
    CodecConfig config =
        new CodecConfig(spec).only("data_type", "rounding", "out_of_range", "scalar_map");
    DataType array = input.dataType();
    if (!RealCast.isCastable(array)) {
      throw config.error("casts integer and float values, not " + array + " elements");
    }
    DataType stored = dataType(config);
    RealCast.Rounding rounding =
        enumValue(config, "rounding", RealCast.Rounding.NEAREST_EVEN, RealCast.Rounding.values());
    RealCast.OutOfRange outOfRange =
        enumValue(
            config,
            "out_of_range",
            RealCast.OutOfRange.ERROR,
            RealCast.OutOfRange.CLAMP,
            RealCast.OutOfRange.WRAP);
    boolean wraps = outOfRange == RealCast.OutOfRange.WRAP;
    if (wraps && (RealCast.isFloat(stored) || RealCast.isFloat(array))) {
      throw config.error(
          "out_of_range \"wrap\" needs integer types on both sides, not "
              + array
              + " and "
              + stored);
    }
    JsonNode scalarMap = config.node("scalar_map");
    if (scalarMap != null && !scalarMap.isObject()) {
      throw config.error(
          "scalar_map must be an object with optional encode and decode lists, not "
              + JsonDocument.describe(scalarMap));
    }
    if (scalarMap != null) {
      scalarMap
          .fieldNames()
          .forEachRemaining(
              f -> {
                if (!f.equals("encode") && !f.equals("decode")) {
                  throw config.error(
                      "unknown scalar_map field '" + f + "' (known: encode, decode)");
                }
              });
    }
    RealCast encode =
        new RealCast(
            spec.name(),
            array,
            stored,
            rounding,
            outOfRange,
            mappings(config, scalarMap, "encode", array, stored));
    RealCast decode =
        new RealCast(
            spec.name(),
            stored,
            array,
            rounding,
            outOfRange,
            mappings(config, scalarMap, "decode", stored, array));
    return new CastValueCodec(
        stored, decode, storedFill(config, encode, input.fillValue(), stored));
  }

  private static DataType dataType(CodecConfig config) {
    JsonNode node = config.node("data_type");
    if (node == null) {
      throw config.error("configuration field 'data_type' is missing");
    }
    JsonNode name = node.isObject() ? node.get("name") : node;
    if (name == null || !name.isTextual() || (node.isObject() && node.has("configuration"))) {
      throw config.error(
          "data_type must be a data type name such as \"uint8\", not "
              + JsonDocument.describe(node));
    }
    DataType type;
    try {
      type = DataType.ofV3Name(name.textValue(), "data_type");
    } catch (MetadataException e) {
      throw config.error(e.getMessage());
    }
    if (!RealCast.isCastable(type)) {
      throw config.error("data_type must be an integer or float type, not " + name.textValue());
    }
    return type;
  }

  @SafeVarargs
  private static <E extends Enum<E>> E enumValue(
      CodecConfig config, String field, E absent, E... allowed) {
    String text = config.string(field, null);
    if (text == null) {
      return absent;
    }
    List<String> names = new ArrayList<>();
    for (E e : allowed) {
      String name = e.name().toLowerCase(Locale.ROOT).replace('_', '-');
      if (name.equals(text)) {
        return e;
      }
      names.add("\"" + name + "\"");
    }
    throw config.error(
        field + " must be one of " + String.join(", ", names) + ", not \"" + text + "\"");
  }

  /** scalar_map.{which}: [[input, output], ...], the first of repeated inputs winning. */
  private static List<RealCast.Mapping> mappings(
      CodecConfig config, JsonNode scalarMap, String which, DataType from, DataType to) {
    JsonNode list = scalarMap == null ? null : scalarMap.get(which);
    List<RealCast.Mapping> out = new ArrayList<>();
    if (list == null || list.isNull()) {
      return out;
    }
    if (!list.isArray()) {
      throw config.error(
          "scalar_map."
              + which
              + " must be a list of [input, output] pairs, not "
              + JsonDocument.describe(list));
    }
    for (int i = 0; i < list.size(); i++) {
      JsonNode pair = list.get(i);
      String where = "scalar_map." + which + "[" + i + "]";
      if (!pair.isArray() || pair.size() != 2) {
        throw config.error(
            where + " must be an [input, output] pair, not " + JsonDocument.describe(pair));
      }
      out.add(
          RealCast.mapping(
              from,
              Scalars.parse(config, where + "[0]", pair.get(0), from),
              Scalars.parse(config, where + "[1]", pair.get(1), to)));
    }
    return out;
  }

  private static FillValue storedFill(
      CodecConfig config, RealCast encode, FillValue fill, DataType stored) {
    try {
      return new FillValue(
          RealCast.bytes(encode.cast(RealCast.bits(fill.bytes())), stored.byteSize()));
    } catch (ZaroException e) {
      throw config.error(
          "the array's fill value cannot be stored as "
              + stored
              + ": "
              + e.getMessage().replaceFirst("^codec [^:]+: ", ""));
    }
  }

  @Override
  public String name() {
    return "cast_value";
  }

  /** The stored data type. */
  public DataType storedType() {
    return stored;
  }

  @Override
  public ChunkSpec encodedSpec(ChunkSpec decoded) {
    return new ChunkSpec(decoded.shape(), stored, storedFill);
  }

  @Override
  public ArrowBuf decode(ArrowBuf encoded, ChunkSpec decoded, BufferAllocator allocator) {
    long n = Filters.elements(name(), encoded, decoded, stored);
    return Filters.decodeTo(allocator, decoded, out -> decode.castAll(encoded, out, n));
  }
}
