package dev.zaro.arrow.metadata;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecChain;
import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.error.MetadataException;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.internal.JsonDocument;
import dev.zaro.arrow.metadata.internal.NumpyDtype;
import dev.zaro.arrow.metadata.internal.V2Metadata;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Zarr v2 .zarray / .zgroup / .zattrs onto the normalized model, and every kind of bad input. */
class V2MetadataTest {
  static final String ARRAY =
      """
      {"zarr_format": 2, "shape": [10, 20, 30], "chunks": [4, 5, 6], "dtype": "<f4",
       "compressor": {"id": "zlib", "level": 1}, "fill_value": "NaN", "order": "C",
       "filters": null, "dimension_separator": "/"}
      """;

  static ArrayMetadata parse(String json) {
    return parse(json, null);
  }

  static ArrayMetadata parse(String json, String attrs) {
    return V2Metadata.parseArray(
        "a/.zarray",
        json.getBytes(StandardCharsets.UTF_8),
        "a/.zattrs",
        attrs == null ? null : attrs.getBytes(StandardCharsets.UTF_8));
  }

  /** ARRAY with one field replaced (or removed when value is null). */
  static String with(String field, String value) {
    ObjectNode node = JsonDocument.parse("x", ARRAY.getBytes(StandardCharsets.UTF_8)).root();
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

  static List<String> names(ArrayMetadata a) {
    return a.codecs().stream().map(CodecSpec::name).toList();
  }

  static String error(String json) {
    return assertThrows(MetadataException.class, () -> parse(json)).getMessage();
  }

  /**
   * A null fill_value is "none declared": it reads as zeros but stays distinguishable from a
   * declared 0, which xarray's zarr backend masks as _FillValue and a null one it does not.
   */
  @ParameterizedTest
  @CsvSource(
      delimiter = '~',
      value = {"<i8 ~ null ~ true", "<i8 ~ 0 ~ false", "<f4 ~ null ~ true", "<f4 ~ 0.0 ~ false"})
  void aNullFillValueIsUnsetAndReadsAsZeros(String dtype, String fill, boolean unset) {
    ArrayMetadata a = parse(with("dtype", "\"" + dtype + "\"").replace("\"NaN\"", fill));
    assertEquals(unset, a.fillValue().isUnset());
    assertTrue(a.fillValue().isZero());
  }

  @Test
  void parsesAnArray() {
    ArrayMetadata a =
        parse(ARRAY, "{\"units\": \"K\", \"_ARRAY_DIMENSIONS\": [\"t\", \"y\", \"x\"]}");
    assertEquals(2, a.zarrFormat());
    assertArrayEquals(new long[] {10, 20, 30}, a.shape());
    assertArrayEquals(new int[] {4, 5, 6}, a.chunkShape());
    assertEquals(DataType.FLOAT32, a.dataType());
    assertEquals(new ChunkKeyEncoding.V2Encoding('/'), a.chunkKeyEncoding());
    assertEquals("1/0/23", a.chunkKeyEncoding().encode(new long[] {1, 0, 23}));
    assertEquals(
        Float.NaN,
        ByteBuffer.wrap(a.fillValue().bytes()).order(ByteOrder.LITTLE_ENDIAN).getFloat());
    assertEquals(List.of("bytes", "numcodecs.zlib"), names(a));
    assertEquals("little", a.codecs().get(0).configuration().get("endian").asText());
    assertEquals(1, a.codecs().get(1).configuration().get("level").asInt());
    assertFalse(a.codecs().get(1).configuration().has("id"));
    assertEquals(List.of("t", "y", "x"), a.dimensionNames());
    assertEquals("K", a.attributes().get("units").asText());
    assertEquals(
        ".",
        ((ChunkKeyEncoding.V2Encoding) parse(with("dimension_separator", null)).chunkKeyEncoding())
                .separator()
            + "");
    assertEquals(
        "0",
        parse(with("shape", "[]").replace("[4,5,6]", "[]")).chunkKeyEncoding().encode(new long[0]));
  }

  @Test
  void parsesAGroup() {
    GroupMetadata g =
        V2Metadata.parseGroup(
            "g/.zgroup",
            "{\"zarr_format\": 2}".getBytes(StandardCharsets.UTF_8),
            "g/.zattrs",
            "{\"title\": \"t\"}".getBytes(StandardCharsets.UTF_8));
    assertEquals(2, g.zarrFormat());
    assertFalse(g.implicit());
    assertEquals("t", g.attributes().get("title").asText());
    assertEquals(
        0,
        V2Metadata.parseGroup(
                "g/.zgroup",
                "{\"zarr_format\": 2}".getBytes(StandardCharsets.UTF_8),
                "g/.zattrs",
                null)
            .attributes()
            .size());
    assertEquals(
        "key 'g/.zgroup', field 'zarr_format': is 3; a .zgroup document must have zarr_format 2",
        assertThrows(
                MetadataException.class,
                () ->
                    V2Metadata.parseGroup(
                        "g/.zgroup",
                        "{\"zarr_format\": 3}".getBytes(StandardCharsets.UTF_8),
                        "g/.zattrs",
                        null))
            .getMessage());
    assertEquals(
        "key 'g/.zattrs' holds a JSON array, expected an object",
        assertThrows(
                MetadataException.class,
                () ->
                    V2Metadata.parseGroup(
                        "g/.zgroup",
                        "{\"zarr_format\": 2}".getBytes(StandardCharsets.UTF_8),
                        "g/.zattrs",
                        "[1]".getBytes(StandardCharsets.UTF_8)))
            .getMessage());
  }

  @ParameterizedTest
  @CsvSource({
    "'<i2', int16, little", "'>i2', int16, big", "'|b1', bool, little", "'<b1', bool, little",
    "'|i1', int8, little", "'>i1', int8, little", "'<i4', int32, little", "'>i8', int64, big",
    "'|u1', uint8, little", "'<u2', uint16, little", "'>u4', uint32, big", "'<u8', uint64, little",
    "'<f2', float16, little", "'>f2', float16, big", "'>f4', float32, big",
        "'<f8', float64, little",
    "'<c8', complex64, little", "'>c8', complex64, big", "'>c16', complex128, big",
        "'|i4', int32, little"
  })
  void dataTypesAndByteOrders(String dtype, String name, String endian) {
    ArrayMetadata a = parse(with("dtype", "\"" + dtype + "\"").replace("\"NaN\"", "null"));
    assertEquals(name, a.dataType().name());
    assertEquals(endian, a.codecs().get(0).configuration().get("endian").asText());
  }

  @ParameterizedTest
  @CsvSource(
      delimiterString = " ~ ",
      quoteCharacter = '`',
      value = {
        "\"<x9\" ~ unknown data type '<x9' (zaro reads b1, i1, i2, i4, i8, u1, u2, u4, u8, f2, f4, f8, c8, c16 with byte order <, > or |)",
        "\"<i3\" ~ unknown data type '<i3' (zaro reads b1, i1, i2, i4, i8, u1, u2, u4, u8, f2, f4, f8, c8, c16 with byte order <, > or |)",
        "\"<f16\" ~ unknown data type '<f16' (zaro reads b1, i1, i2, i4, i8, u1, u2, u4, u8, f2, f4, f8, c8, c16 with byte order <, > or |)",
        "\"float\" ~ unknown data type 'float'",
        "\"\" ~ unknown data type ''",
        "[[\"a\", \"<i4\"], [\"a\", \"<f8\"]] ~ struct field 'a' appears twice",
        "[[\"a\", \"<i4\"], [\"b\", \"|O\"]] ~ structured field 'b': data type '|O' is not supported yet (zaro reads v2 data types b1, i1-i8, u1-u8, f2-f8, c8, c16, S<n>, U<n>, V<n>, M8[unit], m8[unit], structured dtypes of these, and vlen object arrays)",
        "[[\"a\", \"<i4\"], [\"b\", \"<x3\"]] ~ structured field 'b': unknown data type '<x3' (zaro reads b1, i1, i2, i4, i8, u1, u2, u4, u8, f2, f4, f8, c8, c16 with byte order <, > or |)",
        "[[\"a\", \"<i4\"], [\"p\", [[\"x\", \"<f4\"], [\"y\", 7]]]] ~ structured field 'p.y': type must be a numpy type string or a list of fields, not number 7",
        "[[\"a\", \"<i4\", [0]]] ~ structured field 'a': shape must be a list of positive sizes, not array [0]",
        "[[\"a\"]] ~ a structured field must be [name, type] or [name, type, shape], not array [\"a\"]",
        "[] ~ a structured dtype must be a non-empty list of fields, not array []",
        "[[\"a\", \"<f8\", [4096, 4096]]] ~ structured field 'a': holds more than 16777216 bytes",
        "[[\"a\", \"|V99999999\"]] ~ structured field 'a': data type '|V99999999': elements of more than 16777216 bytes",
        "[[\"a\", \"<i4\"], [\"b\", \">f8\"]] ~ structured fields of both byte orders ('a' little, 'b' big); zaro reads structured dtypes whose multi-byte fields share one byte order",
        "{\"names\": [\"a\", \"b\"], \"formats\": [\"<i4\", \"<i4\"], \"offsets\": [0, 2], \"itemsize\": 8} ~ struct fields 'a' (bytes 0..4) and 'b' (bytes 2..6) overlap",
        "{\"names\": [\"a\", \"b\"], \"formats\": [\"<i4\", \"<f8\"], \"offsets\": [0, 4], \"itemsize\": 8} ~ struct field 'b' (bytes 4..12) reaches past the item size of 8 bytes",
        "{\"names\": [\"a\"], \"formats\": [\"<i4\", \"<i4\"]} ~ a structured dtype object needs lists 'names' and 'formats' (and 'offsets') of one length and an integer 'itemsize', not object {\"names\":[\"a\"],\"formats\":[\"<i4\",\"<i4\"]}",
        "5 ~ must be a numpy type string such as \"<f8\", not number 5",
        "null ~ must be a numpy type string such as \"<f8\", not null null"
      })
  void badDataTypes(String dtype, String message) {
    assertEquals("key 'a/.zarray', field 'dtype': " + message, error(with("dtype", dtype)));
  }

  /**
   * Structured dtypes as zarr-python 2 writes them (numpy's descr): packed fields, subarray shapes,
   * nested structs, unnamed "|V<n>" padding; numpy's dict form with explicit offsets.
   */
  @Test
  void structuredDtypes() {
    ArrayMetadata a =
        parse(
            with(
                    "dtype",
                    "[[\"a\", \"|u1\"], [\"\", \"|V7\"], [\"b\", \"<f8\", [2, 3]],"
                        + " [\"p\", [[\"x\", \"<f4\"], [\"s\", \"|S3\"]]], [\"t\", \"<M8[s]\"], [\"\", \"|V2\"]]")
                .replace("\"NaN\"", "null"));
    DataType t = a.dataType();
    assertEquals(DataType.Kind.STRUCT, t.kind());
    assertEquals(1 + 7 + 48 + 7 + 8 + 2, t.byteSize());
    assertEquals(
        List.of("a", "b", "p", "t"), t.fields().stream().map(DataType.StructField::name).toList());
    assertEquals(
        List.of(0, 8, 56, 63), t.fields().stream().map(DataType.StructField::offset).toList());
    assertEquals(List.of(2, 3), t.fields().get(1).shape());
    assertEquals(DataType.nullTerminatedBytes(3), t.fields().get(2).type().fields().get(1).type());
    assertEquals(DataType.datetime("s"), t.fields().get(3).type());
    assertTrue(a.fillValue().isZero());
    assertEquals("|V73", new NumpyDtype(t, false).typestr());
    DataType dict =
        parse(
                with(
                        "dtype",
                        "{\"names\": [\"a\", \"b\"], \"formats\": [\"<i2\", \"<i2\"],"
                            + " \"offsets\": [4, 0], \"itemsize\": 8}")
                    .replace("\"NaN\"", "0"))
            .dataType();
    assertEquals(List.of(4, 0), dict.fields().stream().map(DataType.StructField::offset).toList());
    assertEquals(8, dict.byteSize());
  }

  /** A structured fill value is base64 of one element in the dtype's byte order (or 0, or null). */
  @ParameterizedTest
  @CsvSource(
      delimiterString = " ~ ",
      value = {
        "[[\"a\", \"<i4\"], [\"b\", \"<u2\"]] ~ \"BwAAAAkA\" ~ 07000000 0900",
        "[[\"a\", \">i4\"], [\"b\", \">u2\"]] ~ \"AAAABwAJ\" ~ 07000000 0900",
        "[[\"a\", \">i4\"], [\"b\", \">u2\"]] ~ 0 ~ 00000000 0000",
        "[[\"a\", \">i4\"], [\"b\", \">u2\"]] ~ null ~ 00000000 0000"
      })
  void structuredFillValues(String dtype, String fill, String hex) {
    ArrayMetadata a = parse(with("dtype", dtype).replace("\"NaN\"", fill));
    assertEquals(hex.replace(" ", ""), HexFormat.of().formatHex(a.fillValue().bytes()));
  }

  @ParameterizedTest
  @CsvSource(
      delimiterString = " ~ ",
      value = {
        "\"AAAA\" ~ key 'a/.zarray', field 'fill_value': fill_value holds 3 bytes (base64), the struct 6",
        "\"%%%\" ~ key 'a/.zarray', field 'fill_value': fill_value for a struct must be an object of field values (or base64 of the element), not \"%%%\"",
        "1.5 ~ key 'a/.zarray', field 'fill_value': must be base64 of one element (6 bytes) for a structured dtype, not number 1.5"
      })
  void badStructuredFillValues(String fill, String message) {
    assertEquals(
        message,
        error(with("dtype", "[[\"a\", \"<i4\"], [\"b\", \"<u2\"]]").replace("\"NaN\"", fill)));
  }

  /**
   * Fixed-width bytes (S: null-terminated, V: raw) and datetimes/timedeltas in every numpy unit
   * (with a count, as [10s]) map onto null_terminated_bytes, raw_bytes and numpy.datetime64.
   */
  @ParameterizedTest
  @CsvSource({
    "'|S12', null_terminated_bytes, 0",
    "'|V8', raw_bytes, '\"AAAAAAAAAAA=\"'",
    "'<M8[D]', numpy.datetime64[D], '\"NaT\"'",
    "'<M8[W]', numpy.datetime64[W], 0",
    "'<M8[M]', numpy.datetime64[M], 0",
    "'<M8[Y]', numpy.datetime64[Y], 0",
    "'<M8[h]', numpy.datetime64[h], 0",
    "'<m8[m]', numpy.timedelta64[m], 0",
    "'<M8[10s]', numpy.datetime64[10s], 0",
    "'<m8[3M]', numpy.timedelta64[3M], 0",
    "'<M8[ns]', numpy.datetime64[ns], '\"NaT\"'",
    "'>m8[s]', numpy.timedelta64[s], 0",
    "'<M8[ms]', numpy.datetime64[ms], -9223372036854775808"
  })
  void bytesAndTimes(String dtype, String name, String fill) {
    ArrayMetadata a = parse(with("dtype", "\"" + dtype + "\"").replace("\"NaN\"", fill));
    assertEquals(name, a.dataType().toString());
  }

  @ParameterizedTest
  @CsvSource(
      delimiterString = " ~ ",
      quoteCharacter = '`',
      value = {
        "\"<M8[ps]\" ~ field 'dtype': data type '<M8[ps]': time unit 'ps' is finer than Arrow's nanoseconds and is not supported (units: Y, M, W, D, h, m, s, ms, us, ns)",
        "\"<m8[as]\" ~ field 'dtype': data type '<m8[as]': time unit 'as' is finer than Arrow's nanoseconds and is not supported (units: Y, M, W, D, h, m, s, ms, us, ns)",
        "\"<M8[x]\" ~ field 'dtype': data type '<M8[x]': unknown time unit 'x' (known: Y, M, W, D, h, m, s, ms, us, ns)",
        "\"<M8[0s]\" ~ field 'dtype': data type '<M8[0s]': scale_factor 0 of unit 's' must be a positive integer",
        "\"<M8\" ~ field 'dtype': data type '<M8' is not supported (datetime64 and timedelta64 are, as M8[unit] and m8[unit])",
        "\"|V0\" ~ field 'dtype': data type '|V0' is not a fixed-length void type (|V<n>, n >= 1)",
        "\"|S0\" ~ field 'dtype': data type '|S0' is not a fixed-length bytes type (|S<n>, n >= 1)"
      })
  void unsupportedBytesAndTimes(String dtype, String message) {
    assertEquals(
        "key 'a/.zarray', " + message, error(with("dtype", dtype).replace("\"NaN\"", "0")));
  }

  /** Object arrays need vlen-utf8 or vlen-bytes as their object codec (the first filter). */
  @ParameterizedTest
  @CsvSource(
      delimiterString = " ~ ",
      quoteCharacter = '`',
      value = {
        "null ~ an object (\"|O\") array needs vlen-utf8, vlen-bytes, json2, msgpack2 or categorize as its object codec (first filter); found none",
        "[{\"id\": \"pickle\"}] ~ an object (\"|O\") array needs vlen-utf8, vlen-bytes, json2, msgpack2 or categorize as its object codec (first filter); found object {\"id\":\"pickle\"}",
        "[{\"id\": \"vlen-utf8\"}, {\"id\": \"delta\"}] ~ filters after the object codec vlen-utf8 are not supported"
      })
  void objectArraysNeedAVlenObjectCodec(String filters, String message) {
    assertEquals(
        "key 'a/.zarray', field 'filters': " + message,
        error(with("dtype", "\"|O\"").replace("\"filters\":null", "\"filters\":" + filters)));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"zarr_format", "shape", "chunks", "dtype", "compressor", "fill_value", "order"})
  void missingFields(String field) {
    assertEquals("key 'a/.zarray', field '" + field + "': is missing", error(with(field, null)));
  }

