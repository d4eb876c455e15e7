package dev.zaro.arrow.codec.numcodecs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.zaro.arrow.error.CodecException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads one MessagePack value (what Python's {@code msgpack.packb} writes) as a JSON tree: arrays,
 * strings, integers, floats, booleans, nil and bin (as binary nodes). Maps and extension types are
 * refused. Not thread-safe; one instance per value.
 */
final class MsgPack {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private final String codec;
  private final byte[] in;
  private int pos;

  MsgPack(String codec, byte[] in) {
    this.codec = codec;
    this.in = in;
  }

  /** The value the whole input holds. */
  JsonNode value() {
    JsonNode v = read(0);
    if (pos != in.length) {
      throw error((in.length - pos) + " bytes after the value");
    }
    return v;
  }

  private CodecException error(String message) {
    return new CodecException("codec " + codec + ": " + message);
  }

  private long unsigned(int bytes) {
    if (pos + bytes > in.length) {
      throw error("data ends inside a value at byte " + pos);
    }
    long v = 0;
    for (int i = 0; i < bytes; i++) {
      v = (v << 8) | (in[pos++] & 0xff);
    }
    return v;
  }

  private int length(int bytes) {
    long n = unsigned(bytes);
    if (n > in.length - pos && n > 0) {
      throw error("a length of " + n + " runs past the end of the data");
    }
    return (int) n;
  }

  private JsonNode read(int depth) {
    if (depth > 64) {
      throw error("values nested deeper than 64");
    }
    int b = (int) unsigned(1);
    if (b <= 0x7f) {
      return NODES.numberNode(b);
    }
    if (b >= 0xe0) {
      return NODES.numberNode(b - 256);
    }
    if ((b & 0xf0) == 0x90) {
      return array(b & 0x0f, depth);
    }
    if ((b & 0xe0) == 0xa0) {
      return string(b & 0x1f);
    }
    return switch (b) {
      case 0xc0 -> NODES.nullNode();
      case 0xc2 -> NODES.booleanNode(false);
      case 0xc3 -> NODES.booleanNode(true);
      case 0xc4, 0xc5, 0xc6 -> {
        int n = length(b == 0xc4 ? 1 : b == 0xc5 ? 2 : 4);
        byte[] v = Arrays.copyOfRange(in, pos, pos + n);
        pos += n;
        yield NODES.binaryNode(v);
      }
      case 0xca -> NODES.numberNode(Float.intBitsToFloat((int) unsigned(4)));
      case 0xcb -> NODES.numberNode(Double.longBitsToDouble(unsigned(8)));
      case 0xcc -> NODES.numberNode(unsigned(1));
      case 0xcd -> NODES.numberNode(unsigned(2));
      case 0xce -> NODES.numberNode(unsigned(4));
      case 0xcf -> {
        long v = unsigned(8);
        yield v >= 0
            ? NODES.numberNode(v)
            : NODES.numberNode(new BigInteger(Long.toUnsignedString(v)));
      }
      case 0xd0 -> NODES.numberNode((byte) unsigned(1));
      case 0xd1 -> NODES.numberNode((short) unsigned(2));
      case 0xd2 -> NODES.numberNode((int) unsigned(4));
      case 0xd3 -> NODES.numberNode(unsigned(8));
      case 0xd9 -> string(length(1));
      case 0xda -> string(length(2));
      case 0xdb -> string(length(4));
      case 0xdc -> array(length(2), depth);
      case 0xdd -> array(length(4), depth);
      default ->
          throw error(
              String.format(
                  "MessagePack type 0x%02x (map, extension or unused) at byte %d is not"
                      + " supported",
                  b, pos - 1));
    };
  }

  private JsonNode string(int n) {
    if (n > in.length - pos) {
      throw error("a string of " + n + " bytes runs past the end of the data");
    }
    String s = new String(in, pos, n, StandardCharsets.UTF_8);
    pos += n;
    return NODES.textNode(s);
  }

  private JsonNode array(int n, int depth) {
    ArrayNode a = NODES.arrayNode();
    for (int i = 0; i < n; i++) {
      a.add(read(depth + 1));
    }
    return a;
  }
}
