package dev.zaro.arrow.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;

/**
 * Every {@link HttpStoreTest} over https: the server shows testdata/tls's loopback certificate,
 * which the test JVM trusts through {@code javax.net.ssl.trustStore} (the module's surefire
 * configuration), as a user's JVM trusts a private CA. Reads go through {@link Http1Client}'s TLS;
 * HEAD and {@code -Dzaro.http.client=jdk} through {@code java.net.http}'s.
 */
class HttpsStoreTest extends HttpStoreTest {
  @Override
  SSLContext serverTls() {
    return LoopbackTls.server();
  }

  /** Reads open TLS connections of zaro's own client, one reused for every read. */
  @Test
  void readsGoThroughZarosOwnClient() throws Exception {
    byte[] value = "{}".getBytes(StandardCharsets.UTF_8);
    long before = Http1Client.shared().connectionsOpened();
    try (Store s = createStore(Map.of("zarr.json", value))) {
      for (int i = 0; i < 3; i++) {
        assertArrayEquals(value, s.getBytes("zarr.json").orElseThrow());
      }
    }
    assertEquals(1, Http1Client.shared().connectionsOpened() - before);
    assertEquals(1, server.clientPorts.size());
  }
}
