package dev.zaro.arrow.codec.numcodecs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import dev.zaro.arrow.metadata.internal.JsonDocument;
import dev.zaro.arrow.metadata.internal.NumpyDtype;
import java.util.function.Consumer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Configuration and buffer helpers shared by the numcodecs filters and the numeric v3 array codecs.
 */
public final class Filters {
  private Filters() {}

  /** The data type a configuration field names (a numpy type string), or {@code absent}. */
  static DataType type(CodecConfig config, String field, DataType absent) {
    JsonNode node = config.node(field);
    if (node == null) {
      return absent;
    }
    if (!node.isTextual()) {
      throw config.error(
          "configuration field '"
              + field
              + "' must be a numpy type string such as \"<i4\", not "
              + JsonDocument.describe(node));
    }
    try {
      return NumpyDtype.parse(node.textValue()).dataType();
    } catch (IllegalArgumentException e) {
      throw config.error("configuration field '" + field + "': " + e.getMessage());
    }
  }

  /** Checks that a configured decoded type is the type of the chunks the codec decodes to. */
  static DataType decodedType(CodecConfig config, String field, ChunkSpec input) {
    DataType type = type(config, field, input.dataType());
    if (!type.equals(input.dataType())) {
      throw config.error(
          field + " " + type + " differs from the " + input.dataType() + " elements it decodes to");
    }
    return type;
  }

  /** Refuses types the numeric filters cannot work on. */
  static void numeric(CodecConfig config, DataType type, boolean allowBool) {
    if (!Elements.isNumeric(type) || (!allowBool && type.kind() == DataType.Kind.BOOL)) {
      throw config.error("does not support " + type + " elements");
    }
  }

  static ChunkSpec withType(ChunkSpec spec, DataType type) {
    return type.equals(spec.dataType())
        ? spec
        : new ChunkSpec(spec.shape(), type, FillValue.zero(type));
  }

  /** Checks an encoded chunk array's size; returns its element count. */
  public static long elements(
      String codec, ArrowBuf encoded, ChunkSpec decoded, DataType encodedType) {
    long n = decoded.elementCount();
    long expected = n * encodedType.byteSize();
    if (encoded.writerIndex() != expected) {
      throw new CodecException(
          "codec "
              + codec
              + ": encoded array has "
              + encoded.writerIndex()
              + " bytes, expected "
              + expected
              + " ("
              + n
              + " "
              + encodedType
              + " elements)");
    }
    return n;
  }

  /** A new buffer for a decoded chunk array, released if {@code fill} fails. */
  public static ArrowBuf decodeTo(
      BufferAllocator allocator, ChunkSpec decoded, Consumer<ArrowBuf> fill) {
    ArrowBuf out = allocator.buffer(Math.max(1, decoded.byteSize()));
    try {
      fill.accept(out);
      out.writerIndex(decoded.byteSize());
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
  }

  /** A copy of a chunk array whose values a codec leaves unchanged. */
  static ArrowBuf copy(
      String codec, ArrowBuf encoded, ChunkSpec decoded, BufferAllocator allocator) {
    elements(codec, encoded, decoded, decoded.dataType());
    return decodeTo(allocator, decoded, out -> out.setBytes(0, encoded, 0, decoded.byteSize()));
  }
}
