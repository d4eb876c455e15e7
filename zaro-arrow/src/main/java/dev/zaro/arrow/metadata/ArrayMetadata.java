package dev.zaro.arrow.metadata;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * An array's metadata, one model for Zarr v2 and v3 (v2's compressor and filters become a codec
 * chain, order F a transpose).
 *
 * @param shape the array shape (empty for a 0-d array)
 * @param chunkShape the regular chunk grid's chunk shape, same rank as {@code shape}; for a
 *     rectilinear grid, the largest edge per dimension (use {@link #chunkGrid()})
 * @param codecs the codec chain in v3 order (array-to-array, array-to-bytes, bytes-to-bytes)
 * @param dimensionNames one entry per dimension, {@code null} where unnamed
 */
@SuppressWarnings("ArrayRecordComponent") // equals, hashCode and toString below use the contents
public record ArrayMetadata(
    int zarrFormat,
    long[] shape,
    DataType dataType,
    int[] chunkShape,
    ChunkKeyEncoding chunkKeyEncoding,
    FillValue fillValue,
    List<CodecSpec> codecs,
    List<String> dimensionNames,
    JsonNode attributes,
    ChunkGrid chunkGrid)
    implements NodeMetadata {

  /** An array on the regular grid of {@code chunkShape}. */
  public ArrayMetadata(
      int zarrFormat,
      long[] shape,
      DataType dataType,
      int[] chunkShape,
      ChunkKeyEncoding chunkKeyEncoding,
      FillValue fillValue,
      List<CodecSpec> codecs,
      List<String> dimensionNames,
      JsonNode attributes) {
    this(
        zarrFormat,
        shape,
        dataType,
        chunkShape,
        chunkKeyEncoding,
        fillValue,
        codecs,
        dimensionNames,
        attributes,
        ChunkGrid.regular(chunkShape, shape));
  }

  /** Checks that the chunk grid has the shape's rank and copies the arrays. */
  public ArrayMetadata {
    if (chunkGrid.rank() != shape.length) {
      throw new IllegalArgumentException(
          "a chunk grid of rank " + chunkGrid.rank() + " for shape " + Arrays.toString(shape));
    }
    shape = shape.clone();
    chunkShape = chunkShape.clone();
    codecs = List.copyOf(codecs);
    dimensionNames =
        dimensionNames == null
            ? Collections.nCopies(shape.length, null)
            : Collections.unmodifiableList(new ArrayList<>(dimensionNames));
    attributes = attributes == null ? JsonNodeFactory.instance.objectNode() : attributes.deepCopy();
  }

  @Override
  public long[] shape() {
    return shape.clone();
  }

  /**
   * The chunk shape of a regular grid (every chunk's stored shape).
   *
   * @throws IllegalStateException for a rectilinear grid, whose chunks differ: use {@link
   *     #chunkGrid()}
   */
  @Override
  public int[] chunkShape() {
    if (!chunkGrid.isRegular()) {
      throw new IllegalStateException(
          "the array has a rectilinear chunk grid; its chunks have no one shape");
    }
    return chunkShape.clone();
  }

  @Override
  public JsonNode attributes() {
    return attributes.deepCopy();
  }

  /** {@code "v3 draft"} for an array of a v3 draft store (its chunks under {@code data/root/}). */
  @Override
  public String formatName() {
    return chunkKeyEncoding instanceof ChunkKeyEncoding.DraftEncoding
        ? "v3 draft"
        : "v" + zarrFormat;
  }

  /** The number of dimensions. */
  public int rank() {
    return shape.length;
  }

  /** Number of elements. */
  public long size() {
    long n = 1;
    for (long s : shape) {
      n = Math.multiplyExact(n, s);
    }
    return n;
  }

  /** Chunks along each dimension. */
  public long[] chunkGridShape() {
    long[] grid = new long[shape.length];
    for (int d = 0; d < shape.length; d++) {
      grid[d] = chunkGrid.dim(d).chunkCount();
    }
    return grid;
  }

  /** The dimension name of {@code d}, or {@code dim_d} when unnamed. */
  public String dimensionName(int d) {
    String name = dimensionNames.get(d);
    return name != null ? name : "dim_" + d;
  }

  /**
   * This array as zaro reads an ML float type (bfloat16, float8_*, float6_*, float4_e2m1fn) by
   * default: float32 values ({@link DataType#widened}, so the Arrow field names the stored type),
   * the fill value widened exactly, and the chunks' stored type undone by a {@code cast_value}
   * codec in front of the chain (its exact widening). Every other array, structs with ML float
   * fields included, is returned as it is.
   */
  public ArrayMetadata withMlFloatsWidened() {
    if (dataType.kind() == DataType.Kind.STRUCT || dataType.fallbackFormat().isEmpty()) {
      return this;
    }
    MiniFloat format = dataType.fallbackFormat().get();
    byte[] stored = fillValue.bytes();
    int pattern = 0;
    for (int i = stored.length - 1; i >= 0; i--) {
      pattern = pattern << 8 | (stored[i] & 0xff);
    }
    int wide = format.toFloatBits(pattern);
    FillValue fill =
        new FillValue(
            new byte[] {
              (byte) wide, (byte) (wide >>> 8), (byte) (wide >>> 16), (byte) (wide >>> 24)
            });
    ObjectNode cast = JsonNodeFactory.instance.objectNode();
    cast.put("data_type", format.name());
    List<CodecSpec> chain = new ArrayList<>();
    chain.add(new CodecSpec("cast_value", cast));
    chain.addAll(codecs);
    return new ArrayMetadata(
        zarrFormat,
        shape,
        DataType.widened(format),
        chunkShape,
        chunkKeyEncoding,
        fill,
        chain,
        dimensionNames,
        attributes,
        chunkGrid);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ArrayMetadata m
        && zarrFormat == m.zarrFormat
        && Arrays.equals(shape, m.shape)
        && dataType.equals(m.dataType)
        && Arrays.equals(chunkShape, m.chunkShape)
        && chunkGrid.toString().equals(m.chunkGrid.toString())
        && chunkKeyEncoding.equals(m.chunkKeyEncoding)
        && fillValue.equals(m.fillValue)
        && codecs.equals(m.codecs)
        && dimensionNames.equals(m.dimensionNames)
        && attributes.equals(m.attributes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(shape) * 31 + dataType.hashCode();
  }

  @Override
  public String toString() {
    return "ArrayMetadata[zarr v"
        + zarrFormat
        + ", "
        + dataType
        + " "
        + Arrays.toString(shape)
        + ", chunks "
        + chunkGrid
        + ", codecs "
        + codecs.stream().map(CodecSpec::name).toList()
        + "]";
  }
}
