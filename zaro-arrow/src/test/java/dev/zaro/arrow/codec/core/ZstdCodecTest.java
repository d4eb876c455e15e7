package dev.zaro.arrow.codec.core;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.ZstdCompressCtx;
import dev.zaro.arrow.codec.AbstractBytesCodecTest;
import dev.zaro.arrow.codec.BytesToBytesCodec;
import dev.zaro.arrow.error.CodecException;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.Test;

class ZstdCodecTest extends AbstractBytesCodecTest {
  @Override
  protected BytesToBytesCodec codec() {
    return new ZstdCodec(3, true);
  }

  /** zstd-jni's encoder (libzstd), with the frame checksum on. */
  @Override
  protected byte[] encode(byte[] data) {
    try (ZstdCompressCtx ctx = new ZstdCompressCtx()) {
      ctx.setLevel(3);
      ctx.setChecksum(true);
      ctx.setContentSize(true);
      return ctx.compress(data);
    }
  }

  /**
   * Found by CodecFuzzTest#zstd: decoding of unknown size took a frame's declared content size on
   * trust and allocated it. A 17-byte frame (zstd format: magic, a single-segment header with an
   * 8-byte content size of 4 GiB, one raw 1-byte last block) can hold at most 544 KiB.
   */
  @Test
  void unknownSizeDecodeRefusesAContentSizeTheDataCannotHold() {
    byte[] frame = {
      0x28, (byte) 0xb5, 0x2f, (byte) 0xfd, (byte) 0xe0, 0, 0, 0, 0, 1, 0, 0, 0, 9, 0, 0, 42
    };
    try (BufferAllocator limited = allocator.newChildAllocator("limited", 0, 16 << 20);
        ArrowBuf in = limited.buffer(frame.length)) {
      in.setBytes(0, frame);
      in.writerIndex(frame.length);
      CodecException e =
          assertThrows(CodecException.class, () -> codec().decode(in, -1, limited).close());
      assertTrue(
          e.getMessage().contains("frame declares 4294967296 decoded bytes"), e.getMessage());
    }
  }

  /**
   * Found by CodecFuzzTest#zstd: two corrupt 24-byte frames made libzstd ask for more room whatever
   * it got, and the output doubled to 384 MiB. It now stops at what 30 bytes of zstd can hold.
   */
  @Test
  void unknownSizeDecodeStopsGrowingAtWhatTheDataCanHold() {
    int[] bytes = {
      0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x18, 0x6d, 0x00, 0x00, 0x38, 0x48, 0x28, 0xb5, 0x2f, 0xfd,
      0x20, 0x18, 0x6d, 0x00, 0x45, 0x63, 0x9c, 0x70, 0xaa, 0x00, 0x01, 0x00, 0x33, 0x30, 0x02
    };
    try (BufferAllocator limited = allocator.newChildAllocator("limited", 0, 16 << 20);
        ArrowBuf in = limited.buffer(bytes.length)) {
      for (int i = 0; i < bytes.length; i++) {
        in.setByte(i, bytes[i]);
      }
      in.writerIndex(bytes.length);
      CodecException e =
          assertThrows(CodecException.class, () -> codec().decode(in, -1, limited).close());
      assertTrue(e.getMessage().startsWith("codec zstd: "), e.getMessage());
    }
  }
}
