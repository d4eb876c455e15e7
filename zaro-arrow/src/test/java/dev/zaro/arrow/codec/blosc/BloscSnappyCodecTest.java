package dev.zaro.arrow.codec.blosc;

/** snappy (frames from tensorstore's c-blosc), byte-shuffle, typesize 2. */
class BloscSnappyCodecTest extends BloscCodecTest {
  @Override
  protected String variant() {
    return "snappy-shuffle-ts2";
  }
}
