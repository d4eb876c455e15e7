package dev.zaro.arrow.codec.core;

import com.github.luben.zstd.ZstdCompressCtx;
import dev.zaro.arrow.codec.AbstractBytesCodecTest;
import dev.zaro.arrow.codec.BytesToBytesCodec;

/** Frames without checksum or content size (as streaming writers produce) decode too. */
class ZstdUnsizedCodecTest extends AbstractBytesCodecTest {
  @Override
  protected BytesToBytesCodec codec() {
    return new ZstdCodec(1, false);
  }

  @Override
  protected byte[] encode(byte[] data) {
    try (ZstdCompressCtx ctx = new ZstdCompressCtx()) {
      ctx.setLevel(1);
      ctx.setChecksum(false);
      ctx.setContentSize(false);
      return ctx.compress(data);
    }
  }

  @Override
  protected boolean detectsCorruption() {
    return false;
  }
}
