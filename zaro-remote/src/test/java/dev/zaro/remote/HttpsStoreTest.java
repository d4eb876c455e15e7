package dev.zaro.remote;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.LoopbackTls;
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
  void readsGoThroughZarosOwnClient() {
    long before = Http1Client.shared().connectionsOpened();
    int ports = server.clientPorts.size();
    try (HttpStore s = new HttpStore(server.url("data"), FAST)) {
      for (int i = 0; i < 3; i++) {
        assertArrayEquals(CONTENTS.get("a/c/0/0"), s.getBytes("a/c/0/0").orElseThrow());
      }
    }
    assertEquals(1, Http1Client.shared().connectionsOpened() - before);
    assertEquals(ports + 1, server.clientPorts.size());
  }

  /** A redirect from https to plain http is refused, as java.net.http refuses it. */
  @Test
  void aRedirectToPlainHttpIsRefused() {
    try (HttpStore moved = new HttpStore(server.url("plain/data"), FAST)) {
      StoreException e =
          assertThrows(StoreException.class, () -> moved.get("a/c/0/0", ByteRange.ALL, allocator));
      assertTrue(e.getMessage().contains("from https to plain http"), e.getMessage());
      assertTrue(e.getMessage().contains("key 'a/c/0/0'"), e.getMessage());
    }
  }
}
