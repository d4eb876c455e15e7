package dev.zaro.arrow.codec.blosc;

/** zstd, bit-shuffle, typesize 1, unsplit 16 KiB blocks. */
class BloscZstdBitshuffleCodecTest extends BloscCodecTest {
  @Override
  protected String variant() {
    return "zstd-bitshuffle-ts1-bs16k";
  }
}
