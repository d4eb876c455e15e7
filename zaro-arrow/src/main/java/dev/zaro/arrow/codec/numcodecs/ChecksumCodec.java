package dev.zaro.arrow.codec.numcodecs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.codec.CodecConfig;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.internal.JsonDocument;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.Adler32;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The numcodecs 32-bit checksums: the data with a 4-byte little-endian checksum of it before
 * ({@code location} "start") or after ("end"), verified on every read. {@code crc32} and {@code
 * adler32} (zlib's, stored at the start unless configured otherwise), {@code crc32c} (at the end by
 * default), {@code fletcher32} (HDF5's, always at the end) and {@code jenkins_lookup3} (HDF5's Bob
 * Jenkins lookup3 with {@code initval} and an optional {@code prefix} hashed before the data,
 * always at the end).
 *
 * @param prefix bytes hashed before the data (jenkins_lookup3 only; empty for the others)
 */
@SuppressWarnings("ArrayRecordComponent") // an internal codec, never compared
public record ChecksumCodec(Algorithm algorithm, boolean atStart, int initval, byte[] prefix)
    implements BytesToBytesCodec {

  /** The checksum functions, by numcodecs id. */
  public enum Algorithm {
    CRC32("crc32", true),
    ADLER32("adler32", true),
    CRC32C("crc32c", false),
    FLETCHER32("fletcher32", false),
    JENKINS_LOOKUP3("jenkins_lookup3", false);

    final String id;
    final boolean startByDefault;

    Algorithm(String id, boolean startByDefault) {
      this.id = id;
      this.startByDefault = startByDefault;
    }

    /** The numcodecs codec id. */
    public String id() {
      return id;
    }

    /** Whether numcodecs lets the configuration move the checksum ({@code location}). */
    boolean hasLocation() {
      return this != FLETCHER32 && this != JENKINS_LOOKUP3;
    }
  }

  static ChecksumCodec create(CodecSpec spec, Algorithm algorithm) {
    CodecConfig config = new CodecConfig(spec);
    if (algorithm == Algorithm.JENKINS_LOOKUP3) {
      config.only("initval", "prefix");
      JsonNode initval = config.node("initval");
      if (initval != null
          && (!initval.isIntegralNumber()
              || initval.longValue() < 0
              || initval.longValue() > 0xffffffffL
              || !initval.canConvertToLong())) {
        throw config.error(
            "initval must be an integer 0..4294967295, not " + JsonDocument.describe(initval));
      }
      return new ChecksumCodec(
          algorithm, false, initval == null ? 0 : (int) initval.longValue(), prefix(config));
    }
    boolean atStart = algorithm.startByDefault;
    if (algorithm.hasLocation()) {
      config.only("location");
      String location = config.string("location", atStart ? "start" : "end");
      atStart =
          switch (location) {
            case "start" -> true;
            case "end" -> false;
            default ->
                throw config.error(
                    "location must be \"start\" or \"end\", not \"" + location + "\"");
          };
    } else {
      config.only();
    }
    return new ChecksumCodec(algorithm, atStart, 0, new byte[0]);
  }

  /** {@code prefix}: null, or the bytes as a list of integers 0..255. */
  private static byte[] prefix(CodecConfig config) {
    JsonNode node = config.node("prefix");
    if (node == null) {
      return new byte[0];
    }
    if (!node.isArray()) {
      throw config.error(
          "prefix must be null or a list of byte values 0..255, not "
              + JsonDocument.describe(node));
    }
    byte[] out = new byte[node.size()];
    for (int i = 0; i < out.length; i++) {
      JsonNode b = node.get(i);
      if (!b.isIntegralNumber() || b.intValue() < 0 || b.intValue() > 255) {
        throw config.error(
            "prefix[" + i + "] must be a byte value 0..255, not " + JsonDocument.describe(b));
      }
      out[i] = (byte) b.intValue();
    }
    return out;
  }

  @Override
  public byte[] prefix() {
    return prefix.clone();
  }

  @Override
  public String name() {
    return "numcodecs." + algorithm.id;
  }

  @Override
  public long encodedSize(long decodedSize) {
    return decodedSize + 4;
  }

  /** Verifies the checksum and returns the data part: a retained slice of {@code encoded}. */
  @Override
  public ArrowBuf decode(ArrowBuf encoded, long decodedSize, BufferAllocator allocator) {
    long total = encoded.writerIndex();
    if (total < 4) {
      throw new CodecException(
          "codec " + name() + ": " + total + " bytes is too short to hold a checksum");
    }
    long length = total - 4;
    if (decodedSize >= 0 && length != decodedSize) {
      throw new CodecException(
          "codec " + name() + ": data has " + length + " bytes, expected " + decodedSize);
    }
    if (length > Integer.MAX_VALUE) {
      throw new CodecException("codec " + name() + ": chunk of " + total + " bytes is too large");
    }
    long start = atStart ? 4 : 0;
    int stored = encoded.getInt(atStart ? 0 : length);
    int actual = checksum(encoded.nioBuffer(start, (int) length));
    if (stored != actual) {
      throw new CodecException(
          String.format(
              "codec %s: checksum mismatch: stored 0x%08x, data has 0x%08x",
              name(), stored, actual));
    }
    ArrowBuf data = encoded.slice(start, length);
    encoded.getReferenceManager().retain();
    data.writerIndex(length);
    return data;
  }

  /** The checksum of {@code data}'s remaining bytes (position and limit are not kept). */
  int checksum(ByteBuffer data) {
    return switch (algorithm) {
      case CRC32 -> zip(new CRC32(), data);
      case ADLER32 -> zip(new Adler32(), data);
      case CRC32C -> zip(new CRC32C(), data);
      case FLETCHER32 -> fletcher32(data);
      case JENKINS_LOOKUP3 -> lookup3(prefixed(data), initval);
    };
  }

  private static int zip(Checksum checksum, ByteBuffer data) {
    checksum.update(data);
    return (int) checksum.getValue();
  }

  private ByteBuffer prefixed(ByteBuffer data) {
    if (prefix.length == 0) {
      return data;
    }
    ByteBuffer all = ByteBuffer.allocate(prefix.length + data.remaining());
    all.put(prefix).put(data).flip();
    return all;
  }

  /**
   * HDF5's Fletcher-32 (H5_checksum_fletcher32): sums of big-endian 16-bit words, folded every 360
   * words; an odd last byte counts as the high byte of a word.
   */
  static int fletcher32(ByteBuffer data) {
    ByteBuffer in = data.slice().order(ByteOrder.BIG_ENDIAN);
    int words = in.remaining() / 2;
    long sum1 = 0;
    long sum2 = 0;
    int pos = 0;
    while (words > 0) {
      int block = Math.min(words, 360);
      words -= block;
      for (int i = 0; i < block; i++, pos += 2) {
        sum1 += in.getShort(pos) & 0xffff;
        sum2 += sum1;
      }
      sum1 = (sum1 & 0xffff) + (sum1 >>> 16);
      sum2 = (sum2 & 0xffff) + (sum2 >>> 16);
    }
    if ((in.remaining() & 1) != 0) {
      sum1 += (in.get(pos) & 0xff) << 8;
      sum2 += sum1;
      sum1 = (sum1 & 0xffff) + (sum1 >>> 16);
      sum2 = (sum2 & 0xffff) + (sum2 >>> 16);
    }
    sum1 = (sum1 & 0xffff) + (sum1 >>> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >>> 16);
    return (int) ((sum2 << 16) | sum1);
  }

  /** Bob Jenkins' lookup3 {@code hashlittle} (as HDF5's H5_checksum_lookup3) of the bytes. */
  static int lookup3(ByteBuffer data, int initval) {
    ByteBuffer in = data.slice().order(ByteOrder.LITTLE_ENDIAN);
    int length = in.remaining();
    int a = 0xdeadbeef + length + initval;
    int b = a;
    int c = a;
    int pos = 0;
    while (length - pos > 12) {
      a += in.getInt(pos);
      b += in.getInt(pos + 4);
      c += in.getInt(pos + 8);
      a -= c;
      a ^= Integer.rotateLeft(c, 4);
      c += b;
      b -= a;
      b ^= Integer.rotateLeft(a, 6);
      a += c;
      c -= b;
      c ^= Integer.rotateLeft(b, 8);
      b += a;
      a -= c;
      a ^= Integer.rotateLeft(c, 16);
      c += b;
      b -= a;
      b ^= Integer.rotateLeft(a, 19);
      a += c;
      c -= b;
      c ^= Integer.rotateLeft(b, 4);
      b += a;
      pos += 12;
    }
    int rest = length - pos;
    if (rest == 0) {
      return c;
    }
    int[] tail = new int[3];
    for (int i = 0; i < rest; i++) {
      tail[i >> 2] |= (in.get(pos + i) & 0xff) << ((i & 3) * 8);
    }
    a += tail[0];
    b += tail[1];
    c += tail[2];
    c ^= b;
    c -= Integer.rotateLeft(b, 14);
    a ^= c;
    a -= Integer.rotateLeft(c, 11);
    b ^= a;
    b -= Integer.rotateLeft(a, 25);
    c ^= b;
    c -= Integer.rotateLeft(b, 16);
    a ^= c;
    a -= Integer.rotateLeft(c, 4);
    b ^= a;
    b -= Integer.rotateLeft(a, 14);
    c ^= b;
    c -= Integer.rotateLeft(b, 24);
    return c;
  }
}
