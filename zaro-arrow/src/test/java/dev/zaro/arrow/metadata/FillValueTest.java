package dev.zaro.arrow.metadata;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.error.MetadataException;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.internal.HalfFloat;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class FillValueTest {
  static JsonNode json(String s) throws Exception {
    return Json.readTree(s);
  }

  static byte[] fill(String json, DataType type) throws Exception {
    return FillValue.parse(json(json), type, "k").bytes();
  }

  static ByteBuffer le(int n) {
    return ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
  }

  @Test
  void everyForm() throws Exception {
    assertArrayEquals(new byte[] {1}, fill("true", DataType.BOOL));
    assertArrayEquals(le(2).putShort((short) -3).array(), fill("-3", DataType.INT16));
    assertArrayEquals(
        new byte[] {-1, -1, -1, -1, -1, -1, -1, -1}, fill("18446744073709551615", DataType.UINT64));
    assertArrayEquals(le(4).putFloat(Float.NaN).array(), fill("\"NaN\"", DataType.FLOAT32));
    assertArrayEquals(
        le(8).putDouble(Double.POSITIVE_INFINITY).array(), fill("\"Infinity\"", DataType.FLOAT64));
    assertArrayEquals(
        le(8).putDouble(Double.NEGATIVE_INFINITY).array(), fill("\"-Infinity\"", DataType.FLOAT64));
    assertArrayEquals(le(4).putInt(0x7fc00001).array(), fill("\"0x7fc00001\"", DataType.FLOAT32));
    assertArrayEquals(
        le(8).putFloat(1.5f).putFloat(-2f).array(), fill("[1.5, -2]", DataType.COMPLEX64));
    assertArrayEquals(
        le(16).putDouble(Double.NaN).putDouble(3).array(),
        fill("[\"NaN\", 3]", DataType.COMPLEX128));
    assertArrayEquals(new byte[] {1, 2, (byte) 255}, fill("[1, 2, 255]", DataType.raw(24)));
    // float16: 1.0 is 0x3c00, -2.5 is 0xc100, 65504 is the largest finite 0x7bff
    assertArrayEquals(le(2).putShort((short) 0x3c00).array(), fill("1.0", DataType.FLOAT16));
    assertArrayEquals(le(2).putShort((short) 0xc100).array(), fill("-2.5", DataType.FLOAT16));
    assertArrayEquals(le(2).putShort((short) 0x7bff).array(), fill("65504", DataType.FLOAT16));
    assertArrayEquals(le(2).putShort((short) 0x7e00).array(), fill("\"0x7e00\"", DataType.FLOAT16));
    // 1 + 2^-11 + 2^-30 lies just above the midpoint of 0x3c00 and 0x3c01: one rounding gives
    // 0x3c01 (numpy agrees); rounding to float first would land on the tie and give 0x3c00
    assertArrayEquals(
        le(2).putShort((short) 0x3c01).array(),
        fill("1.000488282181322574615478515625", DataType.FLOAT16));
    assertEquals(1.0f, HalfFloat.toFloat((short) 0x3c00));
    assertEquals(-2.5f, HalfFloat.toFloat((short) 0xc100));
  }

  @Test
  void invalidFillValues() {
    String[][] cases = {
      {"300", "uint8"},
      {"-1", "uint32"},
      {"1.5", "int32"},
      {"\"1\"", "int8"},
      {"1", "bool"},
      {"\"0x7fc0\"", "float32"},
      {"[1]", "complex64"},
      {"true", "float64"},
      {"[1, 2]", "r24"},
      {"[1, 2, 256]", "r24"},
      {"null", "int8"},
      {"\"nan\"", "float32"}
    };
    for (String[] c : cases) {
      DataType type = DataType.ofV3Name(c[1], "k");
      assertThrows(MetadataException.class, () -> fill(c[0], type), c[0] + " as " + c[1]);
    }
  }
}
