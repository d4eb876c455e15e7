package dev.zaro.arrow.codec.numcodecs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.codec.ArrayToArrayCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.codec.VarHeap;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.internal.JsonDocument;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * numcodecs {@code categorize} {labels, dtype, astype}: text stored as integer codes of type {@code
 * astype}, 0 for a value that is none of the labels (decoded as the empty string), i for {@code
 * labels[i - 1]}. Decodes to fixed-width text ({@code <U<n>} arrays) or to references to the
 * labels' UTF-8 bytes (object arrays).
 *
 * @param labels the labels in code order
 * @param codeType the integer type of the codes
 * @param decodedType {@link DataType.Kind#STRING} or {@link DataType.Kind#FIXED_UTF32}
 */
public record CategorizeCodec(List<String> labels, DataType codeType, DataType decodedType)
    implements ArrayToArrayCodec {

  public CategorizeCodec {
    labels = List.copyOf(labels);
  }

  static CategorizeCodec create(CodecSpec spec, ChunkSpec input) {
    CodecConfig config = new CodecConfig(spec).only("labels", "dtype", "astype");
    DataType decoded = input.dataType();
    if (decoded.kind() != DataType.Kind.STRING && decoded.kind() != DataType.Kind.FIXED_UTF32) {
      throw config.error(
          "decodes to text (numpy 'U' or object arrays), not " + decoded + " elements");
    }
    JsonNode dtype = config.node("dtype");
    if (dtype != null
        && !(dtype.isTextual()
            && ((dtype.textValue().equals("|O") && decoded.kind() == DataType.Kind.STRING)
                || (dtype.textValue().matches("[<>|]U[0-9]+")
                    && decoded.kind() == DataType.Kind.FIXED_UTF32
                    && Filters.type(config, "dtype", decoded).equals(decoded))))) {
      throw config.error(
          "dtype "
              + JsonDocument.describe(dtype)
              + " differs from the array's "
              + decoded
              + " elements");
    }
    DataType codes = Filters.type(config, "astype", DataType.UINT8);
    if (codes.kind() != DataType.Kind.UINT && codes.kind() != DataType.Kind.INT) {
      throw config.error("astype must be an integer type, not " + codes);
    }
    JsonNode labelsNode = config.node("labels");
    if (labelsNode == null || !labelsNode.isArray()) {
      throw config.error(
          "configuration field 'labels' must be a list of strings, not "
              + (labelsNode == null ? "missing" : JsonDocument.describe(labelsNode)));
    }
    List<String> labels = new ArrayList<>();
    for (JsonNode label : labelsNode) {
      if (!label.isTextual()) {
        throw config.error(
            "label " + labels.size() + " must be a string, not " + JsonDocument.describe(label));
      }
      if (decoded.kind() == DataType.Kind.FIXED_UTF32
          && label.textValue().codePointCount(0, label.textValue().length())
              > decoded.byteSize() / 4) {
        throw config.error(
            "label '"
                + label.textValue()
                + "' is longer than the "
                + decoded.byteSize() / 4
                + " characters of "
                + decoded
                + " elements");
      }
      labels.add(label.textValue());
    }
    return new CategorizeCodec(labels, codes, decoded);
  }

  @Override
  public String name() {
    return "numcodecs.categorize";
  }

  @Override
  public ChunkSpec encodedSpec(ChunkSpec decoded) {
    return Filters.withType(decoded, codeType);
  }

  @Override
  public ArrowBuf decode(ArrowBuf encoded, ChunkSpec decoded, BufferAllocator allocator) {
    if (decodedType.kind() == DataType.Kind.STRING) {
      throw new IllegalStateException("codec " + name() + " decodes object arrays into a VarHeap");
    }
    long n = Filters.elements(name(), encoded, decoded, codeType);
    int width = decodedType.byteSize();
    byte[][] text = new byte[labels.size() + 1][];
    text[0] = new byte[width];
    for (int i = 0; i < labels.size(); i++) {
      ByteBuffer b = ByteBuffer.allocate(width).order(ByteOrder.LITTLE_ENDIAN);
      labels.get(i).codePoints().forEach(b::putInt);
      text[i + 1] = b.array();
    }
    return Filters.decodeTo(
        allocator,
        decoded,
        out -> {
          for (long i = 0; i < n; i++) {
            out.setBytes(i * width, text[code(encoded, i)]);
          }
        });
  }

  /** Object arrays: 16-byte references to the labels' UTF-8 bytes, which live in {@code heap}. */
  @Override
  public ArrowBuf decode(
      ArrowBuf encoded, ChunkSpec decoded, BufferAllocator allocator, VarHeap heap) {
    if (decodedType.kind() != DataType.Kind.STRING) {
      return decode(encoded, decoded, allocator);
    }
    long n = Filters.elements(name(), encoded, decoded, codeType);
    byte[][] utf8 =
        labels.stream().map(l -> l.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
    long[] offsets = new long[utf8.length];
    long total = 0;
    for (int i = 0; i < utf8.length; i++) {
      offsets[i] = total;
      total += utf8[i].length;
    }
    try (ArrowBuf text = allocator.buffer(Math.max(1, total))) {
      for (int i = 0; i < utf8.length; i++) {
        text.setBytes(offsets[i], utf8[i]);
      }
      long base = text.memoryAddress();
      ArrowBuf refs =
          Filters.decodeTo(
              allocator,
              decoded,
              out -> {
                long address = out.memoryAddress();
                for (long i = 0; i < n; i++) {
                  int c = code(encoded, i);
                  MemoryUtil.putLong(
                      address + i * VarHeap.ELEMENT_BYTES, c == 0 ? base : base + offsets[c - 1]);
                  MemoryUtil.putLong(
                      address + i * VarHeap.ELEMENT_BYTES + 8, c == 0 ? 0 : utf8[c - 1].length);
                }
              });
      heap.retain(text);
      return refs;
    }
  }

  private int code(ArrowBuf encoded, long i) {
    long c = Elements.getLong(encoded, i, codeType);
    if (c < 0 || c > labels.size()) {
      throw new CodecException(
          "codec "
              + name()
              + ": element "
              + i
              + " has code "
              + c
              + " but there are only "
              + labels.size()
              + " labels");
    }
    return (int) c;
  }
}
