package dev.zaro.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.store.ByteRange;
import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.Test;

/**
 * {@link S3StoreTest} against moto_server over https (testdata/tls's loopback certificate, trusted
 * by the test JVM): object GETs through zaro's own client over TLS, signed, the rest through the
 * SDK's.
 */
class S3StoreTlsTest extends S3StoreTest implements S3StoreTest.OverTls {
  @Test
  void signedGetsOverTlsGoThroughZarosClient() throws Exception {
    createStore(CONTENTS).close();
    assertTrue(moto.endpoint().toString().startsWith("https://"), moto.endpoint().toString());
    try (S3Store s = new S3Store(bucket, "pre/fix", options())) {
      assertTrue(s.zaroGets() && !s.anonymous());
      byte[] value = CONTENTS.get("a/c/0/0");
      assertArrayEquals(value, s.getBytes("a/c/0/0").orElseThrow());
      try (ArrowBuf part = s.get("a/c/0/0", ByteRange.of(1, 3), allocator).orElseThrow()) {
        byte[] got = new byte[(int) part.writerIndex()];
        part.getBytes(0, got);
        assertArrayEquals(Arrays.copyOfRange(value, 1, 4), got);
      }
    }
  }
}
