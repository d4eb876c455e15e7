package dev.zaro.arrow.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.zaro.arrow.error.MetadataException;
import dev.zaro.arrow.metadata.internal.V3Metadata;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The zarr-extensions data types int2/int4/uint2/uint4, float4/float6 and struct (with the legacy
 * "structured" form): parsing, fill values, and bad metadata named down to the struct field. Values
 * read from real stores are checked by FixtureReadTest (testdata/dtypes, testdata/fallback).
 */
class V3DataTypeExtensionsTest {

  static ArrayMetadata array(String dataType, String fill) {
    String json =
        """
        {"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": %s,
         "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
         "chunk_key_encoding": {"name": "default"}, "fill_value": %s,
         "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}
        """
            .formatted(dataType, fill);
    return (ArrayMetadata) V3Metadata.parse("a/zarr.json", json.getBytes(StandardCharsets.UTF_8));
  }

  static String hex(ArrayMetadata a) {
    return HexFormat.of().formatHex(a.fillValue().bytes());
  }

  static final String STRUCT =
      """
      {"name": "struct", "configuration": {"fields": [
        {"name": "id", "data_type": "int32"}, {"name": "n", "data_type": "int4"},
        {"name": "p", "data_type": {"name": "struct", "configuration": {"fields": [
          {"name": "x", "data_type": {"name": "float32"}}, {"name": "t", "data_type":
            {"name": "numpy.datetime64", "configuration": {"unit": "ms", "scale_factor": 1}}}]}}},
        {"name": "raw", "data_type": "r16"}]}}""";

