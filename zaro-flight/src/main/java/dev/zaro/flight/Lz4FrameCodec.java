package dev.zaro.flight;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.xxhash.XXHashFactory;
import org.apache.arrow.compression.Lz4CompressionCodec;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.CompressionUtil;

/**
 * Arrow's LZ4_FRAME buffer compression, compressing with lz4-java's block compressor (native or
 * unsafe-Java, on the buffers' memory) instead of arrow-compression's commons-compress one, a
 * pure-Java LZ77 that takes minutes for what this does in a fraction of a second. Decompression
 * stays arrow-compression's. Frames are independent 4 MiB blocks without checksums (the LZ4 frame
 * format, version 1), which every LZ4F reader, pyarrow's among them, decodes.
 */
final class Lz4FrameCodec extends Lz4CompressionCodec {
  private static final int MAGIC = 0x184D2204;
  private static final int BLOCK = 4 << 20;
  private static final byte FLG = 0x60; // version 01, independent blocks, no checksums or size
  private static final byte BD = 0x70; // blocks of at most 4 MiB
  private static final LZ4Compressor COMPRESSOR = LZ4Factory.fastestInstance().fastCompressor();
  private static final byte HC;

  static {
    ByteBuffer descriptor = ByteBuffer.wrap(new byte[] {FLG, BD});
    HC = (byte) ((XXHashFactory.fastestInstance().hash32().hash(descriptor, 0, 2, 0) >> 8) & 0xFF);
  }

  @Override
  protected ArrowBuf doCompress(BufferAllocator allocator, ArrowBuf uncompressed) {
    long length = uncompressed.writerIndex();
    long blocks = (length + BLOCK - 1) / BLOCK;
    long bound =
        CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH
            + 7
            + blocks * (4 + COMPRESSOR.maxCompressedLength(BLOCK))
            + 4;
    ArrowBuf out = allocator.buffer(bound);
    try {
      long at = CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH;
      out.setInt(at, MAGIC); // ArrowBuf is little-endian, as LZ4 frames are
      out.setByte(at + 4, FLG);
      out.setByte(at + 5, BD);
      out.setByte(at + 6, HC);
      at += 7;
      for (long from = 0; from < length; from += BLOCK) {
        int n = (int) Math.min(BLOCK, length - from);
        ByteBuffer src = uncompressed.nioBuffer(from, n);
        int room = COMPRESSOR.maxCompressedLength(n);
        ByteBuffer dst = out.nioBuffer(at + 4, room).order(ByteOrder.LITTLE_ENDIAN);
        int packed = COMPRESSOR.compress(src, 0, n, dst, 0, room);
        if (packed < n) {
          out.setInt(at, packed);
          at += 4 + packed;
        } else { // incompressible: stored, with the size's high bit set
          out.setInt(at, n | 0x80000000);
          out.setBytes(at + 4, uncompressed, from, n);
          at += 4 + n;
        }
      }
      out.setInt(at, 0); // end mark
      out.writerIndex(at + 4);
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
  }
}
