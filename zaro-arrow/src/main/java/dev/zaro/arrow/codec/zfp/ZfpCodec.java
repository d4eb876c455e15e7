package dev.zaro.arrow.codec.zfp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.codec.ArrayToBytesCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.internal.JsonDocument;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * {@code zfp} {mode, ...} (zarr-extensions): the chunk as one zfp stream without a header, its
 * field the chunk shape ({@code [nx]}, {@code [ny, nx]}, {@code [nz, ny, nx]} or {@code [nw, nz,
 * ny, nx]}; a 0-d chunk is {@code [1]}), decoded in pure Java by {@link ZfpDecoder}. Modes {@code
 * reversible}, {@code fixed_precision} {precision}, {@code fixed_accuracy} {tolerance}, {@code
 * expert} {minbits, maxbits, maxprec, minexp} and {@code fixed_rate} {rate}; fixed rate only for
 * 3-d chunks, where zfp's bits per block ({@code 64 * rate}) is the same whichever block rank a
 * writer assumes (zarrs uses 3 for every rank). int32, int64, float32 and float64, and uint32 and
 * uint64 as zarrs writes them (zfp has no unsigned types): an int32/int64 stream of min(value,
 * INT_MAX), read back as max(value, 0). No promotion of narrower types.
 *
 * @param unsigned whether the array is uint32/uint64 (negative decoded values read as 0)
 */
public record ZfpCodec(ZfpDecoder.Params params, ZfpDecoder.Type type, boolean unsigned)
    implements ArrayToBytesCodec {

  /** The codec {@code spec} configures for chunks of {@code input}. */
  public static ZfpCodec create(CodecSpec spec, ChunkSpec input) {
    CodecConfig config = new CodecConfig(spec);
    String mode = config.string("mode", null);
    if (mode == null) {
      throw config.error("configuration field 'mode' is missing");
    }
    DataType t = input.dataType();
    boolean unsigned = t.kind() == DataType.Kind.UINT && (t.bits() == 32 || t.bits() == 64);
    ZfpDecoder.Type type =
        unsigned
            ? (t.bits() == 32 ? ZfpDecoder.Type.INT32 : ZfpDecoder.Type.INT64)
            : ZfpDecoder.Type.of(t);
    if (type == null) {
      throw config.error(
          "zaro reads zfp for int32, int64, uint32, uint64, float32 and float64 arrays, not " + t);
    }
    if (input.rank() > 4) {
      throw config.error("zfp fields have 1 to 4 dimensions, not " + input.rank());
    }
    ZfpDecoder.Params params =
        switch (mode) {
          case "reversible" -> {
            config.only("mode");
            yield new ZfpDecoder.Params(1, 16658, 64, -1075);
          }
          case "fixed_precision" -> {
            config.only("mode", "precision");
            int precision = config.requiredInt("precision");
            if (precision < 0) {
              throw config.error("precision must not be negative, not " + precision);
            }
            yield new ZfpDecoder.Params(
                1, 16658, precision == 0 ? 64 : Math.min(precision, 64), -1074);
          }
          case "fixed_accuracy" -> {
            config.only("mode", "tolerance");
            double tolerance = number(config, "tolerance");
            if (!type.isFloat()) {
              throw config.error("fixed_accuracy needs a float array, not " + t);
            }
            yield new ZfpDecoder.Params(1, 16658, 64, tolerance > 0 ? exponent(tolerance) : -1074);
          }
          case "expert" -> {
            config.only("mode", "minbits", "maxbits", "maxprec", "minexp");
            int minbits = config.requiredInt("minbits");
            int maxbits = config.requiredInt("maxbits");
            int maxprec = config.requiredInt("maxprec");
            int minexp = config.requiredInt("minexp");
            if (minbits < 0 || minbits > maxbits || maxprec < 1 || maxprec > 64) {
              throw config.error(
                  "expert mode needs 0 <= minbits <= maxbits and 1 <= maxprec <= 64, not minbits "
                      + minbits
                      + ", maxbits "
                      + maxbits
                      + ", maxprec "
                      + maxprec);
            }
            yield new ZfpDecoder.Params(minbits, maxbits, maxprec, minexp);
          }
          case "fixed_rate" -> {
            config.only("mode", "rate");
            double rate = number(config, "rate");
            if (input.rank() != 3) {
              throw config.error(
                  "fixed_rate is read for 3-d chunks only (writers disagree on the bits per block of "
                      + input.rank()
                      + "-d chunks)");
            }
            int bits = (int) Math.floor(64 * rate + 0.5);
            bits =
                Math.max(
                    bits,
                    type == ZfpDecoder.Type.FLOAT ? 9 : type == ZfpDecoder.Type.DOUBLE ? 12 : bits);
            if (bits < 1) {
              throw config.error("rate must be positive, not " + rate);
            }
            yield new ZfpDecoder.Params(bits, bits, 64, -1074);
          }
          default ->
              throw config.error(
                  "mode must be one of \"reversible\", \"fixed_precision\", \"fixed_accuracy\","
                      + " \"fixed_rate\", \"expert\", not \""
                      + mode
                      + "\"");
        };
    return new ZfpCodec(params, type, unsigned);
  }

  private static double number(CodecConfig config, String field) {
    JsonNode node = config.node(field);
    if (node == null || !node.isNumber()) {
      throw config.error(
          "configuration field '"
              + field
              + "' must be a number, not "
              + (node == null ? "missing" : JsonDocument.describe(node)));
    }
    return node.doubleValue();
  }

  /** floor(log2(tolerance)): zfp's minimum exponent for an absolute error tolerance. */
  static int exponent(double tolerance) {
    return tolerance >= Double.MIN_NORMAL
        ? Math.getExponent(tolerance)
        : Math.getExponent(tolerance * 0x1p54) - 54;
  }

  @Override
  public String name() {
    return "zfp";
  }

  @Override
  public long encodedSize(ChunkSpec spec) {
    return -1;
  }

  @Override
  public void decodeInto(
      ArrowBuf encoded, ChunkSpec spec, SlabView target, BufferAllocator allocator) {
    int[] shape = spec.shape();
    long[] sizes = new long[Math.max(1, shape.length)];
    sizes[0] = 1;
    for (int d = 0; d < shape.length; d++) {
      sizes[d] = shape[d];
    }
    long bytes = spec.byteSize();
    try (ArrowBuf out = allocator.buffer(Math.max(1, bytes))) {
      ZfpDecoder.decode(encoded, 0, params, new ZfpDecoder.Field(type, sizes), out);
      if (unsigned) {
        clampNegatives(out, spec.elementCount(), type.size());
      }
      target.scatterFrom(out, bytes, 0);
    }
  }

  /** zarrs' demotion of unsigned values: a negative decoded value (a lossy mode's) reads as 0. */
  private static void clampNegatives(ArrowBuf out, long count, int size) {
    for (long i = 0; i < count; i++) {
      if (size == 4 ? out.getInt(i * 4) < 0 : out.getLong(i * 8) < 0) {
        if (size == 4) {
          out.setInt(i * 4, 0);
        } else {
          out.setLong(i * 8, 0);
        }
      }
    }
  }
}