  @Test
  void filtersAndDimensionSeparatorMayBeAbsent() {
    ArrayMetadata a = parse(with("filters", null).replace(",\"dimension_separator\":\"/\"", ""));
    assertEquals(new ChunkKeyEncoding.V2Encoding('.'), a.chunkKeyEncoding());
    assertEquals(List.of("bytes", "numcodecs.zlib"), names(a));
    assertEquals(List.of("bytes", "numcodecs.zlib"), names(parse(with("filters", "[]"))));
  }

  @ParameterizedTest
  @CsvSource(
      delimiterString = " ~ ",
      quoteCharacter = '`',
      value = {
        "zarr_format ~ 3 ~ is 3; a .zarray document must have zarr_format 2",
        "zarr_format ~ \"2\" ~ must be an integer, not string \"2\"",
        "shape ~ \"x\" ~ must be a list of integers, not string \"x\"",
        "shape ~ [10, -1, 3] ~ element 1 must be an integer >= 0, not number -1",
        "chunks ~ [4, 0, 6] ~ element 1 must be an integer >= 1, not number 0",
        "chunks ~ [4, 5] ~ has 2 dimensions but shape has 3",
        "chunks ~ [4, 5, 3000000000] ~ chunks[2] = 3000000000 is too large",
        "order ~ \"K\" ~ must be \"C\" or \"F\", not \"K\"",
        "order ~ 1 ~ must be a string, not number 1",
        "dimension_separator ~ \"-\" ~ must be \".\" or \"/\", not string \"-\"",
        "filters ~ {\"id\": \"delta\"} ~ must be a list of numcodecs filter objects or null, not object {\"id\":\"delta\"}",
        "filters ~ [{\"dtype\": \"<f4\"}] ~ filter 0 must be an object with a string \"id\", not object {\"dtype\":\"<f4\"}",
        "filters ~ [\"delta\"] ~ filter 0 must be an object with a string \"id\", not string \"delta\"",
        "compressor ~ \"zlib\" ~ compressor must be an object with a string \"id\", not string \"zlib\"",
        "compressor ~ {\"id\": 3} ~ compressor must be an object with a string \"id\", not object {\"id\":3}",
        "fill_value ~ \"0x7fc00000\" ~ '0x7fc00000' is not a v2 fill value for float32 (a number, \"NaN\", \"Infinity\" or \"-Infinity\")",
        "fill_value ~ \"nan\" ~ fill_value 'nan' for float32 is not a number, \"NaN\", \"Infinity\", \"-Infinity\" or \"0x...\"",
        "fill_value ~ [1] ~ fill_value for float32 must be a number, not [1]"
      })
  void badFields(String field, String value, String message) {
    assertEquals("key 'a/.zarray', field '" + field + "': " + message, error(with(field, value)));
  }

