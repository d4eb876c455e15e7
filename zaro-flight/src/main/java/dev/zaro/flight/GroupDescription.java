package dev.zaro.flight;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.Node;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.ZarrArray;
import dev.zaro.arrow.read.internal.NodeJson;
import dev.zaro.arrow.store.StoreKeys;
import dev.zaro.arrow.vector.TensorReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FloatingPointVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.util.Text;

/**
 * A group's whole description in one answer, so a client opens a dataset in one round trip: the
 * {@code describe} Flight action and {@code GET /describe/{path}} over HTTP.
 *
 * <p>The answer is the group's metadata JSON (as the {@code metadata} action gives it, children
 * listed), every child array's metadata JSON, and, with {@code recursive}, the same for every group
 * below. Small arrays (at most one dimension, at most {@code inline_bytes} decoded bytes, 4 MiB
 * unless asked otherwise) come with their values: the coordinates a client indexes by. Over Flight
 * the first result is the JSON and each array's tensor-layout Arrow IPC stream follows in the order
 * the JSON lists the arrays (its schema alone, or with its values for an inline array); over HTTP
 * an inline array's values are in its JSON under {@code "values"}, stored values as the tensor
 * layout has them.
 */
final class GroupDescription {
  /** The default bound of an inline array's decoded values. */
  static final long DEFAULT_INLINE_BYTES = 4L << 20;

  /** Bytes a variable-length element counts for against the bound (before its text is read). */
  private static final long VARIABLE_ELEMENT_BYTES = 16;

  /** What a client asks for: the group's path, the inline bound, and whether to go down. */
  record Request(String group, long inlineBytes, boolean recursive) {

    /** A node path, or {@code {"group": PATH, "inline_bytes": N, "recursive": true}}. */
    static Request parse(byte[] body) {
      String text = new String(body, StandardCharsets.UTF_8).trim();
      if (!text.startsWith("{")) {
        return new Request(text, DEFAULT_INLINE_BYTES, false);
      }
      JsonNode node;
      try {
        node = Json.readTree(body);
      } catch (IOException | RuntimeException e) {
        throw invalid("the describe action's body is not JSON: " + text);
      }
      JsonNode inline = node.path("inline_bytes");
      if (!inline.isMissingNode() && (!inline.canConvertToLong() || inline.asLong() < 0)) {
        throw invalid("\"inline_bytes\" must be a non-negative integer, not " + inline);
      }
      return new Request(
          node.path("group").asText(""),
          inline.isMissingNode() ? DEFAULT_INLINE_BYTES : inline.asLong(),
          node.path("recursive").asBoolean(false));
    }
  }

  private final Zaro zaro;
  private final List<Node> arrays = new ArrayList<>();
  private final List<Boolean> inline = new ArrayList<>();
  private final ObjectNode json = Json.createObjectNode();

  /** Reads the hierarchy below {@code request.group()}; no array values yet. */
  GroupDescription(Zaro zaro, Request request) {
    this.zaro = zaro;
    String root = StoreKeys.stripSlashes(request.group());
    Node group = new Node(root, zaro.node(root));
    if (group.isArray()) {
      throw invalid("'/" + root + "' is an array, not a group: describe the group that holds it");
    }
    json.put("path", group.displayPath());
    ArrayNode groups = json.putArray("groups");
    ArrayNode arrayJson = json.putArray("arrays");
    List<Node> pending = new ArrayList<>(List.of(group));
    while (!pending.isEmpty()) {
      Node g = pending.remove(0);
      List<Node> children = zaro.hierarchy().children(g.path());
      groups.add(NodeJson.of(g, children));
      for (Node child : children) {
        if (child.isArray()) {
          boolean small = isInline((ArrayMetadata) child.metadata(), request.inlineBytes());
          arrays.add(child);
          inline.add(small);
          arrayJson.add(NodeJson.of(child, null).put("inline", small));
        } else if (request.recursive()) {
          pending.add(child);
        }
      }
    }
  }

