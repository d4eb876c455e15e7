package dev.zaro.flight;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.TableOptions;
import dev.zaro.arrow.read.ZarrArray;
import dev.zaro.arrow.vector.TableReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.FloatingPointVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.UInt8Vector;

/**
 * {@code GET /arrays/{path}/image.png?slice=S&vmin=&vmax=&colormap=&max_size=}: a 2-D slice drawn
 * as a PNG (docs/explorer.md). The values are the table layout's value column, so CF decoding is
 * the table layout's ({@code scale_factor}/{@code add_offset} unpacked, {@code _FillValue} and
 * {@code missing_value} null); NaN and null are transparent. A slice larger than {@code max_size}
 * (default 1024, at most 2048) along a side is drawn from every k-th index of that side (k the
 * smallest that fits), so only those elements are kept: the request's memory is the picture's,
 * whatever the array's size, inside the server's budget.
 *
 * <p>Without {@code vmin}/{@code vmax}, the smallest and largest finite values drawn. The answer's
 * headers say what was drawn: {@code X-Zaro-Selection} (the selection after striding, canonical),
 * {@code X-Zaro-Vmin}, {@code X-Zaro-Vmax}.
 */
final class SliceImage {
  static final int DEFAULT_SIZE = 1024;
  static final int MAX_SIZE = 2048;
  private static final Set<String> PARAMS = Set.of("slice", "vmin", "vmax", "colormap", "max_size");

  /**
   * A drawn picture: the PNG (not copied: the caller owns it), what was drawn, the colormap range.
   */
  @SuppressWarnings("ArrayRecordComponent") // never compared: it goes to the socket
  record Picture(byte[] png, Selection drawn, double vmin, double vmax) {}

  private SliceImage() {}

  /** Draws the picture {@code params} ask of array {@code node}, inside the producer's budget. */
  static Picture draw(ZaroFlightProducer producer, String node, Map<String, List<String>> params) {
    for (Map.Entry<String, List<String>> e : params.entrySet()) {
      if (!PARAMS.contains(e.getKey())) {
        throw invalid(
            "unknown query parameter '"
                + e.getKey()
                + "' (image.png takes: slice, vmin, vmax, colormap, max_size)");
      }
      if (e.getValue().size() != 1) {
        throw invalid("query parameter '" + e.getKey() + "' is given more than once");
      }
    }
    byte[] lut = Colormaps.of(orElse(params, "colormap", Colormaps.DEFAULT));
    Double vmin = number(params, "vmin");
    Double vmax = number(params, "vmax");
    if (vmin != null && vmax != null && vmin > vmax) {
      throw invalid("vmin (" + vmin + ") is larger than vmax (" + vmax + ")");
    }
    String sizeText = orElse(params, "max_size", String.valueOf(DEFAULT_SIZE));
    int size;
    try {
      size = Integer.parseInt(sizeText);
    } catch (NumberFormatException e) {
      size = -1;
    }
    if (size < 1 || size > MAX_SIZE) {
      throw invalid(
          "max_size must be an integer from 1 to " + MAX_SIZE + ", not '" + sizeText + "'");
    }
    Zaro zaro = producer.zaro();
    ZarrArray array = zaro.array(node);
    Selection selection = Selection.parse(orElse(params, "slice", ""), array.metadata().shape());
    long[] result = selection.resultShape();
    if (result.length != 2) {
      throw invalid(
          "image.png draws a 2-D slice, but slice '"
              + selection
              + "' of array '/"
              + array.path()
              + "' (shape "
              + Arrays.toString(array.metadata().shape())
              + ") leaves "
              + result.length
              + " dimension(s): give an integer index for the others");
    }
    Selection drawn = strided(selection, size);
    long[] shape = drawn.resultShape();
    int height = (int) shape[0];
    int width = (int) shape[1];
    if (height == 0 || width == 0) {
      throw invalid("slice '" + selection + "' is empty: nothing to draw");
    }
    int pixels = height * width;
    // the whole picture in one batch: smaller batches cut the plan into more blocks, and a block
    // boundary inside a chunk row decodes that row's chunks twice (twice the time on a big array)
    long batchRows = pixels;
    ZaroFlightProducer.FlightOptions limits = producer.limits();
    try (MemoryBudget.Lease lease =
            producer
                .budget()
                .acquire(
                    "image "
                        + ZaroFlightProducer.describe(
                            new ReadRequest(node, drawn.canonical(), null, false)),
                    8L * pixels + 2 * 9 * batchRows, // the doubles, the batch and its block
                    limits.requestBytes(),
                    () -> false);
        ArrowBuf buffer = lease.allocator().buffer(8L * pixels)) {
      // the buffer's memory without a bounds check of the buffer per element (this loop and
      // read's are the picture's per-pixel work: millions of elements)
      DoubleBuffer values =
          buffer.nioBuffer(0, 8 * pixels).order(ByteOrder.nativeOrder()).asDoubleBuffer();
      read(zaro, array, drawn, batchRows, producer.readOptions(), lease, values, pixels);
      double lo = Double.POSITIVE_INFINITY;
      double hi = Double.NEGATIVE_INFINITY;
      if (vmin == null || vmax == null) {
        for (int i = 0; i < pixels; i++) {
          double v = values.get(i);
          if (Double.isFinite(v)) {
            lo = Math.min(lo, v);
            hi = Math.max(hi, v);
          }
        }
        if (lo > hi) { // nothing finite: any range draws only transparent pixels
          lo = 0;
          hi = 1;
        }
      }
      double min = vmin != null ? vmin : vmax != null ? Math.min(lo, vmax) : lo;
      double max = vmax != null ? vmax : Math.max(hi, min);
      byte[] rgba = new byte[4 * pixels];
      for (int i = 0; i < pixels; i++) {
        Colormaps.paint(lut, values.get(i), min, max, rgba, i);
      }
      return new Picture(PngWriter.encode(rgba, width, height), drawn, min, max);
    }
  }