  @ParameterizedTest
  @CsvSource(
      delimiterString = " ~ ",
      quoteCharacter = '`',
      value = {
        "<i2 ~ 1.5 ~ fill_value for int16 must be an integer, not 1.5",
        "<i2 ~ \"NaN\" ~ fill_value for int16 must be an integer, not \"NaN\"",
        "|u1 ~ 300 ~ fill_value 300 does not fit in uint8",
        "|u1 ~ -1 ~ fill_value -1 does not fit in uint8",
        "|b1 ~ \"yes\" ~ fill_value for bool must be true or false, not \"yes\"",
        "<c8 ~ 1.0 ~ fill_value for complex64 must be a [real, imaginary] pair, not 1.0"
      })
  void badFillValues(String dtype, String fill, String message) {
    String json = with("dtype", "\"" + dtype + "\"").replace("\"NaN\"", fill);
    assertEquals("key 'a/.zarray', field 'fill_value': " + message, error(json));
  }

  static byte[] fill(String dtype, String fill) {
    return parse(with("dtype", "\"" + dtype + "\"").replace("\"NaN\"", fill)).fillValue().bytes();
  }

  @Test
  void fillValues() {
    assertArrayEquals(new byte[4], fill("<f4", "null"), "null: no fill value, read as zeros");
    assertArrayEquals(new byte[16], fill("<c16", "null"));
    ByteBuffer inf = ByteBuffer.wrap(fill(">f8", "\"-Infinity\"")).order(ByteOrder.LITTLE_ENDIAN);
    assertEquals(Double.NEGATIVE_INFINITY, inf.getDouble());
    assertEquals(
        Float.POSITIVE_INFINITY,
        ByteBuffer.wrap(fill("<f4", "\"Infinity\"")).order(ByteOrder.LITTLE_ENDIAN).getFloat());
    assertArrayEquals(
        new byte[] {(byte) 0xf9, (byte) 0xff}, fill(">i2", "-7"), "stored little endian in memory");
    assertArrayEquals(
        new byte[] {-1, -1, -1, -1, -1, -1, -1, -1}, fill("<u8", "18446744073709551615"));
    assertArrayEquals(new byte[] {1}, fill("|b1", "true"));
    assertArrayEquals(new byte[] {1}, fill("|b1", "1"));
    assertArrayEquals(new byte[] {0}, fill("|b1", "0"));
    assertArrayEquals(new byte[] {3, 0}, fill("<i2", "3.0"));
    ByteBuffer c = ByteBuffer.wrap(fill("<c8", "[1.5, \"NaN\"]")).order(ByteOrder.LITTLE_ENDIAN);
    assertEquals(1.5f, c.getFloat());
    assertEquals(Float.NaN, c.getFloat());
    assertEquals(
        0x7e00,
        ByteBuffer.wrap(fill("<f2", "\"NaN\"")).order(ByteOrder.LITTLE_ENDIAN).getShort() & 0xffff);
  }