  /** One byte a value; the fill value is stored as the int8/uint8 value zaro reads. */
  @ParameterizedTest
  @CsvSource({
    "int4, -8, f8, INT",
    "int4, 7, 07, INT",
    "int2, -1, ff, INT",
    "uint4, 15, 0f, UINT",
    "uint2, 3, 03, UINT"
  })
  void narrowIntegers(String name, String fill, String hex, DataType.Kind kind) {
    ArrayMetadata a = array("\"" + name + "\"", fill);
    assertEquals(kind, a.dataType().kind());
    assertEquals(8, a.dataType().bits());
    assertEquals(Integer.parseInt(name.substring(name.length() - 1)), a.dataType().valueBits());
    assertEquals(hex, hex(a));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "\"int4\"          | 8           | fill_value 8 does not fit in int4",
        "\"uint2\"         | -1          | fill_value -1 does not fit in uint2",
        "\"int2\"          | 2           | fill_value 2 does not fit in int2",
        "\"float4_e2m1fn\" | \"NaN\"      | fill_value \"NaN\" for float4_e2m1fn is not a number it has",
        "\"float6_e3m2fn\" | \"-Infinity\" | fill_value \"-Infinity\" for float6_e3m2fn is not a number it has",
        "\"float6_e2m3fn\" | \"0x40\"     | fill_value '0x40' for float6_e2m3fn has bits set above its 6 value bits"
      })
  void badNarrowFillValues(String type, String fill, String message) {
    MetadataException e = assertThrows(MetadataException.class, () -> array(type, fill));
    assertEquals(
        "key 'a/zarr.json', field 'fill_value': "
            + message
            + (message.contains("not a number") ? " (it has no infinities and no NaN)" : ""),
        e.getMessage());
  }

  /**
   * float4/float6 fill values round as ml_dtypes does (testdata/fallback/conversions.json checks
   * every case).
   */
  @ParameterizedTest
  @CsvSource({
    "float4_e2m1fn, 1.5, 03",
    "float4_e2m1fn, -6, 0f",
    "float4_e2m1fn, 100, 07",
    "float6_e2m3fn, -0.875, 27",
    "float6_e3m2fn, 3, 12",
    "float6_e3m2fn, \"0x3f\", 3f"
  })
  void smallFloatFillValues(String name, String fill, String hex) {
    ArrayMetadata a = array("\"" + name + "\"", fill);
    assertEquals(DataType.Kind.UINT, a.dataType().kind());
    assertEquals(8, a.dataType().bits());
    assertEquals(name, a.dataType().fallbackFormat().orElseThrow().name());
    assertEquals(hex, hex(a));
  }

  @Test
  void structFieldsArePackedInOrder() {
    ArrayMetadata a =
        array(
            STRUCT,
            """
        {"id": -2, "n": -1, "p": {"x": 1.5, "t": "NaT"}, "raw": [1, 2]}""");
    DataType t = a.dataType();
    assertEquals(DataType.Kind.STRUCT, t.kind());
    assertEquals(4 + 1 + 12 + 2, t.byteSize());
    assertEquals(
        List.of(0, 4, 5, 17), t.fields().stream().map(DataType.StructField::offset).toList());
    assertEquals(
        List.of(0, 4),
        t.fields().get(2).type().fields().stream().map(DataType.StructField::offset).toList());
    assertEquals(
        "struct{id: int32, n: int4, p: struct{x: float32, t: numpy.datetime64[ms]}, raw: r16}",
        t.toString());
    assertEquals("feffffff" + "ff" + "0000c03f" + "0000000000000080" + "0102", hex(a));
    assertEquals(true, t.hasNarrowValues());
    assertEquals(0, t.swapUnit());
  }

  /** zarr-extensions' legacy "structured": [name, type] fields, base64 fill, no endian needed. */
  @Test
  void legacyStructured() {
    ArrayMetadata a =
        array(
            "{\"name\": \"structured\", \"configuration\": {\"fields\": [[\"a\", \"int16\"], [\"b\", \"uint8\"]]}}",
            "\"BwAJ\"");
    assertEquals(
        List.of("a", "b"), a.dataType().fields().stream().map(DataType.StructField::name).toList());
    assertEquals("070009", hex(a));
  }

  /** A base64 fill value's narrow fields read as the bytes codec reads them: upper bits ignored. */
  @Test
  void base64FillOfNarrowFieldsIsCanonical() {
    ArrayMetadata a =
        array(
            "{\"name\": \"structured\", \"configuration\": {\"fields\": [[\"a\", \"int4\"], [\"b\", \"uint2\"]]}}",
            "\"ef4=\"");
    assertEquals("f902", hex(a));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "{\"name\": \"struct\", \"configuration\": {\"fields\": []}} | {} "
            + "| field 'data_type': a struct needs configuration.fields, a non-empty list, not array []",
        "{\"name\": \"struct\", \"configuration\": {\"fields\": [{\"name\": \"a\", \"data_type\": \"float128\"}]}} | {} "
            + "| field 'data_type', struct field 'a': unknown data type 'float128' (known: bool,",
        "{\"name\": \"struct\", \"configuration\": {\"fields\": [{\"name\": \"s\", \"data_type\": \"string\"}]}} | {} "
            + "| field 'data_type': struct field 's' has the variable-length type string; struct fields need a fixed size",
        "{\"name\": \"struct\", \"configuration\": {\"fields\": [{\"name\": \"a\", \"data_type\": \"int8\"}, {\"name\": \"a\", \"data_type\": \"int8\"}]}} | {} "
            + "| field 'data_type': struct field 'a' appears twice",
        "{\"name\": \"struct\", \"configuration\": {\"fields\": [[\"a\", \"int8\"]]}} | {} "
            + "| field 'data_type': struct field 0 must be {\"name\": ..., \"data_type\": ...}, not array [\"a\",\"int8\"]",
        "{\"name\": \"struct\", \"configuration\": {\"fields\": [{\"name\": \"a\", \"data_type\": \"int8\"}]}} | {} "
            + "| field 'fill_value', struct field 'a': missing from the fill_value (a struct's fill_value names every field)",
        "{\"name\": \"struct\", \"configuration\": {\"fields\": [{\"name\": \"a\", \"data_type\": \"int8\"}]}} | {\"a\": 1, \"b\": 2} "
            + "| field 'fill_value': fill_value names 'b', which is not a field of struct{a: int8}",
        "{\"name\": \"struct\", \"configuration\": {\"fields\": [{\"name\": \"a\", \"data_type\": \"int8\"}]}} | {\"a\": 300} "
            + "| field 'fill_value', struct field 'a': fill_value 300 does not fit in int8",
        "{\"name\": \"struct\", \"configuration\": {\"fields\": [{\"name\": \"a\", \"data_type\": \"int4\"}]}} | {\"a\": \"x\"} "
            + "| field 'fill_value', struct field 'a': fill_value for int4 must be an integer, not \"x\"",
        "{\"name\": \"struct\", \"configuration\": {\"fields\": [{\"name\": \"a\", \"data_type\": \"int8\"}]}} | 5 "
            + "| field 'fill_value': fill_value for a struct must be an object of field values, not 5"
      })
  void badStructsNameTheField(String type, String fill, String message) {
    MetadataException e = assertThrows(MetadataException.class, () -> array(type, fill));
    String want = "key 'a/zarr.json', " + message;
    assertEquals(
        want, e.getMessage().substring(0, Math.min(want.length(), e.getMessage().length())));
  }
}
