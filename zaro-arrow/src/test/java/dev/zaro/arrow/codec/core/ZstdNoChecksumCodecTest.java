package dev.zaro.arrow.codec.core;

import com.github.luben.zstd.ZstdCompressCtx;
import dev.zaro.arrow.codec.AbstractBytesCodecTest;
import dev.zaro.arrow.codec.BytesToBytesCodec;

/** zstd frames without checksums (tensorstore's default): reads that need a prefix stop early. */
class ZstdNoChecksumCodecTest extends AbstractBytesCodecTest {
  @Override
  protected BytesToBytesCodec codec() {
    return new ZstdCodec(3, false);
  }

  @Override
  protected boolean detectsCorruption() {
    return false;
  }

  @Override
  protected byte[] encode(byte[] data) {
    try (ZstdCompressCtx ctx = new ZstdCompressCtx()) {
      ctx.setLevel(3);
      ctx.setChecksum(false);
      ctx.setContentSize(true);
      return ctx.compress(data);
    }
  }
}