  @Test
  void orderFBecomesATransposeBeforeTheFilters() {
    ArrayMetadata a =
        parse(
            with("order", "\"F\"")
                .replace(
                    "null,\"dimension", "[{\"id\":\"delta\",\"dtype\":\"<f4\"}]," + "\"dimension"));
    assertEquals(List.of("transpose", "numcodecs.delta", "bytes", "numcodecs.zlib"), names(a));
    assertEquals("[2,1,0]", a.codecs().get(0).configuration().get("order").toString());
    ArrayMetadata oneD =
        parse(with("order", "\"F\"").replace("[10,20,30]", "[10]").replace("[4,5,6]", "[4]"));
    assertEquals(List.of("bytes", "numcodecs.zlib"), names(oneD), "order F of a 1-d array is C");
  }

  @Test
  void compressorsBecomeV3CodecsWhereV3HasThem() {
    JsonNode gzip =
        parse(with("compressor", "{\"id\":\"gzip\",\"level\":4}")).codecs().get(1).configuration();
    assertEquals("{\"level\":4}", gzip.toString());
    assertEquals("gzip", parse(with("compressor", "{\"id\":\"gzip\"}")).codecs().get(1).name());
    ArrayMetadata zstd =
        parse(with("compressor", "{\"id\":\"zstd\",\"level\":3,\"checksum\":true}"));
    assertEquals("zstd", zstd.codecs().get(1).name());
    assertEquals(
        "{\"level\":3,\"checksum\":true}", zstd.codecs().get(1).configuration().toString());
    ArrayMetadata blosc =
        parse(
            with(
                "compressor",
                "{\"id\":\"blosc\",\"cname\":\"zstd\",\"clevel\":3,\"shuffle\":2,\"blocksize\":0}"));
    assertEquals("blosc", blosc.codecs().get(1).name());
    assertEquals(
        "{\"cname\":\"zstd\",\"clevel\":3,\"shuffle\":\"bitshuffle\",\"typesize\":4,\"blocksize\":0}",
        blosc.codecs().get(1).configuration().toString());
    ArrayMetadata auto =
        parse(
            with("compressor", "{\"id\":\"blosc\",\"shuffle\":-1}")
                .replace("<f4", "|u1")
                .replace("\"NaN\"", "0"));
    assertEquals(
        "{\"cname\":\"lz4\",\"clevel\":5,\"shuffle\":\"bitshuffle\",\"typesize\":1,\"blocksize\":0}",
        auto.codecs().get(1).configuration().toString());
    for (String id : new String[] {"lz4", "bz2", "lzma", "zlib"}) {
      assertEquals(
          "numcodecs." + id,
          parse(with("compressor", "{\"id\":\"" + id + "\"}")).codecs().get(1).name());
    }
    assertEquals(List.of("bytes"), names(parse(with("compressor", "null"))));
  }