  /** The table layout's value column of {@code drawn}, C order, as doubles (null: NaN). */
  private static void read(
      Zaro zaro,
      ZarrArray array,
      Selection drawn,
      long batchRows,
      ReadOptions readOptions,
      MemoryBudget.Lease lease,
      DoubleBuffer out,
      int pixels) {
    int i = 0;
    try (TableReader reader =
        zaro.readTable(
            array.path(),
            drawn,
            lease.allocator(),
            TableOptions.DEFAULT.withColumns(List.of(array.name())).withBatchRows(batchRows),
            readOptions)) {
      while (reader.loadNextBatch()) {
        FieldVector column = reader.getVectorSchemaRoot().getFieldVectors().get(0);
        int n = Math.min(column.getValueCount(), pixels - i);
        if (column instanceof Float4Vector || column instanceof Float8Vector) {
          floats(column, n, out, i);
        } else {
          for (int r = 0; r < n; r++) {
            out.put(i + r, value(column, r, array));
          }
        }
        i += n;
      }
    } catch (IOException e) {
      throw CallStatus.INTERNAL.withDescription(e.toString()).toRuntimeException();
    }
    if (i != pixels) {
      throw CallStatus.INTERNAL
          .withDescription("array '/" + array.path() + "': read " + i + " of " + pixels + " values")
          .toRuntimeException();
    }
  }

  /**
   * The first {@code n} values of a float32 or float64 column (null: NaN) into {@code out} from
   * {@code at}, read from the column's buffers as they are laid out (native order, one validity bit
   * per value).
   */
  private static void floats(FieldVector v, int n, DoubleBuffer out, int at) {
    if (n == 0) {
      return;
    }
    boolean single = v instanceof Float4Vector;
    ByteBuffer data =
        v.getDataBuffer().nioBuffer(0, n * (single ? 4 : 8)).order(ByteOrder.nativeOrder());
    ByteBuffer valid =
        v.getNullCount() == 0 ? null : v.getValidityBuffer().nioBuffer(0, (n + 7) / 8);
    for (int r = 0; r < n; r++) {
      double x = single ? data.getFloat(4 * r) : data.getDouble(8 * r);
      if (valid != null && (valid.get(r >>> 3) & (1 << (r & 7))) == 0) {
        x = Double.NaN;
      }
      out.put(at + r, x);
    }
  }

  private static double value(FieldVector v, int r, ZarrArray array) {
    if (v.isNull(r)) {
      return Double.NaN;
    }
    if (v instanceof FloatingPointVector f) {
      return f.getValueAsDouble(r);
    }
    if (v instanceof UInt8Vector u) {
      long x = u.get(r);
      return x >= 0 ? x : (double) (x >>> 1) * 2 + (x & 1);
    }
    if (v instanceof BaseIntVector b) {
      return b.getValueAsLong(r);
    }
    if (v instanceof BitVector b) {
      return b.get(r);
    }
    if (v instanceof TimeStampVector t) {
      return t.get(r);
    }
    throw CallStatus.UNIMPLEMENTED
        .withDescription(
            "array '/"
                + array.path()
                + "' holds "
                + v.getField().getType()
                + " values, which image.png cannot draw (numbers, booleans and times only)")
        .toRuntimeException();
  }

  /** {@code selection} with every kept side of more than {@code size} indices strided to fit. */
  static Selection strided(Selection selection, int size) {
    List<Selection.Dim> dims = new ArrayList<>();
    for (Selection.Dim d : selection.dims()) {
      long k = (d.count() + size - 1) / size;
      if (d.dropped() || k <= 1) {
        dims.add(d);
      } else if (d.isList()) {
        long[] all = d.indices();
        long[] kept = new long[(int) ((all.length + k - 1) / k)];
        for (int j = 0; j < kept.length; j++) {
          kept[j] = all[(int) (j * k)];
        }
        dims.add(Selection.Dim.list(kept));
      } else {
        dims.add(new Selection.Dim(d.start(), d.step() * k, (d.count() + k - 1) / k, false));
      }
    }
    return Selection.of(dims);
  }

  private static String orElse(Map<String, List<String>> params, String name, String otherwise) {
    List<String> v = params.get(name);
    return v == null || v.get(0).isEmpty() ? otherwise : v.get(0);
  }

  private static Double number(Map<String, List<String>> params, String name) {
    String text = orElse(params, name, null);
    if (text == null) {
      return null;
    }
    try {
      double v = Double.parseDouble(text.trim());
      if (Double.isFinite(v)) {
        return v;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw invalid(name + " must be a finite number, not '" + text + "'");
  }

  private static FlightRuntimeException invalid(String message) {
    return CallStatus.INVALID_ARGUMENT.withDescription(message).toRuntimeException();
  }
}
