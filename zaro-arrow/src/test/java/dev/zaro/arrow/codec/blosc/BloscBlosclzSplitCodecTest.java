package dev.zaro.arrow.codec.blosc;

/** blosclz, byte-shuffle, typesize 3: split 65535-byte blocks and a short last block. */
class BloscBlosclzSplitCodecTest extends BloscCodecTest {
  @Override
  protected String variant() {
    return "blosclz-shuffle-ts3-split";
  }
}
