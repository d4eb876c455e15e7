package dev.zaro.arrow.codec.numcodecs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.codec.ArrayToBytesCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.codec.VarHeap;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.internal.JsonDocument;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * numcodecs {@code json2} and {@code "msgpack2"}, object codecs of v2 object arrays: a chunk is the
 * list {@code [values..., dtype, shape]} as JSON or MessagePack, the values nested by the chunk's
 * dimensions (numpy's {@code tolist()}), read as one sequence in that nesting order (as zarr-python
 * does). zaro reads chunks whose values are all strings; any other value is an error naming it. The
 * strings are copied into one buffer the read's heap keeps.
 *
 * @param msgpack MessagePack ({@code "msgpack2"}) rather than JSON ({@code json2})
 */
public record ObjectListCodec(boolean msgpack) implements ArrayToBytesCodec {

  static ObjectListCodec json(CodecSpec spec, ChunkSpec input) {
    CodecConfig config =
        new CodecConfig(spec)
            .only(
                "encoding",
                "skipkeys",
                "ensure_ascii",
                "check_circular",
                "allow_nan",
                "indent",
                "separators",
                "sort_keys",
                "strict");
    String encoding = config.string("encoding", "utf-8");
    if (!encoding.equalsIgnoreCase("utf-8") && !encoding.equalsIgnoreCase("utf8")) {
      throw config.error("zaro reads UTF-8 JSON, not encoding '" + encoding + "'");
    }
    return text(config, input, false);
  }

  static ObjectListCodec msgpack(CodecSpec spec, ChunkSpec input) {
    CodecConfig config = new CodecConfig(spec).only("raw", "use_single_float", "use_bin_type");
    if (config.booleanValue("raw", false)) {
      throw config.error("raw true (strings read as bytes) is not supported");
    }
    return text(config, input, true);
  }

  private static ObjectListCodec text(CodecConfig config, ChunkSpec input, boolean msgpack) {
    if (input.dataType().kind() != DataType.Kind.STRING) {
      throw config.error("decodes object arrays of text, not " + input.dataType());
    }
    return new ObjectListCodec(msgpack);
  }

  @Override
  public String name() {
    return msgpack ? "numcodecs.msgpack2" : "numcodecs.json2";
  }

  @Override
  public long encodedSize(ChunkSpec spec) {
    return -1;
  }

  @Override
  public void decodeInto(
      ArrowBuf encoded, ChunkSpec spec, SlabView target, BufferAllocator allocator) {
    if (target.heap() == null || target.itemSize() != VarHeap.ELEMENT_BYTES) {
      throw new IllegalStateException("codec " + name() + " needs a variable-length target view");
    }
    long length = encoded.writerIndex();
    if (length > Integer.MAX_VALUE) {
      throw new CodecException("codec " + name() + ": chunk of " + length + " bytes is too large");
    }
    byte[] text = new byte[(int) length];
    encoded.getBytes(0, text);
    JsonNode items;
    if (msgpack) {
      items = new MsgPack(name(), text).value();
    } else {
      try {
        items = Json.readTree(text);
      } catch (IOException e) {
        throw new CodecException(
            "codec " + name() + ": chunk is not valid JSON: " + e.getMessage());
      }
    }
    if (items == null || !items.isArray() || items.size() < 2) {
      throw new CodecException(
          "codec " + name() + ": chunk must be a list [values..., dtype, shape]");
    }
    JsonNode shape = items.get(items.size() - 1);
    long n = spec.elementCount();
    long count = 1;
    for (int d = 0; shape.isArray() && d < shape.size(); d++) {
      count =
          shape.get(d).isIntegralNumber() && shape.get(d).longValue() >= 0
              ? count * shape.get(d).longValue()
              : -1;
    }
    if (!shape.isArray() || shape.size() == 0 || count != n) {
      throw new CodecException(
          "codec "
              + name()
              + ": chunk shape "
              + shape
              + " does not hold the "
              + n
              + " elements of "
              + Arrays.toString(spec.shape()));
    }
    // the values in the C order of the stored shape, which zarr-python reshapes in the array's
    // order
    List<byte[]> values = new ArrayList<>();
    for (int i = 0; i < items.size() - 2; i++) {
      flatten(items.get(i), shape.size() - 1, values);
    }
    if (values.size() != n) {
      throw new CodecException(
          "codec " + name() + ": chunk holds " + values.size() + " values, expected " + n);
    }
    long total = 0;
    for (byte[] v : values) {
      total += v.length;
    }
    try (ArrowBuf bytes = allocator.buffer(Math.max(1, total));
        ArrowBuf refs = allocator.buffer(Math.max(1, n * VarHeap.ELEMENT_BYTES))) {
      long pos = 0;
      for (int i = 0; i < values.size(); i++) {
        byte[] v = values.get(i);
        bytes.setBytes(pos, v);
        MemoryUtil.putLong(refs.memoryAddress() + i * 16L, bytes.memoryAddress() + pos);
        MemoryUtil.putLong(refs.memoryAddress() + i * 16L + 8, v.length);
        pos += v.length;
      }
      target.heap().retain(bytes);
      target.scatterFrom(refs, n * VarHeap.ELEMENT_BYTES, 0);
    }
  }

  /** Appends the strings of {@code node}, nested {@code depth} lists deep, in C order. */
  private void flatten(JsonNode node, int depth, List<byte[]> out) {
    if (depth > 0) {
      if (!node.isArray()) {
        throw new CodecException(
            "codec " + name() + ": expected a nested list, found " + JsonDocument.describe(node));
      }
      for (JsonNode child : node) {
        flatten(child, depth - 1, out);
      }
      return;
    }
    if (!node.isTextual()) {
      throw new CodecException(
          "codec "
              + name()
              + ": zaro reads object arrays of strings; found "
              + JsonDocument.describe(node));
    }
    out.add(node.textValue().getBytes(StandardCharsets.UTF_8));
  }
}
