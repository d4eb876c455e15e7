package dev.zaro.arrow.metadata.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.MetadataException;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.ChunkGrid;
import dev.zaro.arrow.metadata.ChunkKeyEncoding;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import dev.zaro.arrow.metadata.GroupMetadata;
import dev.zaro.arrow.metadata.NodeMetadata;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Parses Zarr v3 {@code zarr.json} documents into the normalized model. */
public final class V3Metadata {
  private V3Metadata() {}

  private static final Set<String> GROUP_FIELDS =
      Set.of("zarr_format", "node_type", "attributes", "consolidated_metadata");
  private static final Set<String> ARRAY_FIELDS =
      Set.of(
          "zarr_format",
          "node_type",
          "shape",
          "data_type",
          "chunk_grid",
          "chunk_key_encoding",
          "fill_value",
          "codecs",
          "attributes",
          "dimension_names",
          "storage_transformers");

  /** Parses the document stored at {@code key}. */
  public static NodeMetadata parse(String key, byte[] json) {
    return parse(JsonDocument.parse(key, json));
  }

  public static NodeMetadata parse(JsonDocument doc) {
    int format = doc.requiredInt("zarr_format");
    if (format != 3) {
      throw doc.error(
          "zarr_format", "is " + format + "; a zarr.json document must have zarr_format 3");
    }
    String nodeType = doc.requiredString("node_type");
    return switch (nodeType) {
      case "group" -> parseGroup(doc);
      case "array" -> parseArray(doc);
      default ->
          throw doc.error("node_type", "must be \"array\" or \"group\", not \"" + nodeType + "\"");
    };
  }

  private static GroupMetadata parseGroup(JsonDocument doc) {
    checkUnknownFields(doc, GROUP_FIELDS);
    return new GroupMetadata(3, attributes(doc), false);
  }

  private static JsonNode attributes(JsonDocument doc) {
    JsonNode attributes = doc.optional("attributes");
    if (attributes != null && !attributes.isObject()) {
      throw doc.error("attributes", "must be an object, not " + JsonDocument.describe(attributes));
    }
    return attributes;
  }