  @ParameterizedTest
  @CsvSource(
      delimiterString = " ~ ",
      quoteCharacter = '`',
      value = {
        "{\"id\":\"gzip\",\"level\":\"9\"} ~ gzip: 'level' must be an integer, not string \"9\"",
        "{\"id\":\"gzip\",\"mtime\":0} ~ gzip: unknown field 'mtime' (known: id, level)",
        "{\"id\":\"zstd\",\"checksum\":1} ~ zstd: 'checksum' must be true or false, not number 1",
        "{\"id\":\"blosc\",\"shuffle\":3} ~ blosc: 'shuffle' must be 0, 1, 2 or -1, not 3",
        "{\"id\":\"blosc\",\"cname\":5} ~ blosc: 'cname' must be a string, not number 5",
        "{\"id\":\"blosc\",\"typo\":5} ~ blosc: unknown field 'typo' (known: id, blocksize, clevel, cname, shuffle, typesize)"
      })
  void badCompressors(String compressor, String message) {
    assertEquals(
        "key 'a/.zarray', field 'compressor': " + message, error(with("compressor", compressor)));
  }

  @Test
  void filtersBecomeArrayCodecsAndTheBytesCodecFollowsTheirType() {
    ArrayMetadata a =
        parse(
            with(
                "filters",
                "[{\"id\":\"fixedscaleoffset\",\"offset\":1,\"scale\":10,"
                    + "\"dtype\":\"<f4\",\"astype\":\">i2\"},{\"id\":\"shuffle\"}]"));
    assertEquals(
        List.of("numcodecs.fixedscaleoffset", "bytes", "numcodecs.shuffle", "numcodecs.zlib"),
        names(a));
    assertEquals(
        "big",
        a.codecs().get(1).configuration().get("endian").asText(),
        "stored as the >i2 astype");
    assertEquals(
        4, a.codecs().get(2).configuration().get("elementsize").asInt(), "numcodecs' default");
    ArrayMetadata packed =
        parse(
            with("filters", "[{\"id\":\"packbits\"}]")
                .replace("<f4", "|b1")
                .replace("\"NaN\"", "false"));
    assertEquals(List.of("numcodecs.packbits", "bytes", "numcodecs.zlib"), names(packed));
    ArrayMetadata astype =
        parse(
            with(
                "filters",
                "[{\"id\":\"astype\",\"encode_dtype\":\">f8\",\"decode_dtype\":\"<f4\"}]"));
    assertEquals("big", astype.codecs().get(1).configuration().get("endian").asText());
    ArrayMetadata numbers = parse(with("filters", "[{\"id\":\"categorize\",\"labels\":[\"a\"]}]"));
    assertEquals(List.of("numcodecs.categorize", "bytes", "numcodecs.zlib"), names(numbers));
    CodecException e =
        assertThrows(
            CodecException.class,
            () ->
                CodecChain.resolve(
                    numbers.codecs(),
                    new ChunkSpec(numbers.chunkShape(), numbers.dataType(), numbers.fillValue()),
                    CodecRegistry.defaults()));
    assertTrue(
        e.getMessage().startsWith("codec numcodecs.categorize: decodes to text"), e.getMessage());
  }

