package dev.zaro.arrow.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.error.SelectionException;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.GroupMetadata;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.store.StoreKeys;
import dev.zaro.arrow.vector.FixedShapeTensorVector;
import dev.zaro.arrow.vector.SlabVectors;
import dev.zaro.arrow.vector.TensorReader;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every read in testdata/fixtures/cases.json: arrays written by tensorstore, expected values read
 * back by tensorstore (see testdata/generate.py), compared byte for byte.
 */
class FixtureReadTest extends AllocatorTest {

  static JsonNode cases() throws IOException {
    return Json.readTree(Files.readAllBytes(Fixtures.fixtures().resolve("cases.json")));
  }

  /** Every testdata/<set>/cases.json; stores and expected files are relative to its folder. */
  static Stream<Arguments> reads() throws IOException {
    List<Arguments> out = new ArrayList<>();
    List<Path> sets;
    try (Stream<Path> dirs = Files.list(Fixtures.testdata())) {
      sets = dirs.map(d -> d.resolve("cases.json")).filter(Files::isRegularFile).sorted().toList();
    }
    for (Path set : sets) {
      JsonNode doc = Json.readTree(Files.readAllBytes(set));
      Path dir = set.getParent();
      if (!doc.has("cases")) {
        continue;
      }
      for (JsonNode c : doc.get("cases")) {
        for (JsonNode r : c.get("reads")) {
          out.add(
              Arguments.of(
                  dir.getFileName()
                      + "/"
                      + c.get("name").asText()
                      + "["
                      + r.get("slice").asText()
                      + "]",
                  dir.resolve(c.get("store").asText()).toString(),
                  c.get("path").asText(),
                  c.get("data_type").asText(),
                  r.get("slice").asText(),
                  Json.convertValue(r.get("shape"), long[].class),
                  dir.resolve(r.get("expected").asText()).toString(),
                  doc.path("options").path("fallback_types").asBoolean(false)));
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("reads")
  void readsEqualTensorstore(
      String name,
      String store,
      String path,
      String dataType,
      String slice,
      long[] shape,
      String expected,
      boolean fallbackTypes)
      throws IOException {
    if (expected.endsWith(".json")) {
      readsEqualStrings(store, path, slice, shape, expected);
      return;
    }
    byte[] want = Files.readAllBytes(Path.of(expected));
    for (int threads : new int[] {1, 4}) {
      try (Zaro zaro =
              Zaro.open(
                  store,
                  ZaroOptions.defaults().withThreads(threads).withFallbackTypes(fallbackTypes));
          Slab slab = zaro.read(path, slice, allocator)) {
        assertEquals(dataType, slab.dataType().name());
        assertArrayEquals(shape, slab.shape(), "shape");
        byte[] got = new byte[(int) slab.byteSize()];
        slab.data().getBytes(0, got);
        assertArrayEquals(want, got, name + " with " + threads + " threads");
      }
    }
  }

  /**
   * The same reads into one caller-owned buffer used twice, filled with garbage first and longer
   * than the selection: the values equal tensorstore's both times, the bytes past the selection are
   * untouched, and the caller's reference survives the slabs.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("reads")
  void readsIntoACallersBuffer(
      String name,
      String store,
      String path,
      String dataType,
      String slice,
      long[] shape,
      String expected,
      boolean fallbackTypes)
      throws IOException {
    if (expected.endsWith(".json")) {
      return; // variable-length: refused, see readIntoRefusesWhatDoesNotFit
    }
    byte[] want = Files.readAllBytes(Path.of(expected));
    try (Zaro zaro =
            Zaro.open(
                store, ZaroOptions.defaults().withThreads(2).withFallbackTypes(fallbackTypes));
        ArrowBuf out = allocator.buffer(want.length + 64L)) {
      ZarrArray array = zaro.array(path);
      Selection selection = Selection.parse(slice, array.metadata().shape());
      out.setBytes(0, garbage(out.capacity()));
      for (int round = 0; round < 2; round++) {
        try (Slab slab = array.readInto(selection, out, allocator, ReadOptions.DEFAULT)) {
          byte[] got = new byte[(int) slab.byteSize()];
          slab.data().getBytes(0, got);
          assertArrayEquals(want, got, name + ", round " + round);
        }
        byte[] tail = new byte[64];
        out.getBytes(want.length, tail);
        byte[] untouched = new byte[64];
        System.arraycopy(garbage(out.capacity()), want.length, untouched, 0, 64);
        assertArrayEquals(untouched, tail, name + ": bytes past the selection");
        assertEquals(1, out.getReferenceManager().getRefCount(), "the caller's reference");
      }
    }
  }

  /**
   * The same reads streamed by {@link Zaro#readTensor} one row per batch (so every selection that
   * spans several chunks of its first dimension is read as several blocks): the batches' values,
   * concatenated, equal tensorstore's. Bool is compared unpacked; structs and strings have their
   * own tests.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("reads")
  void streamsEqualTensorstore(
      String name,
      String store,
      String path,
      String dataType,
      String slice,
      long[] shape,
      String expected,
      boolean fallbackTypes)
      throws IOException {
    if (expected.endsWith(".json")) {
      return;
    }
    byte[] want = Files.readAllBytes(Path.of(expected));
    try (Zaro zaro =
            Zaro.open(
                store, ZaroOptions.defaults().withThreads(2).withFallbackTypes(fallbackTypes));
        TensorReader reader =
            zaro.readTensor(
                path,
                Selection.parse(slice, zaro.meta(path).shape()),
                allocator,
                1,
                ReadOptions.DEFAULT)) {
      DataType type = zaro.meta(path).dataType();
      if (type.kind() == DataType.Kind.STRUCT) {
        return;
      }
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      long rows = 0;
      int batches = 0;
      while (reader.loadNextBatch()) {
        FieldVector vector = reader.getVectorSchemaRoot().getVector(0);
        rows += vector.getValueCount();
        batches++;
        assertTrue(vector.getValueCount() <= 1, "one row per batch, not " + vector.getValueCount());
        FieldVector values =
            vector instanceof FixedShapeTensorVector t
                ? t.getUnderlyingVector().getDataVector()
                : vector instanceof FixedSizeListVector l ? l.getDataVector() : vector;
        if (values instanceof BitVector bits) {
          for (int i = 0; i < bits.getValueCount(); i++) {
            got.write(bits.get(i));
          }
        } else if (values instanceof BaseFixedWidthVector fixed) {
          // the Arrow width, not the stored type's: ML floats arrive widened to float32
          byte[] b = new byte[(int) (fixed.getValueCount() * (long) fixed.getTypeWidth())];
          fixed.getDataBuffer().getBytes(0, b);
          got.write(b);
        } else {
          return; // variable width (|S<n> without its NUL padding): compared by their own tests
        }
      }
      assertEquals(shape.length == 0 ? 1 : shape[0], rows, "rows");
      assertTrue(batches >= 1);
      assertArrayEquals(want, got.toByteArray(), name);
    }
  }

  private static byte[] garbage(long size) {
    byte[] b = new byte[(int) size];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (0xA5 ^ i * 31);
    }
    return b;
  }

  /** A buffer too small, and a variable-length array: refused by name, the buffer untouched. */
  @Test
  void readIntoRefusesWhatDoesNotFit() throws IOException {
    for (boolean variable : new boolean[] {false, true}) {
      Object[] c =
          reads()
              .map(Arguments::get)
              .filter(a -> ((String) a[6]).endsWith(".json") == variable)
              .filter(a -> variable || new File((String) a[6]).length() > 1)
              .findFirst()
              .orElseThrow();
      try (Zaro zaro =
              Zaro.open((String) c[1], ZaroOptions.defaults().withFallbackTypes((Boolean) c[7]));
          ArrowBuf out = allocator.buffer(variable ? 1 << 20 : 1)) {
        ZarrArray array = zaro.array((String) c[2]);
        Selection selection = Selection.parse((String) c[4], array.metadata().shape());
        SelectionException e =
            Assertions.assertThrows(
                SelectionException.class,
                () -> array.readInto(selection, out, allocator, ReadOptions.DEFAULT));
        assertTrue(
            e.getMessage().contains(variable ? "variable-length" : "holds " + out.capacity()),
            e.getMessage());
        assertEquals(1, out.getReferenceManager().getRefCount());
      }
    }
  }

  /** Variable-length values: expected as a JSON list in C order (bytes as latin-1 text). */
  private void readsEqualStrings(
      String store, String path, String slice, long[] shape, String expected) throws IOException {
    List<String> want = new ArrayList<>();
    Json.readTree(Files.readAllBytes(Path.of(expected))).forEach(n -> want.add(n.asText()));
    for (int threads : new int[] {1, 4}) {
      try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults().withThreads(threads));
          Slab slab = zaro.read(path, slice, allocator)) {
        assertArrayEquals(shape, slab.shape(), "shape");
        Charset charset =
            slab.dataType().kind() != DataType.Kind.BYTES
                ? StandardCharsets.UTF_8
                : StandardCharsets.ISO_8859_1;
        if (slab.dataType().isVariableLength()) {
          List<String> got = new ArrayList<>();
          for (long i = 0; i < slab.elementCount(); i++) {
            long address = slab.data().getLong(i * 16);
            int length = (int) slab.data().getLong(i * 16 + 8);
            byte[] b = new byte[length];
            MemoryUtil.copyFromMemory(address, b, 0, length);
            got.add(new String(b, charset));
          }
          assertEquals(want, got);
        }
        try (FieldVector vector = SlabVectors.tensor(slab)) {
          FieldVector values = vector instanceof FixedSizeListVector l ? l.getDataVector() : vector;
          for (int i = 0; i < want.size(); i++) {
            byte[] b = ((BaseVariableWidthVector) values).get(i);
            assertEquals(want.get(i), new String(b, charset), "Arrow value " + i);
          }
        }
      }
    }
  }

  /**
   * The Arrow column shares the slab's buffer (no copy) and has the tensor layout's shape
   * (docs/formats.md, "Arrow shapes").
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("reads")
  void tensorColumnsShareTheSlabBuffer(
      String name,
      String store,
      String path,
      String dataType,
      String slice,
      long[] shape,
      String expected,
      boolean fallbackTypes) {
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults().withFallbackTypes(fallbackTypes));
        Slab slab = zaro.read(path, slice, allocator);
        FieldVector vector = SlabVectors.tensor(slab)) {
      long rows = shape.length == 0 ? 1 : shape[0];
      assertEquals(rows, vector.getValueCount());
      ArrayMetadata meta = zaro.meta(path);
      String nodeName =
          path.isEmpty() || path.equals("/") ? "data" : path.substring(path.lastIndexOf('/') + 1);
      assertEquals(nodeName, vector.getName());
      boolean complex = meta.dataType().kind() == DataType.Kind.COMPLEX;
      int valueDims = shape.length + (complex ? 1 : 0);
      boolean tensor = valueDims >= 2 || (shape.length == 0 && complex);
      assertEquals(
          tensor && SlabVectors.isTensorValue(meta.dataType()),
          vector instanceof FixedShapeTensorVector,
          vector.getField().toString());
      boolean converted =
          meta.dataType().kind() == DataType.Kind.BOOL
              || meta.dataType().isVariableLength()
              || meta.dataType().kind() == DataType.Kind.FIXED_UTF32
              || meta.dataType().kind() == DataType.Kind.NULL_TERMINATED_BYTES
              || meta.dataType().kind() == DataType.Kind.STRUCT
              || ((meta.dataType().kind() == DataType.Kind.DATETIME
                      || meta.dataType().kind() == DataType.Kind.TIMEDELTA)
                  && !meta.dataType().time().isIdentity());
      if (!converted && slab.byteSize() > 0) {
        FieldVector values =
            vector instanceof FixedShapeTensorVector t
                ? t.getUnderlyingVector().getDataVector()
                : vector instanceof FixedSizeListVector l ? l.getDataVector() : vector;
        assertEquals(
            slab.data().memoryAddress(),
            values.getDataBuffer().memoryAddress(),
            "copied instead of shared");
      }
    }
  }

  static Stream<Path> hierarchySets() throws IOException {
    try (Stream<Path> dirs = Files.list(Fixtures.testdata())) {
      List<Path> sets = new ArrayList<>();
      for (Path set :
          dirs.map(d -> d.resolve("cases.json")).filter(Files::isRegularFile).sorted().toList()) {
        if (Json.readTree(Files.readAllBytes(set)).has("hierarchy")) {
          sets.add(set);
        }
      }
      return sets.stream();
    }
  }

  /** Nodes (explicit and implicit groups, arrays at every depth) and attributes, as written. */
  @ParameterizedTest
  @MethodSource("hierarchySets")
  void listsTheHierarchy(Path set) throws IOException {
    JsonNode h = Json.readTree(Files.readAllBytes(set)).get("hierarchy");
    Path store = set.getParent().resolve(h.get("store").asText());
    try (Zaro zaro = Zaro.open(store.toString())) {
      List<String> got =
          zaro.list().stream()
              .map(n -> n.path() + ":" + (n.isArray() ? "array" : "group"))
              .toList();
      List<String> want = new ArrayList<>();
      for (JsonNode n : h.get("nodes")) {
        want.add(StoreKeys.stripSlashes(n.get("path").asText()) + ":" + n.get("kind").asText());
      }
      assertEquals(want.stream().sorted().toList(), got.stream().sorted().toList());
      for (JsonNode n : h.get("nodes")) {
        if (n.get("kind").asText().equals("group")) {
          var meta = (GroupMetadata) zaro.node(n.get("path").asText());
          assertEquals(n.path("implicit").asBoolean(false), meta.implicit(), n.toString());
        }
      }
      var attrs = h.get("attributes").properties().iterator();
      while (attrs.hasNext()) {
        var e = attrs.next();
        assertEquals(
            e.getValue(), zaro.node(e.getKey()).attributes(), "attributes of " + e.getKey());
      }
      var children = zaro.hierarchy().children("/obs").stream().map(Node::path).sorted().toList();
      assertTrue(
          children.isEmpty()
              || children.stream().allMatch(c -> c.startsWith("obs/") && c.indexOf('/', 4) < 0),
          children.toString());
    }
  }
}
