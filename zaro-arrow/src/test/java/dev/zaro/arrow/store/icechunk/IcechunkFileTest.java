package dev.zaro.arrow.store.icechunk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDictTrainer;
import dev.zaro.arrow.error.StoreException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The pieces of the Icechunk format the fixtures cannot show on their own. */
class IcechunkFileTest {
  /** The example of the Icechunk spec: the well-known id of every repository's first snapshot. */
  @Test
  void objectIdsAreCrockfordBase32AsTheSpecSays() {
    byte[] id = HexFormat.of().parseHex("0b1cc8d6787580f0e33a6534");
    assertEquals("1CECHNKREP0F1RSTCMT0", ObjectId.encode(id));
    assertArrayEquals(id, ObjectId.decode12("1CECHNKREP0F1RSTCMT0", "snapshot"));
    assertArrayEquals(id, ObjectId.decode12("1cechnkrep0f1rstcmt0", "snapshot"));
    assertEquals(13, ObjectId.encode(new byte[8]).length());
  }

  /**
   * Icechunk 2 may store virtual chunk locations zstd-compressed with a dictionary the manifest
   * carries (many virtual chunks make it train one); none of the fixtures has enough. Here libzstd
   * (zstd-jni) trains a dictionary and compresses a location with it, as Icechunk's {@code
   * zstd::bulk::Compressor::with_dictionary} does.
   */
  @Test
  void compressedLocationsDecompressWithTheDictionary() {
    ZstdDictTrainer trainer = new ZstdDictTrainer(1 << 20, 4096);
    for (int i = 0; i < 3000; i++) {
      trainer.addSample(
          ("s3://era5-bucket/data/year="
                  + (1950 + i % 70)
                  + "/month="
                  + (i % 12 + 1)
                  + "/file_"
                  + i
                  + ".nc")
              .getBytes(StandardCharsets.UTF_8));
    }
    byte[] dictionary = trainer.trainSamples();
    String url = "s3://era5-bucket/data/year=1999/month=7/file_123456.nc";
    byte[] compressed;
    try (ZstdCompressCtx ctx = new ZstdCompressCtx()) {
      compressed =
          ctx.setLevel(3).loadDict(dictionary).compress(url.getBytes(StandardCharsets.UTF_8));
    }
    assertEquals(
        url,
        new String(
            IcechunkFile.unzstd(compressed, 0, compressed.length, dictionary, 1024, "x"),
            StandardCharsets.UTF_8));
    StoreException e =
        assertThrows(
            StoreException.class,
            () ->
                IcechunkFile.unzstd(compressed, 0, compressed.length, null, 1024, "the location"));
    assertTrue(e.getMessage().startsWith("the location: the zstd data is damaged"), e.getMessage());
  }

  @Test
  void decompressionStopsAtTheLimit() {
    byte[] bomb = Zstd.compress(new byte[1 << 20]);
    StoreException e =
        assertThrows(
            StoreException.class,
            () -> IcechunkFile.unzstd(bomb, 0, bomb.length, null, 100_000, "'manifests/X'"));
    assertTrue(e.getMessage().contains("more than 100000 bytes"), e.getMessage());
  }
}
