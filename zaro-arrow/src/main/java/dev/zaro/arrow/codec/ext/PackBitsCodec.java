package dev.zaro.arrow.codec.ext;

import dev.zaro.arrow.codec.ArrayToBytesCodec;
import dev.zaro.arrow.codec.ChunkSpec;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.codec.SlabView;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.DataType;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * {@code packbits} {padding_encoding, first_bit, last_bit} (zarr-extensions; an array-to-bytes
 * codec, not numcodecs' bool filter of that name): each component (complex: real and imaginary)
 * keeps bits {@code first_bit..last_bit} of its little-endian representation, packed in C order
 * into one bit sequence whose bit {@code j} is bit {@code j % 8} (least significant first) of byte
 * {@code j / 8}, padded with zero bits to whole bytes; the number of padding bits is stored in a
 * byte before ({@code "first_byte"}) or after ({@code "last_byte"}) or not at all ({@code "none"},
 * the default). Decoding shifts the bits back to {@code first_bit} and sign-extends signed
 * integers. bool is one bit. The schema's spellings {@code start_byte}, {@code end_byte}, {@code
 * start_bit}, {@code end_bit} are read too.
 *
 * @param padding 0: none, 1: a byte before the bits, 2: a byte after them
 */
public record PackBitsCodec(
    int padding, int firstBit, int lastBit, int componentBits, int components, boolean signed)
    implements ArrayToBytesCodec {

  static PackBitsCodec create(CodecSpec spec, ChunkSpec input) {
    CodecConfig config =
        new CodecConfig(spec)
            .only("padding_encoding", "first_bit", "last_bit", "start_bit", "end_bit");
    String encoding = config.string("padding_encoding", "none");
    int padding =
        switch (encoding) {
          case "none" -> 0;
          case "first_byte", "start_byte" -> 1;
          case "last_byte", "end_byte" -> 2;
          default ->
              throw config.error(
                  "padding_encoding must be \"none\", \"first_byte\" or \"last_byte\", not \""
                      + encoding
                      + "\"");
        };
    DataType type = input.dataType();
    int bits =
        switch (type.kind()) {
          case BOOL -> 1;
          case INT, UINT, FLOAT -> type.bits();
          case COMPLEX -> type.bits() / 2;
          default ->
              throw config.error("packs bool, integer, float and complex elements, not " + type);
        };
    int first = bit(config, "first_bit", "start_bit", 0);
    int last = bit(config, "last_bit", "end_bit", bits - 1);
    if (last < first || last >= bits) {
      throw config.error(
          "bits "
              + first
              + ".."
              + last
              + " are not a range within the "
              + bits
              + " bits of "
              + type);
    }
    return new PackBitsCodec(
        padding,
        first,
        last,
        bits,
        type.kind() == DataType.Kind.COMPLEX ? 2 : 1,
        type.kind() == DataType.Kind.INT);
  }

  private static int bit(CodecConfig config, String field, String alias, int absent) {
    if (config.node(field) != null && config.node(alias) != null) {
      throw config.error("both " + field + " and " + alias + " are given");
    }
    String name = config.node(alias) != null ? alias : field;
    int bit = config.intValue(name, absent);
    if (bit < 0) {
      throw config.error(name + " must not be negative, not " + bit);
    }
    return bit;
  }

  @Override
  public String name() {
    return "packbits";
  }

  private int kept() {
    return lastBit - firstBit + 1;
  }

  private long dataBytes(ChunkSpec spec) {
    return (spec.elementCount() * components * kept() + 7) / 8;
  }

  @Override
  public long encodedSize(ChunkSpec spec) {
    return dataBytes(spec) + (padding == 0 ? 0 : 1);
  }

  @Override
  public boolean isIdentity(ChunkSpec spec) {
    return padding == 0 && kept() == componentBits && componentBits % 8 == 0;
  }

  @Override
  public void decodeInto(
      ArrowBuf encoded, ChunkSpec spec, SlabView target, BufferAllocator allocator) {
    long length = encoded.writerIndex();
    long expected = encodedSize(spec);
    if (length != expected) {
      throw new CodecException(
          "codec packbits: chunk has " + length + " bytes, expected " + expected + " for " + spec);
    }
    long dataBytes = dataBytes(spec);
    long start = padding == 1 ? 1 : 0;
    long count = spec.elementCount() * components;
    if (padding != 0) {
      int stored = encoded.getByte(padding == 1 ? 0 : dataBytes) & 0xff;
      long want = dataBytes * 8 - count * kept();
      if (stored != want) {
        throw new CodecException(
            "codec packbits: padding byte says " + stored + " bits, expected " + want);
      }
    }
    if (isIdentity(spec)) {
      try (ArrowBuf data = encoded.slice(start, dataBytes)) {
        encoded.getReferenceManager().retain();
        target.scatterFrom(data, dataBytes, 0);
      }
      return;
    }
    int size = Math.max(1, componentBits / 8);
    try (ArrowBuf out = allocator.buffer(Math.max(1, count * size))) {
      int k = kept();
      long mask = k == 64 ? -1L : (1L << k) - 1;
      for (long c = 0; c < count; c++) {
        long v = read(encoded, start, c * k, k) & mask;
        if (signed && lastBit < 63 && ((v >>> (k - 1)) & 1) != 0) {
          v |= -1L << k;
        }
        v <<= firstBit;
        RealCast.put(out, c, size, v);
      }
      target.scatterFrom(out, count * size, 0);
    }
  }

  /** {@code k} (at most 64) bits from bit {@code bit} of the sequence at byte {@code start}. */
  private static long read(ArrowBuf buf, long start, long bit, int k) {
    long v = 0;
    int got = 0;
    long pos = start + (bit >>> 3);
    int skip = (int) (bit & 7);
    while (got < k) {
      long b = (buf.getByte(pos++) & 0xffL) >>> skip;
      v |= b << got;
      got += 8 - skip;
      skip = 0;
    }
    return v;
  }
}
