package dev.zaro.arrow.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.store.MemoryStore;
import dev.zaro.arrow.vector.SlabVectors;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Bad input for numpy's time units, the zarr-python 3.1 byte types and numcodecs configurations
 * with an "id" (issue 21): each is a typed error naming the key and field, or the array and the
 * unit, never a wrong value.
 */
class NumpyTypesBadInputTest extends AllocatorTest {

  static String meta(String dataType, String fill, String codecs) {
    return "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[2],\"data_type\":"
        + dataType
        + ",\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[2]}},"
        + "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":"
        + fill
        + ",\"codecs\":"
        + codecs
        + "}";
  }

  static final String BYTES = "[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}]";

  private ZaroException fails(String zarrJson, byte[] chunk) {
    MemoryStore store = new MemoryStore().put("a/zarr.json", zarrJson);
    if (chunk != null) {
      store.put("a/c/0", chunk);
    }
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults())) {
      return assertThrows(
          ZaroException.class,
          () -> {
            try (Slab slab = zaro.read("a", "", allocator);
                FieldVector v = SlabVectors.tensor(slab)) {
              v.getValueCount();
            }
          });
    }
  }

  private static String time(String name, String unit, String scale) {
    return "{\"name\":\""
        + name
        + "\",\"configuration\":{\"unit\":\""
        + unit
        + "\""
        + (scale == null ? "" : ",\"scale_factor\":" + scale)
        + "}}";
  }

  @ParameterizedTest
  @CsvSource(
      delimiterString = " ~ ",
      value = {
        "numpy.datetime64 ~ fortnight ~ 1 ~ unknown time unit 'fortnight' (known: Y, M, W, D, h,"
            + " m, s, ms, us, ns)",
        "numpy.datetime64 ~ ps ~ 1 ~ time unit 'ps' is finer than Arrow's nanoseconds",
        "numpy.timedelta64 ~ as ~ 1 ~ time unit 'as' is finer than Arrow's nanoseconds",
        "numpy.datetime64 ~ s ~ 0 ~ configuration.scale_factor must be a positive integer, not"
            + " number 0",
        "numpy.timedelta64 ~ D ~ -3 ~ configuration.scale_factor must be a positive integer, not"
            + " number -3",
        "numpy.datetime64 ~ D ~ 1.5 ~ configuration.scale_factor must be a positive integer, not"
            + " number 1.5",
      })
  void badTimeUnits(String name, String unit, String scale, String message) {
    ZaroException e = fails(meta(time(name, unit, scale), "0", BYTES), null);
    assertTrue(e.getMessage().contains("key 'a/zarr.json', field 'data_type'"), e.getMessage());
    assertTrue(e.getMessage().contains(message), e.getMessage());
  }

  @ParameterizedTest
  @CsvSource(
      delimiterString = " ~ ",
      value = {
        "{\"name\":\"null_terminated_bytes\",\"configuration\":{\"length_bytes\":0}} ~ \"\" ~"
            + " field 'data_type': null_terminated_bytes needs configuration.length_bytes, a"
            + " positive integer, not number 0",
        "{\"name\":\"raw_bytes\",\"configuration\":{}} ~ \"\" ~ field 'data_type': raw_bytes needs"
            + " configuration.length_bytes, a positive integer, not missing",
        "{\"name\":\"raw_bytes\",\"configuration\":{\"length_bytes\":4}} ~ \"AQID\" ~ field"
            + " 'fill_value': fill_value 'AQID' decodes to 3 bytes; raw_bytes elements are 4"
            + " bytes",
        "{\"name\":\"null_terminated_bytes\",\"configuration\":{\"length_bytes\":2}} ~ \"AQID\" ~"
            + " field 'fill_value': fill_value 'AQID' decodes to 3 bytes; null_terminated_bytes"
            + " elements are at most 2 bytes",
        "{\"name\":\"raw_bytes\",\"configuration\":{\"length_bytes\":4}} ~ \"%%%%\" ~ field"
            + " 'fill_value': fill_value '%%%%' for raw_bytes is not base64",
      })
  void badBytesTypes(String dataType, String fill, String message) {
    ZaroException e = fails(meta(dataType, fill, "[{\"name\":\"bytes\"}]"), null);
    assertTrue(e.getMessage().contains("key 'a/zarr.json', " + message), e.getMessage());
  }

  /** A fill value past Arrow's date32 range: an error naming the field. */
  @Test
  void fillValuePastArrowsRange() {
    ZaroException e = fails(meta(time("numpy.datetime64", "D", "1"), "3000000000", BYTES), null);
    assertTrue(
        e.getMessage()
            .contains(
                "field 'fill_value': fill_value: value 3000000000 of unit 'D' does not fit Arrow"
                    + " date32 (int32 days since 1970-01-01) (a date past Arrow's range)"),
        e.getMessage());
  }

  static byte[] longs(long... values) {
    ByteBuffer b = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
    for (long v : values) {
      b.putLong(v);
    }
    return b.array();
  }

  /** Stored values that do not fit their Arrow unit: an error naming the array and the unit. */
  @ParameterizedTest
  @CsvSource(
      delimiterString = " ~ ",
      value = {
        "numpy.datetime64 ~ D ~ 1 ~ 3000000000 ~ value 3000000000 of unit 'D' does not fit Arrow"
            + " date32",
        "numpy.datetime64 ~ Y ~ 1 ~ 9000000 ~ value 9000000 of unit 'Y' does not fit Arrow"
            + " date32",
        "numpy.datetime64 ~ h ~ 1 ~ 9000000000000000 ~ value 9000000000000000 of unit 'h' does"
            + " not fit an Arrow timestamp in seconds",
        "numpy.datetime64 ~ s ~ 10 ~ 9000000000000000000 ~ value 9000000000000000000 of unit"
            + " '10s' does not fit an Arrow timestamp in seconds",
        "numpy.timedelta64 ~ Y ~ 1 ~ 900000000 ~ value 900000000 of unit 'Y' does not fit Arrow's"
            + " month interval",
      })
  void valuesPastTheirArrowUnit(String name, String unit, String scale, long value, String msg) {
    ZaroException e = fails(meta(time(name, unit, scale), "0", BYTES), longs(1, value));
    assertEquals(ErrorKind.UNSUPPORTED, e.kind());
    assertTrue(e.getMessage().contains("array 'a'"), e.getMessage());
    assertTrue(e.getMessage().contains(msg), e.getMessage());
  }

  /** A numcodecs.* configuration whose "id" names another codec: an error naming both. */
  @Test
  void numcodecsIdNamingAnotherCodec() {
    String codecs =
        "[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}},"
            + "{\"name\":\"numcodecs.zlib\",\"configuration\":{\"id\":\"gzip\",\"level\":1}}]";
    ZaroException e = fails(meta("\"int64\"", "0", codecs), longs(1, 2));
    assertTrue(
        e.getMessage()
            .contains(
                "codec numcodecs.zlib: configuration field 'id' is string \"gzip\", which names"
                    + " another codec than numcodecs.zlib (expected \"zlib\" or no 'id')"),
        e.getMessage());
  }

  /** zarr-extensions' names for complex64 and complex128. */
  @Test
  void complexFloatNames() {
    assertEquals(DataType.COMPLEX64, DataType.ofV3Name("complex_float32", "here"));
    assertEquals(DataType.COMPLEX128, DataType.ofV3Name("complex_float64", "here"));
  }
}
