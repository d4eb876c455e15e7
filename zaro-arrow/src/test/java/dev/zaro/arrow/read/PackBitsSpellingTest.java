package dev.zaro.arrow.read;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.store.MemoryStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * packbits configurations in the zarr-extensions README's spelling (first_byte, first_bit,
 * last_bit) and its schema's (start_byte, start_bit, end_bit) read alike. The chunk is worked out
 * by hand from the spec: bool elements 1, 0, 1, 1 are bits 0..3 of one byte, least significant
 * first (0b1101 = 13), after a byte holding the 4 padding bits.
 */
class PackBitsSpellingTest extends AllocatorTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"padding_encoding\":\"first_byte\",\"first_bit\":0,\"last_bit\":0}",
        "{\"padding_encoding\":\"start_byte\",\"start_bit\":0,\"end_bit\":0}"
      })
  void bothSpellingsRead(String configuration) {
    String meta =
        CodecBadInputTest.meta(
            "bool", false, "[{\"name\":\"packbits\",\"configuration\":" + configuration + "}]");
    MemoryStore store =
        new MemoryStore().put("a/zarr.json", meta).put("a/c/0/0", new byte[] {4, 13});
    try (Zaro zaro = Zaro.open(store, ZaroOptions.defaults());
        Slab slab = zaro.read("a", "0:2, 0:2", allocator)) {
      byte[] want = {1, 0, 1, 1};
      for (int i = 0; i < 4; i++) {
        assertEquals(want[i], slab.data().getByte(i), "element " + i);
      }
    }
  }
}
