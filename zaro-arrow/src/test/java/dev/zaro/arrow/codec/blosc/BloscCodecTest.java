package dev.zaro.arrow.codec.blosc;

import dev.zaro.arrow.codec.AbstractBytesCodecTest;
import dev.zaro.arrow.codec.BytesToBytesCodec;

/**
 * The bytes-codec contract on frames c-blosc wrote (numcodecs, lz4, byte-shuffle, typesize 4: 512
 * KiB blocks split into 4 streams). The "independent encoder" looks the payload up among the frames
 * generate_blosc.py wrote for the same bytes. Subclasses run the contract on other c-blosc
 * settings.
 */
public class BloscCodecTest extends AbstractBytesCodecTest {

  /** The suite directory under testdata/blosc/suite. */
  protected String variant() {
    return "lz4-shuffle-ts4";
  }

  @Override
  protected BytesToBytesCodec codec() {
    return new BloscCodec("lz4", 5, BloscCodec.Shuffle.SHUFFLE, 4, 0);
  }

  @Override
  protected byte[] encode(byte[] data) {
    return BloscFixtures.suiteFrame(variant(), data);
  }

  /** blosc has no checksum: only header bytes are sure to be caught. */
  @Override
  protected boolean detectsCorruption() {
    return false;
  }
}
