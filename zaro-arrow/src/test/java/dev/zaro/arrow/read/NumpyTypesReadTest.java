package dev.zaro.arrow.read;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.vector.FixedShapeTensorVector;
import dev.zaro.arrow.vector.SlabVectors;
import dev.zaro.arrow.vector.TableReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every array of testdata/numpytypes: numpy's time units (v2 from zarr-python 2, v3 as zarr-python
 * 3.1 writes them, scale factors, NaT), fixed-length bytes (v2 {@code |S}/{@code |V}, v3 {@code
 * null_terminated_bytes}/{@code raw_bytes} with base64 fill values) and zarr-python 3.0.x's
 * numcodecs configurations carrying their own {@code "id"}: the tensor and table layouts hold
 * numpy's values converted to the Arrow mapping (docs/formats.md, "Arrow shapes"), NaT as null.
 */
class NumpyTypesReadTest extends AllocatorTest {

  static Path dir() {
    return Fixtures.testdata().resolve("numpytypes");
  }

  static Stream<Arguments> cases() throws IOException {
    List<Arguments> out = new ArrayList<>();
    for (String file : List.of("cases_v2.json", "cases_v3.json")) {
      JsonNode doc = Json.readTree(Files.readAllBytes(dir().resolve(file)));
      for (JsonNode c : doc.get("cases")) {
        out.add(Arguments.of(c.get("name").asText(), c));
      }
    }
    return out.stream();
  }

  /** The Arrow type each case's "arrow" names. */
  private static final Map<String, ArrowType> ARROW =
      Map.of(
          "date32", new ArrowType.Date(DateUnit.DAY),
          "timestamp[s]", new ArrowType.Timestamp(TimeUnit.SECOND, null),
          "timestamp[ms]", new ArrowType.Timestamp(TimeUnit.MILLISECOND, null),
          "timestamp[ns]", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null),
          "duration[s]", new ArrowType.Duration(TimeUnit.SECOND),
          "month_interval", new ArrowType.Interval(IntervalUnit.YEAR_MONTH),
          "binary", ArrowType.Binary.INSTANCE,
          "fixed_size_binary[4]", new ArrowType.FixedSizeBinary(4),
          "int32", new ArrowType.Int(32, true),
          "float32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void tensorLayoutHoldsNumpysValues(String name, JsonNode c) {
    String store = dir().resolve(c.get("store").asText()).toString();
    try (Zaro zaro = Zaro.open(store);
        Slab slab = zaro.read("", "", allocator);
        FieldVector vector = SlabVectors.tensor(slab)) {
      FieldVector values =
          vector instanceof FixedShapeTensorVector t
              ? t.getUnderlyingVector().getDataVector()
              : ((FixedSizeListVector) vector).getDataVector();
      assertEquals(ARROW.get(c.get("arrow").asText()), values.getField().getType(), name);
      assertEquals(c.get("values").toString(), valuesOf(values, 0).toString(), name);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void tableLayoutHoldsNumpysValues(String name, JsonNode c) {
    String store = dir().resolve(c.get("store").asText()).toString();
    List<JsonNode> got = new ArrayList<>();
    try (Zaro zaro = Zaro.open(store);
        TableReader table = zaro.readTable("", "", allocator)) {
      VectorSchemaRoot root = table.getVectorSchemaRoot();
      while (table.loadNextBatch()) {
        FieldVector values = root.getVector(root.getFieldVectors().size() - 1);
        assertEquals(ARROW.get(c.get("arrow").asText()), values.getField().getType(), name);
        valuesOf(values, 0).forEach(got::add);
      }
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    assertEquals(c.get("values").toString(), Json.valueToTree(got).toString(), name);
  }

  /**
   * A datetime64[D] coordinate (xarray's layout, zarr-python 2) labels the table layout's rows as
   * date32, numpy's days.
   */
  @Test
  void datetimeCoordinateIsADate32DimensionColumn() throws IOException {
    JsonNode c =
        Json.readTree(Files.readAllBytes(dir().resolve("cases_v2.json"))).get("coordinates");
    List<String> dims = new ArrayList<>();
    List<String> values = new ArrayList<>();
    try (Zaro zaro = Zaro.open(dir().resolve(c.get("store").asText()).toString());
        TableReader table = zaro.readTable(c.get("path").asText(), "", allocator)) {
      VectorSchemaRoot root = table.getVectorSchemaRoot();
      while (table.loadNextBatch()) {
        FieldVector time = root.getVector(c.get("dimension").asText());
        assertEquals(new ArrowType.Date(DateUnit.DAY), time.getField().getType());
        valuesOf(time, 0).forEach(v -> dims.add(v.toString()));
        valuesOf(root.getVector(root.getFieldVectors().size() - 1), 0)
            .forEach(v -> values.add(v.toString()));
      }
    }
    assertEquals(c.get("dimension_values").toString(), "[" + String.join(",", dims) + "]");
    assertEquals(c.get("values").toString(), "[" + String.join(",", values) + "]");
  }

  /** The vector's values as the cases write them: integers, hex for bytes, null for nulls. */
  private static JsonNode valuesOf(FieldVector v, int first) {
    var f = Json.nodeFactory();
    var out = f.arrayNode();
    for (int i = first; i < v.getValueCount(); i++) {
      if (v.isNull(i)) {
        out.addNull();
      } else if (v instanceof VarBinaryVector b) {
        out.add(HexFormat.of().formatHex(b.get(i)));
      } else if (v instanceof FixedSizeBinaryVector b) {
        out.add(HexFormat.of().formatHex(b.get(i)));
      } else if (((BaseFixedWidthVector) v).getTypeWidth() == 2) {
        out.add(v.getDataBuffer().getShort(2L * i));
      } else if (((BaseFixedWidthVector) v).getTypeWidth() == 4) {
        out.add(v.getDataBuffer().getInt(4L * i));
      } else {
        out.add(v.getDataBuffer().getLong(8L * i));
      }
    }
    return out;
  }
}
