package dev.zaro.arrow.codec;

import com.github.luben.zstd.ZstdCompressCtx;

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
}
