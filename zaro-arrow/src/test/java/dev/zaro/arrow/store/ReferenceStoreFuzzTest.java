package dev.zaro.arrow.store;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.zaro.arrow.fuzz.FuzzChecks;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;

/**
 * Kerchunk JSON references (version 0 and 1: templates, {@code gen} expansion, base64 and text
 * values, gzip) on any bytes, as a document that came over the network (so no local file may be
 * named). Beside the store because it asks the package-private {@code reference(key)}: only inline
 * values are read back (a fuzz input must never make the test open a connection), whole and as a
 * suffix.
 */
class ReferenceStoreFuzzTest {

  @FuzzTest
  void parse(byte[] document) {
    FuzzChecks.run(
        allocator -> {
          try (ReferenceStore store =
              ReferenceStore.parse(document, "reference+json://fuzz.json", null, true)) {
            List<String> keys = store.list("").toList();
            assertTrue(
                keys.size() == store.size(), keys.size() + " keys listed of " + store.size());
            for (String key : keys) {
              if (store.reference(key) instanceof ReferenceTargets.Reference.Inline inline) {
                try (ArrowBuf whole = store.get(key, ByteRange.ALL, allocator).orElseThrow();
                    ArrowBuf tail =
                        store
                            .get(
                                key,
                                ByteRange.suffix(Math.min(3, inline.bytes().length)),
                                allocator)
                            .orElseThrow()) {
                  assertTrue(
                      whole.writerIndex() == inline.bytes().length && tail.writerIndex() <= 3);
                }
                assertTrue(store.getBytes(key).orElseThrow().length == inline.bytes().length);
              }
            }
          }
        });
  }
}