  /** Unknown top-level fields are refused unless they are objects with must_understand false. */
  private static void checkUnknownFields(JsonDocument doc, Set<String> known) {
    Iterator<Map.Entry<String, JsonNode>> fields = doc.root().properties().iterator();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      if (known.contains(field.getKey())) {
        continue;
      }
      JsonNode value = field.getValue();
      JsonNode mustUnderstand = value.isObject() ? value.get("must_understand") : null;
      if (mustUnderstand == null || !mustUnderstand.isBoolean() || mustUnderstand.booleanValue()) {
        throw doc.error(
            field.getKey(),
            "is an extension zaro does not understand (only fields that are"
                + " objects with \"must_understand\": false may be ignored)");
      }
    }
  }

  private static ArrayMetadata parseArray(JsonDocument doc) {
    checkUnknownFields(doc, ARRAY_FIELDS);
    long[] shape = doc.requiredLongs("shape", 0);
    DataType dataType = dataType(doc);
    ChunkGrid grid = chunkGrid(doc, shape);
    ChunkKeyEncoding encoding = chunkKeyEncoding(doc);
    FillValue fill = FillValue.parse(doc.required("fill_value"), dataType, doc.where("fill_value"));
    List<CodecSpec> codecs = codecs(doc, "codecs", doc.required("codecs"));
    List<String> dimensionNames = dimensionNames(doc, shape.length);
    JsonNode transformers = doc.optional("storage_transformers");
    if (transformers != null && (!transformers.isArray() || transformers.size() > 0)) {
      throw doc.error(
          "storage_transformers",
          "zaro supports no storage transformers, found " + JsonDocument.describe(transformers));
    }
    int[] chunkShape = new int[shape.length];
    for (int d = 0; d < shape.length; d++) {
      chunkShape[d] = grid.dim(d).maxLength();
    }
    return new ArrayMetadata(
        3,
        shape,
        dataType,
        chunkShape,
        encoding,
        fill,
        codecs,
        dimensionNames,
        attributes(doc),
        grid);
  }

  private static DataType dataType(JsonDocument doc) {
    return dataType(doc.required("data_type"), doc.where("data_type"));
  }

  /**
   * A data type: a name, or an object with a name and a configuration.
   *
   * @param where the key and field (and struct field), for the error message
   */
  private static DataType dataType(JsonNode node, String where) {
    if (node.isTextual()) {
      return DataType.ofV3Name(node.textValue(), where);
    }
    if (node.isObject() && node.path("name").isTextual()) {
      String name = node.path("name").textValue();
      if (name.equals("numpy.datetime64") || name.equals("numpy.timedelta64")) {
        JsonNode config = node.path("configuration");
        JsonNode unit = config.path("unit");
        JsonNode scale = config.path("scale_factor");
        if (!unit.isTextual()) {
          throw new MetadataException(
              where
                  + ": "
                  + name
                  + " needs configuration.unit, a numpy time unit, not "
                  + JsonDocument.describe(unit));
        }
        if (!scale.isMissingNode()
            && (!scale.isIntegralNumber() || !scale.canConvertToLong() || scale.longValue() < 1)) {
          throw new MetadataException(
              where
                  + ": "
                  + name
                  + " configuration.scale_factor must be a positive integer, not "
                  + JsonDocument.describe(scale));
        }
        long factor = scale.isMissingNode() ? 1 : scale.longValue();
        String text = factor == 1 ? unit.textValue() : factor + unit.textValue();
        if (!unit.textValue().matches("[A-Za-z]+")) {
          throw new MetadataException(
              where + ": " + name + " configuration.unit '" + unit.textValue() + "' is unknown");
        }
        try {
          return name.equals("numpy.datetime64")
              ? DataType.datetime(text)
              : DataType.timedelta(text);
        } catch (IllegalArgumentException e) {
          throw new MetadataException(
              ErrorKind.UNSUPPORTED,
              where + ": " + name + " configuration.unit: " + e.getMessage());
        }
      }
      if (name.equals("null_terminated_bytes") || name.equals("raw_bytes")) {
        JsonNode length = node.path("configuration").path("length_bytes");
        if (!length.isIntegralNumber() || !length.canConvertToInt() || length.intValue() < 1) {
          throw new MetadataException(
              where
                  + ": "
                  + name
                  + " needs configuration.length_bytes, a positive integer, not "
                  + JsonDocument.describe(length));
        }
        return name.equals("raw_bytes")
            ? DataType.rawBytes(length.intValue())
            : DataType.nullTerminatedBytes(length.intValue());
      }
      if (name.equals("fixed_length_utf32")) {
        JsonNode length = node.path("configuration").path("length_bytes");
        if (!length.isIntegralNumber() || length.intValue() < 4 || length.intValue() % 4 != 0) {
          throw new MetadataException(
              where
                  + ": fixed_length_utf32 needs configuration.length_bytes, a positive"
                  + " multiple of 4, not "
                  + length);
        }
        return DataType.fixedUtf32(length.intValue() / 4);
      }
      if (name.equals("struct") || name.equals("structured")) {
        return struct(node.path("configuration").path("fields"), name.equals("structured"), where);
      }
      return DataType.ofV3Name(name, where);
    }
    throw new MetadataException(
        where + ": must be a data type name, not " + JsonDocument.describe(node));
  }

  /**
   * zarr-extensions {@code struct}: fields {@code {"name", "data_type"}} packed in order, no
   * padding; the legacy {@code structured} name also has fields as {@code [name, data_type]}.
   */
  private static DataType struct(JsonNode fields, boolean legacy, String where) {
    if (!fields.isArray() || fields.isEmpty()) {
      throw new MetadataException(
          where
              + ": a struct needs configuration.fields, a non-empty list, not "
              + JsonDocument.describe(fields));
    }
    List<DataType.StructField> out = new ArrayList<>();
    int offset = 0;
    for (int i = 0; i < fields.size(); i++) {
      JsonNode field = fields.get(i);
      JsonNode name;
      JsonNode type;
      if (legacy && field.isArray() && field.size() == 2) {
        name = field.get(0);
        type = field.get(1);
      } else {
        name = field.path("name");
        type = field.path("data_type");
      }
      if (!name.isTextual() || type.isMissingNode()) {
        throw new MetadataException(
            where
                + ": struct field "
                + i
                + " must be {\"name\": ..., \"data_type\": ...},"
                + " not "
                + JsonDocument.describe(field));
      }
      DataType fieldType = dataType(type, where + ", struct field '" + name.textValue() + "'");
      out.add(new DataType.StructField(name.textValue(), fieldType, offset, List.of()));
      if ((long) offset + fieldType.byteSize() > 1 << 24) {
        throw new MetadataException(
            where + ": a struct element of more than " + (1 << 24) + " bytes");
      }
      offset += fieldType.byteSize();
    }
    return DataType.struct(out, offset, where);
  }

  private static ChunkGrid chunkGrid(JsonDocument doc, long[] shape) {
    int rank = shape.length;
    JsonNode grid = doc.required("chunk_grid");
    if (!grid.isObject() || !grid.path("name").isTextual()) {
      throw doc.error(
          "chunk_grid", "must be an object with a \"name\", not " + JsonDocument.describe(grid));
    }
    String name = grid.get("name").textValue();
    if (name.equals("rectilinear")) {
      return rectilinear(doc, grid.path("configuration"), shape);
    }
    if (!name.equals("regular")) {
      throw doc.error(
          "chunk_grid",
          "grid \"" + name + "\" is not supported (\"regular\" and \"rectilinear\" are)");
    }
    JsonNode chunkShape = grid.path("configuration").path("chunk_shape");
    if (chunkShape.isMissingNode()) {
      throw doc.error("chunk_grid", "configuration.chunk_shape is missing");
    }
    return ChunkGrid.regular(
        chunkShape(doc, chunkShape, "chunk_grid.configuration.chunk_shape", rank), shape);
  }

  /**
   * A regular grid's chunk_shape at {@code field}: {@code rank} positive integers, each an int (v3
   * and the v3 drafts alike).
   */
  static int[] chunkShape(JsonDocument doc, JsonNode node, String field, int rank) {
    long[] chunks = doc.longs(node, field, 1);
    if (chunks.length != rank) {
      throw doc.error(
          "chunk_grid", "chunk_shape has " + chunks.length + " dimensions but shape has " + rank);
    }
    int[] out = new int[rank];
    for (int d = 0; d < rank; d++) {
      if (chunks[d] > Integer.MAX_VALUE) {
        throw doc.error("chunk_grid", "chunk_shape[" + d + "] = " + chunks[d] + " is too large");
      }
      out[d] = (int) chunks[d];
    }
    return out;
  }

  /**
   * The rectilinear grid of zarr-extensions: {@code kind} "inline", {@code chunk_shapes} one entry
   * per dimension, each an integer (a regular step) or a list of edges and [edge, count] runs.
   */
  private static ChunkGrid rectilinear(JsonDocument doc, JsonNode config, long[] shape) {
    String field = "chunk_grid.configuration";
    if (!config.isObject()) {
      throw doc.error(
          field,
          "must be an object with \"kind\" and \"chunk_shapes\", not "
              + JsonDocument.describe(config));
    }
    if (!"inline".equals(config.path("kind").asText(null))) {
      throw doc.error(
          field + ".kind",
          "rectilinear grids of kind "
              + JsonDocument.describe(config.path("kind"))
              + " are not supported (only \"inline\")");
    }
    JsonNode shapes = config.path("chunk_shapes");
    if (!shapes.isArray() || shapes.size() != shape.length) {
      throw doc.error(
          field + ".chunk_shapes",
          "must be a list of "
              + shape.length
              + " entries (one per dimension),"
              + " not "
              + JsonDocument.describe(shapes));
    }
    List<ChunkGrid.Dim> dims = new ArrayList<>();
    for (int d = 0; d < shape.length; d++) {
      String where = field + ".chunk_shapes[" + d + "]";
      JsonNode entry = shapes.get(d);
      List<long[]> runs = new ArrayList<>();
      if (entry.isIntegralNumber()) {
        long edge = positive(doc, where, entry);
        runs.add(new long[] {edge, shape[d] == 0 ? 1 : (shape[d] + edge - 1) / edge});
      } else if (entry.isArray() && entry.size() > 0) {
        for (int i = 0; i < entry.size(); i++) {
          JsonNode e = entry.get(i);
          if (e.isArray()) {
            if (e.size() != 2) {
              throw doc.error(
                  where + "[" + i + "]",
                  "a run must be [edge, count], not " + JsonDocument.describe(e));
            }
            runs.add(
                new long[] {
                  positive(doc, where + "[" + i + "][0]", e.get(0)),
                  positive(doc, where + "[" + i + "][1]", e.get(1))
                });
          } else {
            runs.add(new long[] {positive(doc, where + "[" + i + "]", e), 1});
          }
        }
      } else {
        throw doc.error(
            where,
            "must be an integer or a non-empty list of edges and [edge, count] runs, not "
                + JsonDocument.describe(entry));
      }
      try {
        dims.add(
            ChunkGrid.Dim.of(
                shape[d],
                runs.stream().mapToLong(r -> r[0]).toArray(),
                runs.stream().mapToLong(r -> r[1]).toArray()));
      } catch (IllegalArgumentException e) {
        throw doc.error(where, e.getMessage() + " (shape[" + d + "] = " + shape[d] + ")");
      }
    }
    return ChunkGrid.rectilinear(dims);
  }

  private static long positive(JsonDocument doc, String where, JsonNode node) {
    if (!node.isIntegralNumber() || !node.canConvertToLong() || node.longValue() < 1) {
      throw doc.error(where, "must be a positive integer, not " + JsonDocument.describe(node));
    }
    return node.longValue();
  }

  private static ChunkKeyEncoding chunkKeyEncoding(JsonDocument doc) {
    JsonNode node = doc.required("chunk_key_encoding");
    if (!node.isObject() || !node.path("name").isTextual()) {
      throw doc.error(
          "chunk_key_encoding",
          "must be an object with a \"name\", not " + JsonDocument.describe(node));
    }
    String name = node.get("name").textValue();
    JsonNode separatorNode = node.path("configuration").path("separator");
    String defaultSeparator = name.equals("v2") ? "." : "/";
    String separator =
        separatorNode.isMissingNode() ? defaultSeparator : separatorNode.asText(null);
    if (separator == null
        || (!separatorNode.isMissingNode() && !separatorNode.isTextual())
        || !(separator.equals("/") || separator.equals("."))) {
      throw doc.error(
          "chunk_key_encoding", "separator must be \"/\" or \".\", not " + separatorNode);
    }
    return switch (name) {
      case "default" -> new ChunkKeyEncoding.DefaultEncoding(separator.charAt(0));
      case "v2" -> new ChunkKeyEncoding.V2Encoding(separator.charAt(0));
      default ->
          throw doc.error(
              "chunk_key_encoding",
              "encoding \"" + name + "\" is not supported (only \"default\" and \"v2\")");
    };
  }

  /** Parses a list of codec objects (also used for nested chains such as sharding's). */
  public static List<CodecSpec> codecs(JsonDocument doc, String field, JsonNode list) {
    if (!list.isArray() || list.isEmpty()) {
      throw doc.error(
          field, "must be a non-empty list of codecs, not " + JsonDocument.describe(list));
    }
    List<CodecSpec> codecs = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      JsonNode codec = list.get(i);
      if (codec.isTextual()) {
        codecs.add(new CodecSpec(codec.textValue(), null));
      } else if (codec.isObject() && codec.path("name").isTextual()) {
        JsonNode config = codec.get("configuration");
        if (config != null && !config.isObject()) {
          throw doc.error(
              field,
              "codec "
                  + i
                  + " ("
                  + codec.get("name").textValue()
                  + "): configuration must be an object, not "
                  + JsonDocument.describe(config));
        }
        codecs.add(new CodecSpec(codec.get("name").textValue(), config));
      } else {
        throw doc.error(
            field,
            "codec "
                + i
                + " must be an object with a \"name\", not "
                + JsonDocument.describe(codec));
      }
    }
    return codecs;
  }

  private static List<String> dimensionNames(JsonDocument doc, int rank) {
    JsonNode node = doc.optional("dimension_names");
    if (node == null) {
      return null;
    }
    if (!node.isArray() || node.size() != rank) {
      throw doc.error(
          "dimension_names",
          "must be a list of " + rank + " names (or nulls), not " + JsonDocument.describe(node));
    }
    List<String> names = new ArrayList<>();
    for (JsonNode n : node) {
      if (n.isNull()) {
        names.add(null);
      } else if (n.isTextual()) {
        names.add(n.textValue());
      } else {
        throw doc.error(
            "dimension_names",
            "each name must be a string or null, not " + JsonDocument.describe(n));
      }
    }
    return names;
  }
}
