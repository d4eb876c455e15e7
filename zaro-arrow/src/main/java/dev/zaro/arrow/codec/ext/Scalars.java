package dev.zaro.arrow.codec.ext;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.error.MetadataException;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;

/** Configuration scalars of the numeric extension codecs. */
final class Scalars {
  private Scalars() {}

  /**
   * The bits of a scalar written, as the extension specs ask, in the fill value encoding of {@code
   * type} (numbers, "NaN", "Infinity", "0x..." raw bits).
   */
  static long parse(CodecConfig config, String field, JsonNode node, DataType type) {
    if (node == null || node.isNull()) {
      throw config.error(field + " is missing");
    }
    try {
      return RealCast.bits(FillValue.parse(node, type, field).bytes());
    } catch (MetadataException e) {
      throw config.error(e.getMessage().replace("fill_value", "value"));
    }
  }
}