  @ParameterizedTest
  @CsvSource(
      delimiterString = " ~ ",
      quoteCharacter = '`',
      value = {
        "[{\"id\":\"shuffle\"},{\"id\":\"delta\",\"dtype\":\"<f4\"}] ~ filter 1 (delta) comes after the byte filter shuffle;"
            + " zaro reads byte filters only after every array filter",
        "[{\"id\":\"delta\",\"dtype\":\"<x4\"}] ~ filter 0 (delta): 'dtype': unknown data type '<x4' (zaro"
            + " reads b1, i1, i2, i4, i8, u1, u2, u4, u8, f2, f4, f8, c8, c16 with byte order <, > or |)",
        "[{\"id\":\"astype\",\"encode_dtype\":7}] ~ filter 0 (astype): 'encode_dtype' must be a numpy type"
            + " string, not number 7"
      })
  void badFilters(String filters, String message) {
    assertEquals("key 'a/.zarray', field 'filters': " + message, error(with("filters", filters)));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"_ARRAY_DIMENSIONS\": [\"y\", \"x\"]}",
        "{\"_ARRAY_DIMENSIONS\": \"t\"}",
        "{\"_ARRAY_DIMENSIONS\": [\"t\", 1, \"x\"]}",
        "{}"
      })
  void malformedArrayDimensionsAreIgnored(String attrs) {
    ArrayMetadata a = parse(ARRAY, attrs);
    assertEquals(Arrays.asList(null, null, null), a.dimensionNames());
    assertEquals("dim_2", a.dimensionName(2));
    assertEquals(
        Json.valueToTree(JsonDocument.parse("x", attrs.getBytes(StandardCharsets.UTF_8)).root()),
        a.attributes());
  }

  @Test
  void badAttributesNameTheirKey() {
    MetadataException e = assertThrows(MetadataException.class, () -> parse(ARRAY, "not json"));
    assertTrue(e.getMessage().startsWith("key 'a/.zattrs' is not valid JSON"), e.getMessage());
    e = assertThrows(MetadataException.class, () -> parse(ARRAY, "\"text\""));
    assertEquals("key 'a/.zattrs' holds a JSON string, expected an object", e.getMessage());
    e = assertThrows(MetadataException.class, () -> parse("{\"zarr_format\": 2,"));
    assertTrue(e.getMessage().startsWith("key 'a/.zarray' is not valid JSON"), e.getMessage());
  }

  @Test
  void numpyDtypes() {
    assertEquals(new NumpyDtype(DataType.INT32, true), NumpyDtype.parse(">i4"));
    assertEquals(new NumpyDtype(DataType.FLOAT64, false), NumpyDtype.parse("float64"));
    assertEquals(new NumpyDtype(DataType.UINT16, false), NumpyDtype.parse("u2"));
    assertEquals(new NumpyDtype(DataType.UINT16, false), NumpyDtype.parse("=u2"));
    assertEquals(">c16", NumpyDtype.parse(">c16").typestr());
    assertEquals("|u1", NumpyDtype.parse(">u1").typestr());
    assertFalse(NumpyDtype.parse(">b1").bigEndian());
    assertNull(
        assertThrows(IllegalArgumentException.class, () -> NumpyDtype.parse("<q8")).getCause());
  }
}
