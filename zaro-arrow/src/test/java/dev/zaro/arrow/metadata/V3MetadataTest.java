package dev.zaro.arrow.metadata;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.error.MetadataException;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.internal.JsonDocument;
import dev.zaro.arrow.metadata.internal.V3Metadata;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class V3MetadataTest {
  static final String ARRAY =
      """
      {"zarr_format": 3, "node_type": "array", "shape": [10, 20], "data_type": "float32",
       "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 5]}},
       "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
       "fill_value": "NaN",
       "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd"}],
       "dimension_names": ["y", null], "attributes": {"units": "K"}}
      """;

  static NodeMetadata parse(String json) {
    return V3Metadata.parse("a/zarr.json", json.getBytes(StandardCharsets.UTF_8));
  }

  /** ARRAY with one field replaced (or removed when value is null). */
  static String with(String field, String value) {
    var node = JsonDocument.parse("x", ARRAY.getBytes(StandardCharsets.UTF_8)).root();
    if (value == null) {
      node.remove(field);
    } else {
      try {
        node.set(field, Json.readTree(value));
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    }
    return node.toString();
  }

  @Test
  void parsesAnArray() {
    ArrayMetadata a = assertInstanceOf(ArrayMetadata.class, parse(ARRAY));
    assertArrayEquals(new long[] {10, 20}, a.shape());
    assertEquals(DataType.FLOAT32, a.dataType());
    assertArrayEquals(new int[] {4, 5}, a.chunkShape());
    assertArrayEquals(new long[] {3, 4}, a.chunkGridShape());
    assertEquals(new ChunkKeyEncoding.DefaultEncoding('/'), a.chunkKeyEncoding());
    assertEquals(Arrays.asList("y", null), a.dimensionNames());
    assertEquals("dim_1", a.dimensionName(1));
    assertEquals(List.of("bytes", "zstd"), a.codecs().stream().map(CodecSpec::name).toList());
    assertEquals("K", a.attributes().get("units").asText());
    assertEquals(
        Float.NaN,
        ByteBuffer.wrap(a.fillValue().bytes()).order(ByteOrder.LITTLE_ENDIAN).getFloat());
  }

  @Test
  void parsesGroupsAndToleratesOptionalExtensions() {
    GroupMetadata g =
        assertInstanceOf(
            GroupMetadata.class,
            parse(
                "{\"zarr_format\":3,\"node_type\":\"group\",\"attributes\":{\"a\":1},"
                    + "\"consolidated_metadata\":null,\"ext\":{\"must_understand\":false,\"x\":1}}"));
    assertEquals(1, g.attributes().get("a").asInt());
    assertInstanceOf(ArrayMetadata.class, parse(with("zaro_ext", "{\"must_understand\": false}")));
  }

  @Test
  void chunkKeyEncodings() {
    long[] idx = {1, 0, 23};
    assertEquals("c/1/0/23", new ChunkKeyEncoding.DefaultEncoding('/').encode(idx));
    assertEquals("c.1.0.23", new ChunkKeyEncoding.DefaultEncoding('.').encode(idx));
    assertEquals("1.0.23", new ChunkKeyEncoding.V2Encoding('.').encode(idx));
    assertEquals("1/0/23", new ChunkKeyEncoding.V2Encoding('/').encode(idx));
    assertEquals("c", new ChunkKeyEncoding.DefaultEncoding('/').encode(new long[0]));
    assertEquals("0", new ChunkKeyEncoding.V2Encoding('.').encode(new long[0]));
    ArrayMetadata a = (ArrayMetadata) parse(with("chunk_key_encoding", "{\"name\":\"v2\"}"));
    assertEquals(new ChunkKeyEncoding.V2Encoding('.'), a.chunkKeyEncoding());
  }

  /** Each bad document gives an error naming the key and the field. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "shape as string      | shape             | \"10\"                 | shape",
        "negative shape       | shape             | [10, -1]               | shape",
        "missing shape        | shape             |                        | is missing",
        "unknown data type    | data_type         | \"float128\"           | unknown data type 'float128'",
        "odd raw type         | data_type         | \"r7\"                 | multiple of 8",
        "data type number     | data_type         | 5                      | data_type",
        "grid rank            | chunk_grid        | {\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[4]}} | chunk_shape has 1 dimensions",
        "zero chunk           | chunk_grid        | {\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[4,0]}} | chunk_shape",
        "unknown grid         | chunk_grid        | {\"name\":\"hexagonal\"} | not supported",
        "rectilinear no config | chunk_grid       | {\"name\":\"rectilinear\"} | \"kind\" and \"chunk_shapes\"",
        "rectilinear kind     | chunk_grid        | {\"name\":\"rectilinear\",\"configuration\":{\"kind\":\"file\",\"chunk_shapes\":[5,5]}} | only \"inline\"",
        "rectilinear rank     | chunk_grid        | {\"name\":\"rectilinear\",\"configuration\":{\"kind\":\"inline\",\"chunk_shapes\":[5]}} | list of 2 entries",
        "rectilinear short    | chunk_grid        | {\"name\":\"rectilinear\",\"configuration\":{\"kind\":\"inline\",\"chunk_shapes\":[[4,5],5]}} | add up to 9, short of the dimension's 10",
        "rectilinear short rle | chunk_grid       | {\"name\":\"rectilinear\",\"configuration\":{\"kind\":\"inline\",\"chunk_shapes\":[5,[[6,3]]]}} | chunk_shapes[1]",
        "rectilinear zero     | chunk_grid        | {\"name\":\"rectilinear\",\"configuration\":{\"kind\":\"inline\",\"chunk_shapes\":[[4,0,6],5]}} | chunk_shapes[0][1]",
        "rectilinear bad run  | chunk_grid        | {\"name\":\"rectilinear\",\"configuration\":{\"kind\":\"inline\",\"chunk_shapes\":[[[4,1,1]],5]}} | [edge, count]",
        "rectilinear text     | chunk_grid        | {\"name\":\"rectilinear\",\"configuration\":{\"kind\":\"inline\",\"chunk_shapes\":[\"5\",5]}} | chunk_shapes[0]",
        "bad encoding         | chunk_key_encoding | {\"name\":\"fancy\"}   | not supported",
        "bad separator        | chunk_key_encoding | {\"name\":\"default\",\"configuration\":{\"separator\":\"-\"}} | separator",
        "fill value text      | fill_value        | \"hot\"                | 'hot'",
        "fill value missing   | fill_value        |                        | is missing",
        "empty codecs         | codecs            | []                     | non-empty list",
        "codec without name   | codecs            | [{\"configuration\":{}}] | codec 0",
        "dimension names size | dimension_names   | [\"y\"]                | list of 2 names",
        "attributes list      | attributes        | [1]                    | must be an object",
        "transformers         | storage_transformers | [{\"name\":\"x\"}]  | storage transformers",
        "must understand      | fancy_extension   | {\"must_understand\":true} | does not understand",
        "plain extension      | fancy_extension   | 1                      | does not understand",
        "zarr format 2        | zarr_format       | 2                      | zarr_format 3",
        "node type            | node_type         | \"table\"              | node_type"
      })
  void badFieldsAreNamed(String name, String field, String value, String message) {
    MetadataException e = assertThrows(MetadataException.class, () -> parse(with(field, value)));
    assertTrue(e.getMessage().contains("a/zarr.json"), e.getMessage());
    assertTrue(e.getMessage().contains("field '" + field), e.getMessage());
    assertTrue(e.kind() != null, e.getMessage());
    assertTrue(e.getMessage().contains(message.replace("'", "'")), e.getMessage());
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "{\"zarr_format\": 3, | not valid JSON",
        "``                  | empty",
        "[1, 2]              | expected an object",
        "{\"zarr_format\": 3 | not valid JSON"
      })
  void malformedOrTruncatedDocuments(String text, String message) {
    MetadataException e = assertThrows(MetadataException.class, () -> parse(text));
    assertTrue(
        e.getMessage().contains("a/zarr.json") && e.getMessage().contains(message), e.getMessage());
  }

  @Test
  void truncatedRealDocument() {
    for (int cut : new int[] {1, 10, ARRAY.length() / 2}) {
      String truncated = ARRAY.trim().substring(0, ARRAY.trim().length() - cut);
      assertThrows(MetadataException.class, () -> parse(truncated), truncated);
    }
  }
}