  private static boolean isInline(ArrayMetadata meta, long bound) {
    if (meta.rank() > 1) {
      return false;
    }
    long elements = meta.rank() == 0 ? 1 : meta.shape()[0];
    boolean variable =
        meta.dataType().kind() == DataType.Kind.STRING
            || meta.dataType().kind() == DataType.Kind.BYTES;
    long each = variable ? VARIABLE_ELEMENT_BYTES : meta.dataType().byteSize();
    return elements <= bound / Math.max(1, each);
  }

  /** The arrays whose values the answer carries (inline), in the order of {@link #json()}. */
  List<Node> inlineArrays() {
    List<Node> out = new ArrayList<>();
    for (int i = 0; i < arrays.size(); i++) {
      if (inline.get(i)) {
        out.add(arrays.get(i));
      }
    }
    return out;
  }

  /** The JSON part: the groups and the arrays, each array marked inline or not. */
  ObjectNode json() {
    return json;
  }

  /**
   * Each array's tensor-layout Arrow IPC stream, in the order of {@link #json()}'s arrays: the
   * schema (its field metadata carries the attributes), then the values of an inline array.
   */
  List<byte[]> streams(BufferAllocator allocator, ReadOptions options) {
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < arrays.size(); i++) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (TensorReader reader = reader(arrays.get(i), allocator, options);
          ArrowStreamWriter writer =
              new ArrowStreamWriter(
                  reader.getVectorSchemaRoot(), null, Channels.newChannel(bytes))) {
        writer.start();
        if (inline.get(i)) {
          while (reader.loadNextBatch()) {
            writer.writeBatch();
          }
        }
        writer.end();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      out.add(bytes.toByteArray());
    }
    return out;
  }

  /** {@link #json()} with each inline array's stored values under {@code "values"}. */
  ObjectNode jsonWithValues(BufferAllocator allocator, ReadOptions options) {
    ArrayNode list = (ArrayNode) json.get("arrays");
    for (int i = 0; i < arrays.size(); i++) {
      if (!inline.get(i)) {
        continue;
      }
      ArrayNode values = ((ObjectNode) list.get(i)).putArray("values");
      try (TensorReader reader = reader(arrays.get(i), allocator, options)) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          FieldVector v = root.getVector(0);
          for (int r = 0; r < root.getRowCount(); r++) {
            values.add(value(v, r));
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return json;
  }

  private static FlightRuntimeException invalid(String message) {
    return CallStatus.INVALID_ARGUMENT.withDescription(message).toRuntimeException();
  }

  private TensorReader reader(Node node, BufferAllocator allocator, ReadOptions options) {
    ZarrArray array = zaro.array(node.path());
    return TensorReader.of(
        array,
        Selection.all(array.metadata().shape()),
        TensorReader.DEFAULT_BATCH_BYTES,
        options,
        allocator);
  }

  /**
   * One stored value as JSON: numbers (NaN and infinities as strings; times and dates as their
   * counts since the epoch), text, booleans, null.
   */
  private static JsonNode value(FieldVector v, int row) {
    JsonNodeFactory f = Json.nodeFactory();
    if (v.isNull(row)) {
      return f.nullNode();
    }
    if (v instanceof FloatingPointVector fp) {
      double d = fp.getValueAsDouble(row);
      return Double.isNaN(d)
          ? f.textNode("NaN")
          : Double.isInfinite(d) ? f.textNode(d > 0 ? "Infinity" : "-Infinity") : f.numberNode(d);
    }
    if (v instanceof BaseIntVector i) {
      return f.numberNode(i.getValueAsLong(row));
    }
    if (v instanceof TimeStampVector t) {
      return f.numberNode(t.get(row));
    }
    if (v instanceof DateDayVector d) {
      return f.numberNode(d.get(row));
    }
    if (v instanceof BitVector b) {
      return f.booleanNode(b.get(row) != 0);
    }
    Object o = v.getObject(row);
    if (o instanceof Text t) {
      return f.textNode(t.toString());
    }
    if (o instanceof byte[] bytes) {
      return f.binaryNode(bytes);
    }
    // durations, intervals and structs: their Arrow value as text
    return f.textNode(String.valueOf(o));
  }
}
