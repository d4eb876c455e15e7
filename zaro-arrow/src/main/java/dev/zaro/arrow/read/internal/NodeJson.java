package dev.zaro.arrow.read.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.ChunkKeyEncoding;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import dev.zaro.arrow.metadata.GroupMetadata;
import dev.zaro.arrow.metadata.internal.HalfFloat;
import dev.zaro.arrow.metadata.internal.Utf32;
import dev.zaro.arrow.read.Node;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/** The normalized metadata of a node as JSON (what {@code zaro info} prints). */
public final class NodeJson {
  private NodeJson() {}

  /** {@code node}'s metadata, with {@code children} (null: none) listed by path and node type. */
  public static ObjectNode of(Node node, List<Node> children) {
    ObjectNode json = Json.createObjectNode();
    json.put("path", node.displayPath());
    json.put("zarr_format", node.metadata().zarrFormat());
    json.put("format", node.metadata().formatName());
    if (node.metadata() instanceof ArrayMetadata a) {
      json.put("node_type", "array");
      array(json, a);
    } else {
      json.put("node_type", "group");
      json.put("implicit", ((GroupMetadata) node.metadata()).implicit());
    }
    json.set("attributes", node.metadata().attributes());
    if (children != null) {
      ArrayNode list = json.putArray("children");
      for (Node c : children) {
        ObjectNode child = list.addObject();
        child.put("path", c.displayPath());
        child.put("node_type", c.isArray() ? "array" : "group");
      }
    }
    return json;
  }

  private static void array(ObjectNode json, ArrayMetadata a) {
    longs(json.putArray("shape"), a.shape());
    dataType(json, a.dataType());
    if (a.chunkGrid().isRegular()) {
      ArrayNode chunks = json.putArray("chunk_shape");
      for (int c : a.chunkShape()) {
        chunks.add(c);
      }
    } else {
      // rectilinear: per dimension one edge, or the edges as [edge, count] runs (as in zarr.json)
      json.set("chunk_shapes", Json.valueToTree(a.chunkGrid().describe()));
    }
    ObjectNode encoding = json.putObject("chunk_key_encoding");
    if (a.chunkKeyEncoding() instanceof ChunkKeyEncoding.DefaultEncoding d) {
      encoding
          .put("name", "default")
          .putObject("configuration")
          .put("separator", String.valueOf(d.separator()));
    } else if (a.chunkKeyEncoding() instanceof ChunkKeyEncoding.V2Encoding v) {
      encoding
          .put("name", "v2")
          .putObject("configuration")
          .put("separator", String.valueOf(v.separator()));
    } else if (a.chunkKeyEncoding() instanceof ChunkKeyEncoding.DraftEncoding v) {
      // the drafts' chunk keys: data/root/<path>/c<i><sep><j>
      encoding
          .put("name", "v3_draft")
          .putObject("configuration")
          .put("separator", String.valueOf(v.separator()));
    }
    json.set(
        "fill_value",
        a.fillValue().isUnset()
            ? Json.nodeFactory().nullNode()
            : fillValue(a.fillValue(), a.dataType()));
    ArrayNode codecs = json.putArray("codecs");
    for (CodecSpec c : a.codecs()) {
      ObjectNode codec = codecs.addObject();
      codec.put("name", c.name());
      codec.set("configuration", c.configuration());
    }
    ArrayNode names = json.putArray("dimension_names");
    a.dimensionNames().forEach(names::add);
  }

  /** {@code data_type} (and {@code unit}, or a struct's {@code fields}) of {@code type}. */
  private static void dataType(ObjectNode json, DataType type) {
    json.put("data_type", type.name());
    switch (type.kind()) {
      case FIXED_UTF32, NULL_TERMINATED_BYTES, RAW -> json.put("length_bytes", type.byteSize());
      default -> {}
    }
    if (type.unit() != null) {
      json.put("unit", type.unit());
    }
    if (type.kind() == DataType.Kind.STRUCT) {
      ArrayNode fields = json.putArray("fields");
      for (DataType.StructField f : type.fields()) {
        ObjectNode field = fields.addObject().put("name", f.name());
        dataType(field, f.type());
        field.put("offset", f.offset());
        if (!f.shape().isEmpty()) {
          f.shape().forEach(field.putArray("shape")::add);
        }
      }
    }
  }

  private static void longs(ArrayNode out, long[] values) {
    for (long v : values) {
      out.add(v);
    }
  }

  /** A fill value in v3 JSON form. */
  public static JsonNode fillValue(FillValue fill, DataType type) {
    ByteBuffer b = ByteBuffer.wrap(fill.bytes()).order(ByteOrder.LITTLE_ENDIAN);
    var f = Json.nodeFactory();
    return switch (type.kind()) {
      case BOOL -> f.booleanNode(b.get() != 0);
      case INT ->
          f.numberNode(
              switch (type.bits()) {
                case 8 -> (long) b.get();
                case 16 -> (long) b.getShort();
                case 32 -> (long) b.getInt();
                default -> b.getLong();
              });
      case UINT -> f.numberNode(new BigInteger(1, reverse(fill.bytes())));
      case FLOAT -> floatNode(b, type.byteSize());
      case COMPLEX ->
          f.arrayNode()
              .add(floatNode(b, type.byteSize() / 2))
              .add(floatNode(b, type.byteSize() / 2));
      case STRING -> f.textNode(new String(fill.bytes(), StandardCharsets.UTF_8));
      case BYTES, NULL_TERMINATED_BYTES ->
          f.textNode(Base64.getEncoder().encodeToString(fill.bytes()));
      case FIXED_UTF32 -> f.textNode(Utf32.decode(fill.bytes(), 0, fill.bytes().length));
      case DATETIME, TIMEDELTA -> {
        long v = b.getLong();
        yield v == Long.MIN_VALUE ? f.textNode("NaT") : f.numberNode(v);
      }
      case STRUCT -> {
        ObjectNode fields = f.objectNode();
        byte[] element = fill.bytes();
        for (DataType.StructField field : type.fields()) {
          ArrayNode values = f.arrayNode();
          for (int i = 0; i < field.count(); i++) {
            int at = field.offset() + i * field.type().byteSize();
            values.add(
                fillValue(
                    new FillValue(Arrays.copyOfRange(element, at, at + field.type().byteSize())),
                    field.type()));
          }
          fields.set(field.name(), field.shape().isEmpty() ? values.get(0) : values);
        }
        yield fields;
      }
      case RAW -> {
        ArrayNode bytes = f.arrayNode();
        for (byte x : fill.bytes()) {
          bytes.add(x & 0xff);
        }
        yield bytes;
      }
    };
  }

  private static JsonNode floatNode(ByteBuffer b, int width) {
    double v =
        switch (width) {
          case 2 -> HalfFloat.toFloat(b.getShort());
          case 4 -> b.getFloat();
          default -> b.getDouble();
        };
    var f = Json.nodeFactory();
    if (Double.isNaN(v)) {
      return f.textNode("NaN");
    }
    if (Double.isInfinite(v)) {
      return f.textNode(v > 0 ? "Infinity" : "-Infinity");
    }
    return width == 4 ? f.numberNode((float) v) : f.numberNode(v);
  }

  private static byte[] reverse(byte[] bytes) {
    byte[] out = new byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      out[i] = bytes[bytes.length - 1 - i];
    }
    return out;
  }
}
